/**
 * kube's RBAC authorizer: the rules of the ClusterRoleBindings that name the user, then of the
 * RoleBindings in the request's namespace, are visited until one allows the request. Allowed
 * answers name the binding (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group
 * "z"`); otherwise RBAC has no opinion, with the roles it could not find as the reason.
 */
import type { KubeObject } from '../../api/kind';
import type { AuthorizationAttributes, Authorizer, Decision, RulesResult, UserInfo } from '../../api/reviews/authorizer';
import { asRule } from '../../api/kinds/rbac/policy-rule';
import { ruleAllows } from '../../api/kinds/rbac/rule-matching';
import { subjectMatches } from '../../api/kinds/rbac/subjects';
import { isObj, str } from '../../api/kinds/util';
import type { RbacObjects } from './rbac-index';

/** one binding's grant: where the rules come from, for reasons */
interface Grant {
  source: string;
  rules: unknown[];
}

function describeSubject(subject: Record<string, unknown>, bindingNamespace: string): string {
  const kind = str(subject.kind);
  const name = str(subject.name);
  if (kind === 'ServiceAccount') return `${kind} "${name}/${str(subject.namespace) || bindingNamespace}"`;
  return `${kind} "${name}"`;
}

const rulesOf = (role: KubeObject): unknown[] => (Array.isArray(role.rules) ? role.rules : []);

/** kube's DefaultRuleResolver over an RbacObjects source */
export class RbacRuleResolver {
  readonly #objects: RbacObjects;

  constructor(objects: RbacObjects) {
    this.#objects = objects;
  }

  /** the rules a role reference names (kube's GetRoleReferenceRules); throws when the role is missing */
  roleReferenceRules(roleRef: unknown, bindingNamespace: string): unknown[] {
    const ref = isObj(roleRef) ? roleRef : {};
    const name = str(ref.name);
    if (ref.kind === 'ClusterRole') {
      const role = this.#objects.clusterRole(name);
      if (!role) throw new Error(`clusterrole.rbac.authorization.k8s.io "${name}" not found`);
      return rulesOf(role);
    }
    if (ref.kind === 'Role') {
      const role = this.#objects.role(bindingNamespace, name);
      if (!role) throw new Error(`role.rbac.authorization.k8s.io "${name}" not found`);
      return rulesOf(role);
    }
    throw new Error(`unsupported role reference kind: "${str(ref.kind)}"`);
  }

  /**
   * every grant that applies to the user in `namespace` ('' = cluster-wide grants only), cluster
   * role bindings first; `visit` returns false to stop. Missing roles are collected as errors.
   */
  visit(user: UserInfo, namespace: string, visit: (grant: Grant) => boolean): string[] {
    const problems: string[] = [];
    const bindings: Array<[KubeObject, string, string]> = this.#objects.clusterRoleBindings().map((b) => [b, 'ClusterRoleBinding', '']);
    if (namespace !== '') for (const b of this.#objects.roleBindings(namespace)) bindings.push([b, 'RoleBinding', namespace]);
    for (const [binding, kind, ns] of bindings) {
      const subjects = Array.isArray(binding.subjects) ? binding.subjects : [];
      const subject = subjects.find((s) => subjectMatches(s, user, ns));
      if (!isObj(subject)) continue;
      let rules: unknown[];
      try {
        rules = this.roleReferenceRules(binding.roleRef, ns);
      } catch (err) {
        problems.push((err as Error).message);
        continue;
      }
      const ref = isObj(binding.roleRef) ? binding.roleRef : {};
      const bindingName = kind === 'RoleBinding' ? `${str(binding.metadata?.name)}/${ns}` : str(binding.metadata?.name);
      const source = `${kind} "${bindingName}" of ${str(ref.kind)} "${str(ref.name)}" to ${describeSubject(subject, ns)}`;
      if (!visit({ source, rules })) break;
    }
    return problems;
  }

  /** all rules of the user in the namespace (cluster-wide rules included), and the problems met */
  rulesFor(user: UserInfo, namespace: string): { rules: unknown[]; problems: string[] } {
    const rules: unknown[] = [];
    const problems = this.visit(user, namespace, (g) => {
      rules.push(...g.rules);
      return true;
    });
    return { rules, problems };
  }
}

export class RbacAuthorizer implements Authorizer {
  readonly #resolver: RbacRuleResolver;
  readonly #ready: Promise<void> | undefined;

  /** `ready`: resolves when the objects are loaded (the informers' first list) */
  constructor(opts: { objects: RbacObjects; ready?: Promise<void> }) {
    this.#resolver = new RbacRuleResolver(opts.objects);
    this.#ready = opts.ready;
  }

  get resolver(): RbacRuleResolver {
    return this.#resolver;
  }

  async authorize(attributes: AuthorizationAttributes): Promise<Decision> {
    await this.#ready;
    const user = attributes.user;
    if (!user) return { allowed: false };
    const request = {
      verb: attributes.verb,
      resourceRequest: attributes.resourceRequest,
      apiGroup: attributes.apiGroup,
      resource: attributes.resource,
      subresource: attributes.subresource,
      name: attributes.name,
      path: attributes.path,
    };
    let allowedBy: string | undefined;
    const problems = this.#resolver.visit(user, attributes.namespace ?? '', (grant) => {
      if (grant.rules.some((r) => ruleAllows(r, request))) allowedBy = grant.source;
      return allowedBy === undefined;
    });
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${allowedBy}` };
    return problems.length > 0 ? { allowed: false, reason: `RBAC: ${aggregate(problems)}` } : { allowed: false };
  }

  async rulesFor(user: UserInfo | undefined, namespace: string): Promise<RulesResult> {
    await this.#ready;
    const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    if (!user) return out;
    const { rules, problems } = this.#resolver.rulesFor(user, namespace);
    for (const raw of rules) {
      const r = asRule(raw);
      if (r.nonResourceURLs.length > 0) {
        out.nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
        continue;
      }
      const resourceRule: RulesResult['resourceRules'][number] = { verbs: r.verbs, apiGroups: r.apiGroups, resources: r.resources };
      if (r.resourceNames.length > 0) resourceRule.resourceNames = r.resourceNames;
      out.resourceRules.push(resourceRule);
    }
    if (problems.length > 0) {
      out.incomplete = true;
      out.evaluationError = aggregate(problems);
    }
    return out;
  }
}

/** kube's utilerrors aggregate: one error as itself, several in brackets */
function aggregate(messages: string[]): string {
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}
