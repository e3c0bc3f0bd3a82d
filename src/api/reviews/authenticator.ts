/**
 * The authentication seams the review kinds answer from. `TokenAuthenticator` is what a TokenReview
 * asks (kube's authenticator.Token); `RequestUserProvider` names the user a request is made by,
 * which SelfSubjectReview, SelfSubjectAccessReview and SelfSubjectRulesReview are about. Ballast
 * has no authentication yet: the server runs without a token authenticator (TokenReviews come back
 * unanswered, as kube's do without one) and every request is taken to be the admin client
 * certificate's user. The security work replaces both.
 */
import type { UserInfo } from './authorizer';

/** a successful token authentication */
export interface TokenAuthentication {
  user: UserInfo;
  /** the audiences the token is valid for (kube's authenticator.Response.Audiences) */
  audiences: string[];
}

export interface TokenAuthenticator {
  /**
   * who `token` belongs to, among `audiences` (empty: the server's own); undefined when the token
   * is not recognized; throws when the token cannot be checked (the review reports the error)
   */
  authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined>;
}

export interface RequestUserProvider {
  /** the user the current request is made by */
  currentUser(): UserInfo;
}

/** the identity of the admin kubeconfig's client certificate (CN ballast-admin, O system:masters) */
export const ADMIN_USER: UserInfo = Object.freeze({ name: 'ballast-admin', groups: ['system:masters', 'system:authenticated'] });

/** every request is made by one fixed user */
export class FixedUserProvider implements RequestUserProvider {
  readonly #user: UserInfo;

  constructor(opts: { user?: UserInfo } = {}) {
    this.#user = structuredClone(opts.user ?? ADMIN_USER);
  }

  currentUser(): UserInfo {
    return structuredClone(this.#user);
  }
}
