/**
 * kube's union authorizer: the authorizers of --authorization-mode are asked in order; the first
 * that allows or denies decides. When every one has no opinion the request is not allowed and
 * their reasons are joined, one a line. A rules query concatenates every authorizer's rules; the
 * answer is incomplete when any part is.
 */
import type { AuthorizationAttributes, Authorizer, Decision, RulesResult, UserInfo } from '../../api/reviews/authorizer';

export class UnionAuthorizer implements Authorizer {
  readonly #authorizers: readonly Authorizer[];

  constructor(authorizers: readonly Authorizer[]) {
    this.#authorizers = [...authorizers];
  }

  async authorize(attributes: AuthorizationAttributes): Promise<Decision> {
    const reasons: string[] = [];
    const problems: string[] = [];
    for (const authorizer of this.#authorizers) {
      let decision: Decision;
      try {
        decision = await authorizer.authorize(attributes);
      } catch (err) {
        decision = { allowed: false, evaluationError: err instanceof Error ? err.message : String(err) };
      }
      if (decision.allowed || decision.denied) return decision;
      if (decision.reason) reasons.push(decision.reason);
      if (decision.evaluationError) problems.push(decision.evaluationError);
    }
    const out: Decision = { allowed: false };
    if (reasons.length > 0) out.reason = reasons.join('\n');
    if (problems.length > 0) out.evaluationError = problems.join(', ');
    return out;
  }

  async rulesFor(user: UserInfo | undefined, namespace: string): Promise<RulesResult> {
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    const problems: string[] = [];
    for (const authorizer of this.#authorizers) {
      if (!authorizer.rulesFor) {
        out.incomplete = true;
        continue;
      }
      try {
        const rules = await authorizer.rulesFor(user, namespace);
        out.resourceRules.push(...rules.resourceRules);
        out.nonResourceRules.push(...rules.nonResourceRules);
        if (rules.incomplete) out.incomplete = true;
        if (rules.evaluationError) problems.push(rules.evaluationError);
      } catch (err) {
        out.incomplete = true;
        problems.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (problems.length > 0) out.evaluationError = problems.join(', ');
    return out;
  }
}
