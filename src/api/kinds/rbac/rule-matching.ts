/**
 * What a PolicyRule allows and whether one set of rules covers another, as kube's RBAC authorizer
 * (pkg/apis/rbac/v1 evaluation helpers) and escalation check (pkg/registry/rbac/validation Covers)
 * decide it. Bootstrap reconciliation uses `covers` today; the RBAC authorizer and the escalation
 * checks of the security work are meant to use these same functions.
 */
import type { PolicyRule } from './policy-rule';
import { asRule } from './policy-rule';

/** the request a rule is matched against (the subset of the authorizer's attributes RBAC reads) */
export interface RuleRequest {
  verb: string;
  resourceRequest: boolean;
  apiGroup?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  path?: string;
}

function verbMatches(r: Required<PolicyRule>, verb: string): boolean {
  return r.verbs.some((v) => v === '*' || v === verb);
}

function groupMatches(r: Required<PolicyRule>, group: string): boolean {
  return r.apiGroups.some((g) => g === '*' || g === group);
}

/** a star, the exact resource or resource/subresource, or a star with the same subresource */
function resourceMatches(r: Required<PolicyRule>, combined: string, subresource: string): boolean {
  return r.resources.some((res) => {
    if (res === '*' || res === combined) return true;
    return subresource !== '' && res === `*/${subresource}`;
  });
}

function nameMatches(r: Required<PolicyRule>, name: string): boolean {
  return r.resourceNames.length === 0 || r.resourceNames.includes(name);
}

/** `*`, the exact path, or a prefix ending in `*` */
export function nonResourceURLMatches(pattern: string, path: string): boolean {
  if (pattern === '*' || pattern === path) return true;
  return pattern.endsWith('*') && path.startsWith(pattern.replace(/\*+$/, ''));
}

/** kube's RuleAllows: does the rule grant this request? */
export function ruleAllows(rule: unknown, req: RuleRequest): boolean {
  const r = asRule(rule);
  if (!verbMatches(r, req.verb)) return false;
  if (!req.resourceRequest) return r.nonResourceURLs.some((u) => nonResourceURLMatches(u, req.path ?? ''));
  const subresource = req.subresource ?? '';
  const combined = subresource ? `${req.resource ?? ''}/${subresource}` : (req.resource ?? '');
  return groupMatches(r, req.apiGroup ?? '') && resourceMatches(r, combined, subresource) && nameMatches(r, req.name ?? '');
}

/** kube's BreakdownRule: one rule per (group, resource, verb[, name]) and per (url, verb) */
export function breakdownRule(rule: unknown): PolicyRule[] {
  const r = asRule(rule);
  const out: PolicyRule[] = [];
  for (const group of r.apiGroups) {
    for (const resource of r.resources) {
      for (const verb of r.verbs) {
        if (r.resourceNames.length === 0) out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
        else for (const name of r.resourceNames) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
      }
    }
  }
  for (const url of r.nonResourceURLs) for (const verb of r.verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  return out;
}

const hasAll = (set: string[], wanted: string[]): boolean => wanted.every((w) => set.includes(w));

function resourcesCoverAll(owner: string[], wanted: string[]): boolean {
  if (owner.includes('*') || hasAll(owner, wanted)) return true;
  return wanted.every((res) => {
    if (owner.includes(res)) return true;
    const slash = res.indexOf('/');
    return slash >= 0 && owner.includes(`*/${res.slice(slash + 1)}`);
  });
}

/** kube's ruleCovers: does the owner rule grant everything the (broken down) sub rule grants? */
function ruleCovers(ownerRule: unknown, subRule: unknown): boolean {
  const o = asRule(ownerRule);
  const s = asRule(subRule);
  const verbs = o.verbs.includes('*') || hasAll(o.verbs, s.verbs);
  const groups = o.apiGroups.includes('*') || hasAll(o.apiGroups, s.apiGroups);
  const resources = resourcesCoverAll(o.resources, s.resources);
  const urls = s.nonResourceURLs.every((path) => o.nonResourceURLs.some((owner) => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')))));
  const names = o.resourceNames.length === 0 || (s.resourceNames.length > 0 && hasAll(o.resourceNames, s.resourceNames));
  return verbs && groups && resources && urls && names;
}

/**
 * kube's Covers: whether `owner` grants everything `servant` does; `uncovered` lists the broken
 * down servant rules that no owner rule covers (what RBAC reconciliation adds back).
 */
export function covers(owner: unknown[], servant: unknown[]): { covered: boolean; uncovered: PolicyRule[] } {
  const uncovered = servant.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
  return { covered: uncovered.length === 0, uncovered };
}
