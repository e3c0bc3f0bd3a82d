/**
 * The names kube gives to special users and groups. Who makes a request (kube's user.Info) is the
 * UserInfo of the authorizer seam: authentication fills it in, impersonation may replace it,
 * authorization, admission and audit read it.
 */
import type { UserInfo } from '../api/reviews/authorizer';

export type { UserInfo };

/** the user of requests no authenticator recognized, when --anonymous-auth lets them through */
export const ANONYMOUS_USER = 'system:anonymous';
/** the group of anonymous requests */
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
/** the group every authenticated user is added to */
export const AUTHENTICATED_GROUP = 'system:authenticated';
/** the group RBAC's cluster-admin binding names: members may do anything (and escalate) */
export const MASTERS_GROUP = 'system:masters';

export function anonymousUser(): UserInfo {
  return { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] };
}

/** kube's AuthenticatedGroupAdder: system:authenticated for every user but the anonymous one */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER) return user;
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
