/**
 * kube's WithAuthorization: every request is put to the authorizer as attributes made from its
 * request info and user; anything but "allowed" ends it with 403 Forbidden in kube's words
 * (`pods is forbidden: User "u" cannot list resource "pods" in API group "" in the namespace "n"`,
 * followed by the authorizer's reason when it gave one). An authorizer error without a decision is
 * a 500, as in kube.
 */
import type { AuthorizationAttributes, Authorizer } from '../../api/reviews/authorizer';
import { errors } from '../../api/errors';
import type { ApiMiddleware, UserInfo } from '../context';
import type { RequestInfo } from '../request-info';

/** the attributes kube builds from a request (GetAuthorizerAttributes) */
export function requestAttributes(info: RequestInfo, user: UserInfo | undefined, query?: URLSearchParams): AuthorizationAttributes {
  if (!info.isResourceRequest) return { user, verb: info.verb, resourceRequest: false, path: info.path };
  const attrs: AuthorizationAttributes = {
    user,
    verb: info.verb,
    resourceRequest: true,
    apiGroup: info.group,
    apiVersion: info.version,
    resource: info.resource,
  };
  if (info.namespace !== undefined) attrs.namespace = info.namespace;
  if (info.name !== undefined) attrs.name = info.name;
  if (info.subresource !== undefined) attrs.subresource = info.subresource;
  const labelSelector = query?.get('labelSelector');
  const fieldSelector = query?.get('fieldSelector');
  if (labelSelector) attrs.labelSelector = labelSelector;
  if (fieldSelector) attrs.fieldSelector = fieldSelector;
  return attrs;
}

/** kube's forbiddenMessage, with the authorizer's reason appended */
export function forbiddenError(attrs: AuthorizationAttributes, reason?: string) {
  const who = attrs.user?.name ?? '';
  let what: string;
  if (!attrs.resourceRequest) {
    what = `User "${who}" cannot ${attrs.verb} path "${attrs.path ?? ''}"`;
  } else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : (attrs.resource ?? '');
    const where = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
    what = `User "${who}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup ?? ''}" ${where}`;
  }
  const why = reason ? `${what}: ${reason}` : what;
  if (!attrs.resourceRequest) return errors.forbidden({ group: '', resource: '' }, '', why);
  return errors.forbidden({ group: attrs.apiGroup ?? '', resource: attrs.resource ?? '' }, attrs.name ?? '', why);
}

export function authorization(authorizer: Authorizer): ApiMiddleware {
  return async (ctx, next) => {
    const attrs = requestAttributes(ctx.state.info, ctx.state.user, ctx.state.query);
    const decision = await authorizer.authorize(attrs);
    if (!decision.allowed) {
      if (decision.evaluationError && !decision.denied && !decision.reason) {
        throw errors.internal(decision.evaluationError);
      }
      ctx.state.log.debug({ reason: decision.reason, error: decision.evaluationError }, 'Forbidden');
      throw forbiddenError(attrs, decision.reason);
    }
    await next();
  };
}
