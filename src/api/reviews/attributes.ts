/**
 * From a review's spec to the authorizer's attributes and back to the review's status, as kube's
 * pkg/registry/authorization/util does: an empty version means every version (`*`); the subject of
 * a (Local)SubjectAccessReview is the spec's user, groups, uid and extra.
 */
import type { Obj } from '../kinds/util';
import { isObj } from '../kinds/util';
import type { AuthorizationAttributes, Decision, UserInfo } from './authorizer';

function s(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function rawSelector(v: unknown): string | undefined {
  const raw = isObj(v) ? s(v.rawSelector) : '';
  return raw === '' ? undefined : raw;
}

/** the subject named by a SubjectAccessReviewSpec */
export function subjectOf(spec: Obj): UserInfo {
  const user: UserInfo = {
    name: s(spec.user),
    groups: Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [],
  };
  if (s(spec.uid)) user.uid = s(spec.uid);
  if (isObj(spec.extra)) {
    user.extra = Object.fromEntries(
      Object.entries(spec.extra).map(([k, v]) => [k, Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []]),
    );
  }
  return user;
}

/** the attributes a validated spec asks about (exactly one of the two attribute fields is set) */
export function attributesOf(spec: Obj, user: UserInfo | undefined): AuthorizationAttributes {
  const ra = spec.resourceAttributes;
  if (isObj(ra)) {
    const attrs: AuthorizationAttributes = {
      verb: s(ra.verb),
      resourceRequest: true,
      namespace: s(ra.namespace),
      apiGroup: s(ra.group),
      apiVersion: s(ra.version) || '*',
      resource: s(ra.resource),
      subresource: s(ra.subresource),
      name: s(ra.name),
    };
    const labels = rawSelector(ra.labelSelector);
    const fields = rawSelector(ra.fieldSelector);
    if (labels !== undefined) attrs.labelSelector = labels;
    if (fields !== undefined) attrs.fieldSelector = fields;
    if (user) attrs.user = user;
    return attrs;
  }
  const nra = isObj(spec.nonResourceAttributes) ? spec.nonResourceAttributes : {};
  const attrs: AuthorizationAttributes = { verb: s(nra.verb), resourceRequest: false, path: s(nra.path) };
  if (user) attrs.user = user;
  return attrs;
}

/** a SubjectAccessReviewStatus: `allowed` always, the rest only when set (Go's omitempty) */
export function statusOf(decision: Decision): Obj {
  const status: Obj = { allowed: decision.allowed === true };
  if (decision.denied) status.denied = true;
  if (decision.reason) status.reason = decision.reason;
  if (decision.evaluationError) status.evaluationError = decision.evaluationError;
  return status;
}

/** a v1beta1 SubjectAccessReviewSpec (which names the groups `group`) in the v1 form */
export function specAsV1(spec: Obj, version: string): Obj {
  if (version !== 'v1beta1') return spec;
  const { group, ...rest } = spec;
  return group === undefined ? rest : { ...rest, groups: group };
}
