/**
 * kube's WithImpersonation: a caller may act as another user with the Impersonate-User,
 * Impersonate-Group (repeated), Impersonate-Uid and Impersonate-Extra-<key> headers. Each asked
 * identity is put to the authorizer as verb `impersonate` (users, groups, serviceaccounts in the
 * service account's namespace, userextras/<key> and uids of authentication.k8s.io); the first
 * refusal is a 403 in kube's words. The new user gets system:authenticated (system:unauthenticated
 * for the anonymous user) as kube adds it, and the headers are removed.
 */
import type { AuthorizationAttributes, Authorizer } from '../../api/reviews/authorizer';
import { errors } from '../../api/errors';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from '../../auth/user';
import type { ApiMiddleware, UserInfo } from '../context';
import { forbiddenError } from './authorization';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA = 'impersonate-extra-';
const SA_PREFIX = 'system:serviceaccount:';

type Headers = Record<string, string | string[] | undefined>;

const values = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** the attributes of one impersonation check, without the user */
type Ask = Omit<AuthorizationAttributes, 'user' | 'verb' | 'resourceRequest'>;

export function impersonation(authorizer: Authorizer): ApiMiddleware {
  return async (ctx, next) => {
    const headers = ctx.req.headers as Headers;
    const names = Object.keys(headers).filter((h) => h === USER || h === GROUP || h === UID || h.startsWith(EXTRA));
    if (names.length === 0) return next();
    const requestor = ctx.state.user;

    const userName = values(headers[USER])[0];
    const groups = values(headers[GROUP]).flatMap((g) => g.split(',').map((s) => s.trim()));
    const uid = values(headers[UID])[0];
    const extra: Record<string, string[]> = {};
    for (const h of names.filter((n) => n.startsWith(EXTRA))) {
      let key: string;
      try {
        key = decodeURIComponent(h.slice(EXTRA.length)).toLowerCase();
      } catch {
        throw errors.badRequest(`invalid impersonation header ${h}`);
      }
      extra[key] = values(headers[h]).flatMap((v) => v.split(',').map((s) => s.trim()));
    }
    if (userName === undefined || userName === '') {
      throw errors.badRequest(`requested ${names.sort().join(', ')} without impersonating a user`);
    }

    const asks: Ask[] = [];
    let newGroups = [...groups];
    if (userName.startsWith(SA_PREFIX) && userName.slice(SA_PREFIX.length).split(':').length === 2) {
      const [namespace, name] = userName.slice(SA_PREFIX.length).split(':') as [string, string];
      asks.push({ apiGroup: '', resource: 'serviceaccounts', namespace, name });
      // a service account's groups are fixed; kube fills them in when none were asked for
      if (groups.length === 0) newGroups = ['system:serviceaccounts', `system:serviceaccounts:${namespace}`];
    } else {
      asks.push({ apiGroup: '', resource: 'users', name: userName });
    }
    for (const g of groups) asks.push({ apiGroup: '', resource: 'groups', name: g });
    for (const [key, vals] of Object.entries(extra)) {
      for (const v of vals) asks.push({ apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
    }
    if (uid !== undefined) asks.push({ apiGroup: 'authentication.k8s.io', resource: 'uids', name: uid });

    for (const ask of asks) {
      const attrs: AuthorizationAttributes = { user: requestor, verb: 'impersonate', resourceRequest: true, ...ask };
      const decision = await authorizer.authorize(attrs);
      if (!decision.allowed) {
        ctx.state.log.debug({ reason: decision.reason, impersonate: ask }, 'Forbidden impersonation');
        throw forbiddenError(attrs, decision.reason);
      }
    }

    const membership = userName === ANONYMOUS_USER ? UNAUTHENTICATED_GROUP : AUTHENTICATED_GROUP;
    if (!newGroups.includes(membership)) newGroups.push(membership);
    const user: UserInfo = { name: userName, groups: newGroups };
    if (uid !== undefined) user.uid = uid;
    if (Object.keys(extra).length > 0) user.extra = extra;
    ctx.state.user = user;
    for (const h of names) delete ctx.req.headers[h];
    await next();
  };
}
