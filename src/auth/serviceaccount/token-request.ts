/**
 * POST serviceaccounts/<name>/token: kube's TokenRequest REST, as a Registry decorator (the
 * signing key lives here, not in the registry).
 *
 * - the account must exist (404); spec.audiences default to --api-audiences; expirationSeconds
 *   defaults to 3600 and must be at least 600 and at most 2^32 (422 in kube's words), and is cut to
 *   --service-account-max-token-expiration;
 * - boundObjectRef may name a Pod (running as this account), a Secret of the namespace or a Node:
 *   it must exist (404), and a given uid must match (409);
 * - with --service-account-extend-token-expiration, a pod-bound token for the API's own audiences
 *   asked for 3607 s (what kubelets ask for projected volumes) lives a year, with `warnafter` at the
 *   asked time, as kube does while clients learn to reload tokens;
 * - the answer is the TokenRequest with status.token and status.expirationTimestamp (201). Dry run
 *   checks everything and issues no token.
 */
import { withVerbs } from '../../api/registry/with-verbs';
import { ApiError, errors } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import type { Scheme } from '../../api/scheme';
import type { StatusCause } from '../../api/errors';
import type { Registry, Target, WriteOptions, WriteResult } from '../../api/registry/types';
import { invalid } from '../../api/validation/field-errors';
import { boundTokenClaims } from './claims';
import type { ObjectRef } from './claims';
import type { TokenIssuer } from './token-issuer';

/** what kubelets ask for projected tokens (kube's WarnOnlyBoundTokenExpirationSeconds) */
export const WARN_ONLY_EXPIRATION_SECONDS = 60 * 60 + 7;
/** kube's ExpirationExtensionSeconds: one year */
export const EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 60 * 60;

export interface TokenRequestOptions {
  scheme: Scheme;
  issuer: TokenIssuer;
  apiAudiences: readonly string[];
  /** --service-account-max-token-expiration in seconds; 0 = no cap */
  maxExpirationSeconds: number;
  extendExpiration: boolean;
  /** the ServiceAccountTokenNodeBinding gate: tokens may be bound to a Node (default true) */
  nodeBinding?: boolean;
  now?: () => Date;
}

/** the kinds a token may be bound to, and their resources */
const BOUND_KINDS: Record<string, string> = { Pod: 'pods', Secret: 'secrets', Node: 'nodes' };

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function tokenRequestOf(body: KubeObject): { audiences: string[]; expirationSeconds: number; bound?: Record<string, unknown> } {
  const spec = (typeof body.spec === 'object' && body.spec !== null ? body.spec : {}) as Record<string, unknown>;
  const causes: StatusCause[] = [];
  const audiences = Array.isArray(spec.audiences) ? spec.audiences : [];
  if (spec.audiences !== undefined && spec.audiences !== null && !Array.isArray(spec.audiences)) throw errors.badRequest('spec.audiences: expected an array of strings');
  if (audiences.some((a) => typeof a !== 'string')) throw errors.badRequest('spec.audiences: expected an array of strings');
  const exp = spec.expirationSeconds ?? 3600;
  if (typeof exp !== 'number' || !Number.isInteger(exp)) throw errors.badRequest('spec.expirationSeconds: expected an integer');
  if (exp < 600) causes.push(invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
  if (exp > 2 ** 32) causes.push(invalid('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
  // kube names no object in this Invalid error
  if (causes.length > 0) throw errors.invalid('TokenRequest', 'authentication.k8s.io', '', causes);
  const bound = spec.boundObjectRef;
  if (bound !== undefined && bound !== null && typeof bound !== 'object') throw errors.badRequest('spec.boundObjectRef: expected an object');
  return { audiences: audiences as string[], expirationSeconds: exp, bound: (bound ?? undefined) as Record<string, unknown> | undefined };
}

export function withTokenRequest<R extends Registry>(registry: R, opts: TokenRequestOptions): R {
  const core = (resource: string): Target['kind'] => {
    const kind = opts.scheme.byResource('', 'v1', resource);
    if (!kind) throw new ApiError(404, 'NotFound', 'the server could not find the requested resource');
    return kind;
  };

  /**
   * kube's bound object checks: a Pod running as the account (its node named in the token too, as
   * kube 1.30+ does), a Secret of the namespace or a Node, with a matching uid when one is given
   */
  async function boundObject(ns: string, account: string, ref: Record<string, unknown>): Promise<{ pod?: ObjectRef; secret?: ObjectRef; node?: ObjectRef }> {
    const kind = str(ref.kind);
    const apiVersion = str(ref.apiVersion) || 'v1';
    const name = str(ref.name);
    const resource = apiVersion === 'v1' ? BOUND_KINDS[kind] : undefined;
    if (!resource) {
      const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
      const version = apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
      throw errors.badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
    }
    if (kind === 'Node' && opts.nodeBinding === false) {
      throw errors.badRequest('cannot bind token to a Node object as the "ServiceAccountTokenNodeBinding" feature-gate is disabled');
    }
    const obj = await registry.get({ kind: core(resource), namespace: resource === 'nodes' ? undefined : ns, name }, {});
    const spec = (obj.spec ?? {}) as Record<string, unknown>;
    if (kind === 'Pod' && str(spec.serviceAccountName) !== account) {
      throw errors.badRequest(`cannot bind token for serviceaccount "${account}" to pod running with different serviceaccount name.`);
    }
    const uid = str(obj.metadata?.uid);
    const wanted = str(ref.uid);
    if (wanted !== '' && wanted !== uid) {
      throw errors.conflict({ group: '', resource: kind }, name, `the UID in the bound object reference (${wanted}) does not match the UID in record. The object might have been deleted and then recreated`);
    }
    if (kind === 'Secret') return { secret: { name, uid } };
    if (kind === 'Node') return { node: { name, uid } };
    const nodeName = str(spec.nodeName);
    if (nodeName === '') return { pod: { name, uid } };
    const node = await registry.get({ kind: core('nodes'), name: nodeName }, {}).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    });
    return { pod: { name, uid }, node: { name: nodeName, uid: str(node?.metadata?.uid) } };
  }

  async function createToken(t: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult> {
    const ns = t.namespace ?? '';
    const name = t.name ?? '';
    const sa = await registry.get({ kind: t.kind, namespace: ns, name }, {});
    const req = tokenRequestOf(body);
    if (req.audiences.length === 0) req.audiences = [...opts.apiAudiences];
    const bound = req.bound ? await boundObject(ns, name, req.bound) : {};
    let expirationSeconds = req.expirationSeconds;
    if (opts.maxExpirationSeconds > 0 && expirationSeconds > opts.maxExpirationSeconds) expirationSeconds = opts.maxExpirationSeconds;
    let lifetime = expirationSeconds;
    let warnAfterSeconds: number | undefined;
    const forApi = req.audiences.every((a) => opts.apiAudiences.includes(a));
    if (opts.extendExpiration && bound.pod && expirationSeconds === WARN_ONLY_EXPIRATION_SECONDS && forApi) {
      warnAfterSeconds = expirationSeconds;
      lifetime = EXTENDED_EXPIRATION_SECONDS;
    }
    const now = opts.now?.() ?? new Date();
    const nowSeconds = Math.floor(now.getTime() / 1000);
    const token = options.dryRun
      ? ''
      : await opts.issuer.sign(boundTokenClaims({
          namespace: ns,
          serviceAccount: { name, uid: str(sa.metadata?.uid) },
          audiences: req.audiences,
          expirationSeconds: lifetime,
          ...bound,
          warnAfterSeconds,
          now: nowSeconds,
        }));
    const spec: Record<string, unknown> = { audiences: req.audiences, expirationSeconds, boundObjectRef: req.bound ?? null };
    const object: KubeObject = {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { ...(body.metadata ?? {}), name, namespace: ns, creationTimestamp: null },
      spec,
      status: { token, expirationTimestamp: new Date((nowSeconds + expirationSeconds) * 1000).toISOString().replace(/\.\d+Z$/, 'Z') },
    };
    return { object, created: true };
  }

  const isToken = (t: Target, sub: string): boolean => t.kind.group === '' && t.kind.resource === 'serviceaccounts' && sub === 'token';
  return withVerbs(registry, {
    createSubresource: (t: Target, sub: string, body: KubeObject, o: WriteOptions) => (isToken(t, sub) ? createToken(t, body, o) : registry.createSubresource(t, sub, body, o)),
  });
}
