/**
 * The answers of the reviews that are not access decisions, as kube's REST endpoints give them:
 * TokenReview (pkg/registry/authentication/tokenreview), SelfSubjectReview (.../selfsubjectreview)
 * and SelfSubjectRulesReview (pkg/registry/authorization/selfsubjectrulesreview).
 */
import { errors } from '../errors';
import type { KubeObject } from '../kind';
import type { Obj } from '../kinds/util';
import { isObj } from '../kinds/util';
import type { TokenAuthenticator } from './authenticator';
import type { Authorizer, UserInfo } from './authorizer';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** a UserInfo in the review form: username, then uid, groups and extra when set */
export function userInfoOf(user: UserInfo): Obj {
  const out: Obj = { username: user.name };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) out.extra = structuredClone(user.extra);
  return out;
}

/**
 * TokenReview: a token is required (400 otherwise); without an authenticator the review comes back
 * as it was sent, as kube's does; otherwise status tells whether and whose the token is. A response
 * whose audiences miss every audience asked for is kube's 500 "error validating audiences".
 */
export async function answerTokenReview(obj: KubeObject, authenticator: TokenAuthenticator | undefined, apiAudiences: string[]): Promise<KubeObject> {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  if (typeof spec.token !== 'string' || spec.token === '') throw errors.badRequest('token is required for TokenReview in authentication');
  if (!authenticator) return obj;
  const asked = strings(spec.audiences);
  const audiences = asked.length > 0 ? asked : apiAudiences;
  const status: Obj = {};
  let response;
  try {
    response = await authenticator.authenticateToken(spec.token, audiences);
  } catch (err) {
    status.error = err instanceof Error ? err.message : String(err);
  }
  if (response && audiences.length > 0 && !response.audiences.some((a) => audiences.includes(a))) {
    throw errors.internal('error validating audiences');
  }
  if (response) {
    status.authenticated = true;
    status.user = userInfoOf(response.user);
    if (response.audiences.length > 0) status.audiences = [...response.audiences];
  }
  return { ...obj, status };
}

/** SelfSubjectReview: the caller, created now */
export function answerSelfSubjectReview(obj: KubeObject, user: UserInfo): KubeObject {
  const creationTimestamp = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { creationTimestamp }, status: { userInfo: userInfoOf(user) } };
}

/**
 * SelfSubjectRulesReview: the caller's rules in spec.namespace (400 without one). kube answers
 * with a fresh object: empty metadata and spec, the rules in status.
 */
export async function answerRulesReview(obj: KubeObject, authorizer: Authorizer, user: UserInfo): Promise<KubeObject> {
  const spec: Obj = isObj(obj.spec) ? obj.spec : {};
  const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
  if (namespace === '') throw errors.badRequest('no namespace on request');
  const status: Obj = { resourceRules: [], nonResourceRules: [], incomplete: true };
  if (authorizer.rulesFor) {
    try {
      const rules = await authorizer.rulesFor(user, namespace);
      status.resourceRules = structuredClone(rules.resourceRules);
      status.nonResourceRules = structuredClone(rules.nonResourceRules);
      status.incomplete = rules.incomplete;
      if (rules.evaluationError) status.evaluationError = rules.evaluationError;
    } catch (err) {
      status.evaluationError = err instanceof Error ? err.message : String(err);
    }
  }
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: {}, spec: {}, status };
}
