/**
 * The audit policy (audit.k8s.io/v1 or v1beta1 Policy, --audit-policy-file): rules are tried in
 * order and the first that matches decides the level; a request no rule matches is not audited
 * (kube's policy checker). Omitted stages are the policy's plus the rule's.
 */
import fs from 'node:fs';
import yaml from 'js-yaml';
import type { Level, Stage } from './types';
import { levels, stages } from './types';

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: Level;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** what the policy is asked about: the request info and the (authenticated, not impersonated) caller */
export interface PolicyAttributes {
  user?: { name: string; groups: string[] };
  verb: string;
  resourceRequest: boolean;
  path?: string;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

export interface RuleDecision {
  level: Level;
  omitStages: Stage[];
  omitManagedFields: boolean;
}

export class PolicyError extends Error {}

const apiVersions = ['audit.k8s.io/v1', 'audit.k8s.io/v1beta1'];

function strings(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new PolicyError(`${field}: Invalid value: must be a list of strings`);
  return value as string[];
}

function stageList(value: unknown, field: string): Stage[] {
  const list = strings(value, field);
  list.forEach((s, i) => {
    if (!stages.includes(s as Stage)) {
      throw new PolicyError(`${field}[${i}]: Unsupported value: ${JSON.stringify(s)}: supported values: ${stages.map((x) => JSON.stringify(x)).join(', ')}`);
    }
  });
  return list as Stage[];
}

function parseRule(raw: unknown, at: string): PolicyRule {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new PolicyError(`${at}: Invalid value: must be an object`);
  const r = raw as Record<string, unknown>;
  if (r.level === undefined || r.level === '') throw new PolicyError(`${at}.level: Required value`);
  if (!levels.includes(r.level as Level)) {
    throw new PolicyError(`${at}.level: Unsupported value: ${JSON.stringify(r.level)}: supported values: ${levels.map((x) => JSON.stringify(x)).join(', ')}`);
  }
  const resources = (r.resources === undefined || r.resources === null ? [] : r.resources) as unknown;
  if (!Array.isArray(resources)) throw new PolicyError(`${at}.resources: Invalid value: must be a list`);
  const groups = resources.map((g, i): GroupResources => {
    const f = `${at}.resources[${i}]`;
    if (g === null || typeof g !== 'object') throw new PolicyError(`${f}: Invalid value: must be an object`);
    const gr = g as Record<string, unknown>;
    if (gr.group !== undefined && typeof gr.group !== 'string') throw new PolicyError(`${f}.group: Invalid value: must be a string`);
    const group = (gr.group as string | undefined) ?? '';
    const names = strings(gr.resourceNames, `${f}.resourceNames`);
    const res = strings(gr.resources, `${f}.resources`);
    res.forEach((x, j) => {
      // kube: "*" and "resource/*", "*/subresource" are the only wildcards
      if (x.includes('*') && x !== '*' && !x.startsWith('*/') && !x.endsWith('/*')) {
        throw new PolicyError(`${f}.resources[${j}]: Invalid value: ${JSON.stringify(x)}: wildcard only allowed as "*", "*/subresource" or "resource/*"`);
      }
    });
    if (names.length > 0 && res.length === 0) {
      throw new PolicyError(`${f}.resourceNames: Invalid value: resourceNames require resources`);
    }
    return { group, resources: res, resourceNames: names };
  });
  const namespaces = strings(r.namespaces, `${at}.namespaces`);
  const urls = strings(r.nonResourceURLs, `${at}.nonResourceURLs`);
  if (urls.length > 0 && (groups.length > 0 || namespaces.length > 0)) {
    throw new PolicyError(`${at}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`);
  }
  urls.forEach((u, i) => {
    if (u !== '*' && !u.startsWith('/')) throw new PolicyError(`${at}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(u)}: non-resource URL rules must begin with a '/' character`);
    if (u.slice(0, -1).includes('*')) throw new PolicyError(`${at}.nonResourceURLs[${i}]: Invalid value: ${JSON.stringify(u)}: non-resource URL wildcards ('*') must be the final character of the rule`);
  });
  if (r.omitManagedFields !== undefined && typeof r.omitManagedFields !== 'boolean') throw new PolicyError(`${at}.omitManagedFields: Invalid value: must be a boolean`);
  return {
    level: r.level as Level,
    users: strings(r.users, `${at}.users`),
    userGroups: strings(r.userGroups, `${at}.userGroups`),
    verbs: strings(r.verbs, `${at}.verbs`),
    resources: groups,
    namespaces,
    nonResourceURLs: urls,
    omitStages: stageList(r.omitStages, `${at}.omitStages`),
    omitManagedFields: r.omitManagedFields as boolean | undefined,
  };
}

/** parse a policy document; throws PolicyError naming the field (rules[2].level) */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new PolicyError(`failed decoding: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new PolicyError('failed decoding: not a Policy object');
  const d = doc as Record<string, unknown>;
  if (d.kind !== 'Policy' || !apiVersions.includes(d.apiVersion as string)) {
    throw new PolicyError(`failed decoding: expected kind Policy in ${apiVersions.join(' or ')}, got ${String(d.kind)} in ${String(d.apiVersion)}`);
  }
  if (d.rules !== undefined && d.rules !== null && !Array.isArray(d.rules)) throw new PolicyError('rules: Invalid value: must be a list');
  const rules = ((d.rules as unknown[] | undefined) ?? []).map((r, i) => parseRule(r, `rules[${i}]`));
  if (rules.length === 0) throw new PolicyError('loaded illegal policy with 0 rules');
  if (d.omitManagedFields !== undefined && typeof d.omitManagedFields !== 'boolean') throw new PolicyError('omitManagedFields: Invalid value: must be a boolean');
  return { rules, omitStages: stageList(d.omitStages, 'omitStages'), omitManagedFields: d.omitManagedFields === true };
}

/** read --audit-policy-file; any problem is one line naming the file */
export function loadPolicyFile(file: string): Policy {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`failed to read audit policy file ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    if (err instanceof PolicyError) throw new Error(`audit policy file ${JSON.stringify(file)}: ${err.message}`);
    throw err;
  }
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.slice(0, -1));
}

function matchesResource(rule: PolicyRule, a: PolicyAttributes): boolean {
  if (rule.nonResourceURLs.length > 0) return false;
  // cluster-scoped requests have the namespace "", which a rule names as ""
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(a.namespace ?? '')) return false;
  if (rule.resources.length === 0) return true;
  const resource = a.resource ?? '';
  const sub = a.subresource ?? '';
  const combined = sub ? `${resource}/${sub}` : resource;
  return rule.resources.some((gr) => {
    if (gr.group !== (a.apiGroup ?? '')) return false;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(a.name ?? '')) return false;
    return gr.resources.some(
      (r) => r === '*' || r === combined || (sub !== '' && r.startsWith('*/') && r.slice(2) === sub) || (r.endsWith('/*') && r.slice(0, -2) === resource),
    );
  });
}

function matchesNonResource(rule: PolicyRule, a: PolicyAttributes): boolean {
  if (rule.resources.length > 0 || rule.namespaces.length > 0) return false;
  return rule.nonResourceURLs.some((spec) => pathMatches(a.path ?? '', spec));
}

export function ruleMatches(rule: PolicyRule, a: PolicyAttributes): boolean {
  if (rule.users.length > 0 && !(a.user && rule.users.includes(a.user.name))) return false;
  if (rule.userGroups.length > 0 && !(a.user && a.user.groups.some((g) => rule.userGroups.includes(g)))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(a.verb)) return false;
  if (rule.resources.length > 0 || rule.namespaces.length > 0 || rule.nonResourceURLs.length > 0) {
    return a.resourceRequest ? matchesResource(rule, a) : matchesNonResource(rule, a);
  }
  return true;
}

/** the first matching rule's level and stages to omit; None when no rule matches */
export function evaluatePolicy(policy: Policy, a: PolicyAttributes): RuleDecision {
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, a)) continue;
    return {
      level: rule.level,
      omitStages: [...new Set([...policy.omitStages, ...rule.omitStages])],
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
    };
  }
  return { level: 'None', omitStages: [...policy.omitStages], omitManagedFields: policy.omitManagedFields };
}
