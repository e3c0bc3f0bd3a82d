/**
 * The authorizer seam: what a request (or an access review) asks, and the decision. Shaped after
 * kube's authorizer.Attributes / Decision so the security work can plug RBAC or a webhook in later;
 * until then the server runs kube's `--authorization-mode=AlwaysAllow`.
 */

/** the user a decision is about (kube's user.Info) */
export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** what is asked: a verb on a resource, or a verb on a non-resource path (kube's AttributesRecord) */
export interface AuthorizationAttributes {
  /** undefined when the caller's identity is not known to the asker (see withAccessReviews) */
  user?: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, ... or `*`; lower-case HTTP verbs for paths */
  verb: string;
  /** true: the fields below describe a resource; false: `path` does */
  resourceRequest: boolean;
  namespace?: string;
  apiGroup?: string;
  /** `*` when the review left it empty, as kube fills it */
  apiVersion?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  /** raw label and field selectors of a list/watch, when the review gave them */
  labelSelector?: string;
  fieldSelector?: string;
  /** the non-resource path (`/healthz`) */
  path?: string;
}

export interface Decision {
  /** the action is allowed */
  allowed: boolean;
  /** the action is explicitly denied (false with allowed=false means "no opinion") */
  denied?: boolean;
  /** why, for humans */
  reason?: string;
  /** a problem met while deciding; the decision still stands */
  evaluationError?: string;
}

/** the rules a user has in a namespace (kube's authorizer.RuleResolver answer) */
export interface RulesResult {
  resourceRules: Array<{ verbs: string[]; apiGroups?: string[]; resources?: string[]; resourceNames?: string[] }>;
  nonResourceRules: Array<{ verbs: string[]; nonResourceURLs?: string[] }>;
  /** true when the list may miss rules (an authorizer that cannot enumerate them, e.g. a webhook) */
  incomplete: boolean;
  evaluationError?: string;
}

export interface Authorizer {
  authorize(attributes: AuthorizationAttributes): Promise<Decision>;
  /**
   * what `user` may do in `namespace` (SelfSubjectRulesReview); authorizers that cannot list their
   * rules leave it out and the review answers incomplete, as kube's webhook authorizer does
   */
  rulesFor?(user: UserInfo | undefined, namespace: string): Promise<RulesResult>;
}

/** kube's AlwaysAllow authorization mode: every request is allowed, with no reason given */
export class AlwaysAllowAuthorizer implements Authorizer {
  async authorize(): Promise<Decision> {
    return { allowed: true };
  }

  /** kube's alwaysAllowAuthorizer.RulesFor: `*` on every resource and every path, complete */
  async rulesFor(): Promise<RulesResult> {
    return {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    };
  }
}
