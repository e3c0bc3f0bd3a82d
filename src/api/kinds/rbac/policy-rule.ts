/**
 * PolicyRule: the rule builder bootstrap policy is written with, and kube's ValidatePolicyRule
 * (pkg/apis/rbac/validation). Builders keep each list sorted and free of duplicates, as kube's
 * rule builder does with string sets, so the bootstrap roles list their verbs and resources in
 * the order kube-apiserver stores them.
 */
import type { StatusCause } from '../../errors';
import { invalid, required } from '../../validation/field-errors';
import type { Obj } from '../util';

/** rbac.authorization.k8s.io PolicyRule; absent lists are left out, as Go's omitempty does */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const sortedSet = (values: string[]): string[] => [...new Set(values)].sort();

/** a rule under construction: `rule('get', 'list').groups('').resources('pods').build()` */
export class RuleBuilder {
  readonly #rule: PolicyRule;

  constructor(verbs: string[]) {
    this.#rule = { verbs: sortedSet(verbs) };
  }

  groups(...groups: string[]): this {
    this.#rule.apiGroups = sortedSet([...(this.#rule.apiGroups ?? []), ...groups]);
    return this;
  }

  resources(...resources: string[]): this {
    this.#rule.resources = sortedSet([...(this.#rule.resources ?? []), ...resources]);
    return this;
  }

  names(...names: string[]): this {
    this.#rule.resourceNames = sortedSet([...(this.#rule.resourceNames ?? []), ...names]);
    return this;
  }

  urls(...urls: string[]): this {
    this.#rule.nonResourceURLs = sortedSet([...(this.#rule.nonResourceURLs ?? []), ...urls]);
    return this;
  }

  /** the rule, in the field order kube serializes (verbs, apiGroups, resources, resourceNames, nonResourceURLs) */
  build(): PolicyRule {
    const r = this.#rule;
    const out: PolicyRule = { verbs: [...r.verbs] };
    if (r.apiGroups) out.apiGroups = [...r.apiGroups];
    if (r.resources) out.resources = [...r.resources];
    if (r.resourceNames) out.resourceNames = [...r.resourceNames];
    if (r.nonResourceURLs) out.nonResourceURLs = [...r.nonResourceURLs];
    return out;
  }
}

export function rule(...verbs: string[]): RuleBuilder {
  return new RuleBuilder(verbs);
}

/** the string list at rule[key] ([] when absent or malformed) */
export function ruleList(r: unknown, key: keyof PolicyRule): string[] {
  if (typeof r !== 'object' || r === null) return [];
  const v = (r as Obj)[key];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** a rule read from an object of unknown shape, with every list present */
export function asRule(r: unknown): Required<PolicyRule> {
  return {
    verbs: ruleList(r, 'verbs'),
    apiGroups: ruleList(r, 'apiGroups'),
    resources: ruleList(r, 'resources'),
    resourceNames: ruleList(r, 'resourceNames'),
    nonResourceURLs: ruleList(r, 'nonResourceURLs'),
  };
}

/**
 * kube's ValidatePolicyRule: verbs are required; a rule names either non-resource URLs (cluster
 * roles only, never with groups, resources or names) or API groups and resources.
 */
export function validatePolicyRule(value: unknown, namespaced: boolean, field: string): StatusCause[] {
  const r = asRule(value);
  const causes: StatusCause[] = [];
  if (r.verbs.length === 0) causes.push(required(`${field}.verbs`, 'verbs must contain at least one value'));
  if (r.nonResourceURLs.length > 0) {
    if (namespaced) causes.push(invalid(`${field}.nonResourceURLs`, r.nonResourceURLs, 'namespaced rules cannot apply to non-resource URLs'));
    if (r.apiGroups.length > 0 || r.resources.length > 0 || r.resourceNames.length > 0) {
      causes.push(invalid(`${field}.nonResourceURLs`, r.nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return causes;
  }
  if (r.apiGroups.length === 0) causes.push(required(`${field}.apiGroups`, 'resource rules must supply at least one api group'));
  if (r.resources.length === 0) causes.push(required(`${field}.resources`, 'resource rules must supply at least one resource'));
  return causes;
}
