/**
 * The AdmissionReview a webhook is sent (admission.k8s.io v1 or v1beta1, the first of its
 * admissionReviewVersions that we speak) and the checks kube makes of the answer before trusting
 * it (webhook/request.go VerifyAdmissionResponse): v1 answers must be a v1 AdmissionReview echoing
 * the request's uid; v1beta1 answers are taken as they come, as kube always did.
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/kind';
import { arrAt, isObj, str, type Obj } from '../../api/kinds/util';
import type { AdmissionAttributes } from '../types';
import type { WebhookInvocation } from './matcher';

export const reviewVersions = ['v1', 'v1beta1'] as const;
export type ReviewVersion = (typeof reviewVersions)[number];

/** a webhook answer that cannot be used; the message is kube's, the call counts as failed */
export class InvalidResponseError extends Error {}

/** the first of the webhook's admissionReviewVersions we speak, or undefined */
export function reviewVersionFor(hook: Obj): ReviewVersion | undefined {
  const asked = arrAt(hook, 'admissionReviewVersions').map(str);
  return asked.find((v): v is ReviewVersion => (reviewVersions as readonly string[]).includes(v));
}

/** the options kind kube sends per operation, with the fields each has (PATCH is an UPDATE) */
const optionsKinds: Record<string, { kind: string; fields: string[] }> = {
  CREATE: { kind: 'CreateOptions', fields: ['dryRun', 'fieldManager', 'fieldValidation'] },
  UPDATE: { kind: 'UpdateOptions', fields: ['dryRun', 'fieldManager', 'fieldValidation'] },
  DELETE: { kind: 'DeleteOptions', fields: ['gracePeriodSeconds', 'preconditions', 'orphanDependents', 'propagationPolicy', 'dryRun'] },
};

function optionsFor(a: AdmissionAttributes): Obj | undefined {
  if (!a.options) return undefined;
  const known = optionsKinds[a.operation];
  // CONNECT's options (PodExecOptions, ...) keep their own type
  if (!known) return { ...a.options };
  const out: Obj = { kind: known.kind, apiVersion: 'meta.k8s.io/v1' };
  for (const f of known.fields) if (a.options[f] !== undefined) out[f] = a.options[f];
  return out;
}

export interface ReviewObjects {
  object?: KubeObject;
  oldObject?: KubeObject;
}

export function buildReview(version: ReviewVersion, inv: WebhookInvocation, a: AdmissionAttributes, objects: ReviewObjects, uid = randomUUID()): Obj {
  const r = inv.resource;
  const requestKind = a.kind;
  const request: Obj = {
    uid,
    kind: inv.objectKind,
    resource: { group: r.group, version: r.version, resource: r.resource },
    ...(a.subresource ? { subResource: a.subresource } : {}),
    requestKind: requestKindOf(inv, a),
    requestResource: { group: requestKind.group, version: requestKind.version, resource: requestKind.resource },
    ...(a.subresource ? { requestSubResource: a.subresource } : {}),
    ...(a.name ? { name: a.name } : {}),
    ...(a.namespace ? { namespace: a.namespace } : {}),
    operation: a.operation,
    userInfo: a.user
      ? {
          username: a.user.name,
          ...(a.user.uid ? { uid: a.user.uid } : {}),
          groups: [...a.user.groups],
          ...(a.user.extra && Object.keys(a.user.extra).length ? { extra: a.user.extra } : {}),
        }
      : {},
    object: objects.object ?? null,
    oldObject: objects.oldObject ?? null,
    dryRun: a.dryRun,
  };
  const options = optionsFor(a);
  if (options) request.options = options;
  return { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request };
}

/** the kind as the caller asked for it: the request's own version of the object's kind */
function requestKindOf(inv: WebhookInvocation, a: AdmissionAttributes): Obj {
  if (inv.resource === a.kind) return { ...inv.objectKind };
  // same kind name in the request's group/version, unless the subresource carries another kind
  if (inv.objectKind.group === inv.resource.group && inv.objectKind.kind === inv.resource.kind) {
    return { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  }
  return { ...inv.objectKind };
}

/** what a usable answer says */
export interface ReviewResponse {
  allowed: boolean;
  /** the Status the webhook gave (a denial's message, reason and code) */
  result?: Obj;
  /** the JSON patch text (decoded from base64), mutating webhooks only */
  patch?: string;
  warnings: string[];
}

export function parseResponse(version: ReviewVersion, body: unknown, uid: string, mutating: boolean): ReviewResponse {
  if (!isObj(body)) throw new InvalidResponseError('webhook response was absent');
  if (version === 'v1') {
    const gvk = `${str(body.apiVersion) || '/'}, Kind=${str(body.kind)}`;
    if (body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
      throw new InvalidResponseError(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${gvk}`);
    }
  }
  const response = body.response;
  if (!isObj(response)) throw new InvalidResponseError('webhook response was absent');
  if (version === 'v1' && str(response.uid) !== uid) {
    throw new InvalidResponseError(`expected response.uid="${uid}", got "${str(response.uid)}"`);
  }
  const out: ReviewResponse = {
    allowed: response.allowed === true,
    warnings: arrAt(response, 'warnings').map(str),
  };
  if (isObj(response.status)) out.result = response.status;
  const patch = str(response.patch);
  let patchType = str(response.patchType);
  if (patch === '' && patchType === '') return out;
  if (version === 'v1') {
    if (!mutating) throw new InvalidResponseError('validating webhooks may not return response.patch or response.patchType');
    if (patch === '') throw new InvalidResponseError('webhook returned response.patchType but not response.patch');
    if (patchType === '') throw new InvalidResponseError('webhook returned response.patch but not response.patchType');
  } else if (patchType === '') {
    // v1beta1 webhooks were never made to say which patch they send
    patchType = 'JSONPatch';
  }
  if (patchType !== 'JSONPatch') throw new InvalidResponseError(`webhook returned invalid response.patchType of "${patchType}"`);
  if (mutating && patch !== '') out.patch = Buffer.from(patch, 'base64').toString('utf8');
  return out;
}
