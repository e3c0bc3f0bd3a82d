/**
 * The fixed authorizers: kube's AlwaysDeny mode, and the privileged-groups authorizer kube puts in
 * front of every chain but AlwaysAllow, so members of system:masters may always do everything.
 */
import type { AuthorizationAttributes, Authorizer, Decision, RulesResult } from '../../api/reviews/authorizer';

export { AlwaysAllowAuthorizer } from '../../api/reviews/authorizer';

/** kube's AlwaysDeny: no opinion on anything, with the reason "Everything is forbidden." */
export class AlwaysDenyAuthorizer implements Authorizer {
  async authorize(): Promise<Decision> {
    return { allowed: false, reason: 'Everything is forbidden.' };
  }

  async rulesFor(): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}

/** kube's privilegedGroupAuthorizer: allows users in one of `groups`, no opinion otherwise */
export class PrivilegedGroupsAuthorizer implements Authorizer {
  readonly #groups: readonly string[];

  constructor(groups: readonly string[]) {
    this.#groups = [...groups];
  }

  async authorize(attributes: AuthorizationAttributes): Promise<Decision> {
    const groups = attributes.user?.groups ?? [];
    return { allowed: groups.some((g) => this.#groups.includes(g)) };
  }

  /** kube keeps this authorizer out of the rule resolvers: it adds no rules and leaves the answer complete */
  async rulesFor(): Promise<RulesResult> {
    return { resourceRules: [], nonResourceRules: [], incomplete: false };
  }
}
