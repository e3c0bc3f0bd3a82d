/**
 * kube's escalation prevention for RBAC (pkg/registry/rbac/{role,binding}/policybased): a caller may create or
 * change a Role or ClusterRole only with rules it already holds, and bind a role only when it may
 * `bind` that role or holds all its rules, unless it is in system:masters or may `escalate` the
 * role. Built as a registry wrapper over create, update and patch of the four RBAC kinds; updates
 * and patches are first run as a dry run to see the object they would store.
 */
import { withVerbs } from '../api/registry/with-verbs';
import type { KubeObject } from '../api/kind';
import { errors } from '../api/errors';
import type { Registry, Target, WriteOptions, WriteResult } from '../api/registry/types';
import type { Authorizer, UserInfo } from '../api/reviews/authorizer';
import { asRule } from '../api/kinds/rbac/policy-rule';
import type { PolicyRule } from '../api/kinds/rbac/policy-rule';
import { covers } from '../api/kinds/rbac/rule-matching';
import { RBAC_GROUP } from '../api/kinds/rbac/subjects';
import { isObj, str } from '../api/kinds/util';
import type { RbacRuleResolver } from './authz/rbac';
import { MASTERS_GROUP } from './user';

export interface EscalationCheckOptions {
  authorizer: Authorizer;
  /** the rules users hold (RBAC's resolver, whatever the authorization mode) */
  resolver: RbacRuleResolver;
}

const ROLE_KINDS = new Set(['Role', 'ClusterRole']);
const BINDING_KINDS = new Set(['RoleBinding', 'ClusterRoleBinding']);

/** kube's CompactRules: one rule per (group, resource, names) with every verb it lists */
export function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const raw of rules) {
    const r = asRule(raw);
    if (r.apiGroups.length === 1 && r.resources.length === 1 && r.nonResourceURLs.length === 0) {
      const key = JSON.stringify([r.apiGroups[0], r.resources[0], r.resourceNames]);
      const seen = simple.get(key);
      if (seen) seen.verbs.push(...r.verbs.filter((v) => !seen.verbs.includes(v)));
      else {
        const copy: PolicyRule = { verbs: [...r.verbs], apiGroups: [...r.apiGroups], resources: [...r.resources] };
        if (r.resourceNames.length > 0) copy.resourceNames = [...r.resourceNames];
        simple.set(key, copy);
        out.push(copy);
      }
    } else out.push(raw);
  }
  return out;
}

const goQuoted = (list: string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** kube's CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}` */
export function compactString(rule: PolicyRule): string {
  const r = asRule(rule);
  const parts: string[] = [];
  if (r.apiGroups.length > 0) parts.push(`APIGroups:${goQuoted(r.apiGroups)}`);
  if (r.resources.length > 0) parts.push(`Resources:${goQuoted(r.resources)}`);
  if (r.resourceNames.length > 0) parts.push(`ResourceNames:${goQuoted(r.resourceNames)}`);
  if (r.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${goQuoted(r.nonResourceURLs)}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goQuoted(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}

class EscalationChecks {
  readonly #opts: EscalationCheckOptions;

  constructor(opts: EscalationCheckOptions) {
    this.#opts = opts;
  }

  /** throws 403 when `user` may not store `obj` (the previous version `old`, if any) */
  async check(target: Target, obj: KubeObject, old: KubeObject | undefined, user: UserInfo | undefined): Promise<void> {
    // without authentication there is no caller to hold rules; system:masters may escalate
    if (!user || user.groups.includes(MASTERS_GROUP)) return;
    const { kind } = target;
    const namespace = kind.namespaced ? (target.namespace ?? str(obj.metadata?.namespace)) : '';
    const name = str(obj.metadata?.name) || (target.name ?? '');
    const resource = { group: kind.group, resource: kind.resource };
    if (ROLE_KINDS.has(kind.kind)) {
      const rules = Array.isArray(obj.rules) ? obj.rules : [];
      // an update that keeps the rules is no escalation (kube compares them before checking)
      if (old && JSON.stringify(old.rules ?? []) === JSON.stringify(rules)) return;
      if (await this.#allowed(user, 'escalate', kind.resource, namespace, name)) return;
      const missing = this.#missing(user, namespace, rules);
      if (missing) throw errors.forbidden(resource, name, missing);
      return;
    }
    const roleRef = isObj(obj.roleRef) ? obj.roleRef : {};
    if (old && JSON.stringify(old.roleRef ?? {}) === JSON.stringify(roleRef)) return;
    const refResource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
    if (await this.#allowed(user, 'bind', refResource, namespace, str(roleRef.name))) return;
    let rules: unknown[];
    try {
      rules = this.#opts.resolver.roleReferenceRules(roleRef, namespace);
    } catch (err) {
      throw errors.forbidden(resource, name, (err as Error).message);
    }
    const missing = this.#missing(user, namespace, rules);
    if (missing) throw errors.forbidden(resource, name, missing);
  }

  async #allowed(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Promise<boolean> {
    const attrs = { user, verb, resourceRequest: true, apiGroup: RBAC_GROUP, resource, name, ...(namespace ? { namespace } : {}) };
    try {
      return (await this.#opts.authorizer.authorize(attrs)).allowed;
    } catch {
      return false;
    }
  }

  /** kube's ConfirmNoEscalation: the message naming what the user lacks, or undefined */
  #missing(user: UserInfo, namespace: string, rules: unknown[]): string | undefined {
    const held = this.#opts.resolver.rulesFor(user, namespace);
    const { covered, uncovered } = covers(held.rules, rules);
    if (covered) return undefined;
    const lines = [...new Set(compactRules(uncovered).map(compactString))].sort();
    let msg = `user "${user.name}" (groups=${goQuoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
    if (held.problems.length > 0) msg += `; resolution errors: [${held.problems.join(' ')}]`;
    return msg;
  }
}

const isRbacKind = (t: Target): boolean => t.kind.group === RBAC_GROUP && (ROLE_KINDS.has(t.kind.kind) || BINDING_KINDS.has(t.kind.kind));

/** wrap a registry so RBAC writes are checked for escalation; everything else passes through */
export function withRbacEscalationChecks<R extends Registry>(registry: R, opts: EscalationCheckOptions): R {
  const checks = new EscalationChecks(opts);
  const current = async (t: Target): Promise<KubeObject | undefined> => {
    try {
      return await registry.get(t, {});
    } catch {
      return undefined;
    }
  };
  /** dry-run the write, check the object it would store, then make the real write */
  const checked = async (t: Target, options: WriteOptions, write: (o: WriteOptions) => Promise<WriteResult>): Promise<WriteResult> => {
    if (!isRbacKind(t) || !options.user || options.user.groups.includes(MASTERS_GROUP)) return write(options);
    const old = t.name ? await current(t) : undefined;
    const preview = options.dryRun ? await write(options) : await write({ ...options, dryRun: true });
    await checks.check(t, preview.object, preview.created ? undefined : old, options.user);
    return options.dryRun ? preview : write(options);
  };
  const verbs: Partial<Registry> = {
    create: (t, body, o) => checked(t, o, (opts) => registry.create(t, body, opts)),
    update: (t, body, o) => checked(t, o, (opts) => registry.update(t, body, opts)),
    patch: (t, type, body, o) => checked(t, o, (opts) => registry.patch(t, type, body, { ...o, ...opts })),
  };
  // everything else (bootstrap, close, idle, ...) is the wrapped registry's own
  return withVerbs(registry, verbs);
}
