/**
 * kube's FlowSchema matching (apiserver/pkg/util/flowcontrol, rule.go): a FlowSchema matches a
 * request when one of its rules does; a rule matches when one of its subjects matches the user and
 * one of its resource rules (resource requests) or non-resource rules (other paths) matches the
 * request. `*` is the wildcard everywhere kube allows it.
 */
import type { UserInfo } from '../api/reviews/authorizer';
import type { RequestInfo } from '../http/request-info';

/** the FlowSchema spec fields matching reads (every served version stores the same shape) */
export interface FlowSchemaSpec {
  priorityLevelConfiguration?: { name?: string };
  matchingPrecedence?: number;
  distinguisherMethod?: { type?: string };
  rules?: PolicyRulesWithSubjects[];
}

export interface Subject {
  kind?: string;
  user?: { name?: string };
  group?: { name?: string };
  serviceAccount?: { namespace?: string; name?: string };
}

export interface ResourcePolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs?: string[];
  nonResourceURLs?: string[];
}

export interface PolicyRulesWithSubjects {
  subjects?: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

const SA_PREFIX = 'system:serviceaccount:';

function matchesSubject(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User': {
      const name = subject.user?.name;
      return name === '*' || name === user.name;
    }
    case 'Group': {
      const name = subject.group?.name;
      return name === '*' || (name !== undefined && user.groups.includes(name));
    }
    case 'ServiceAccount': {
      const sa = subject.serviceAccount;
      if (!sa?.namespace || !sa.name) return false;
      // name `*` is every service account of the namespace
      if (sa.name === '*') return user.name.startsWith(`${SA_PREFIX}${sa.namespace}:`);
      return user.name === `${SA_PREFIX}${sa.namespace}:${sa.name}`;
    }
    default:
      return false;
  }
}

const hasOrStar = (list: string[] | undefined, value: string): boolean => !!list && (list.includes('*') || list.includes(value));

function matchesResourceRule(rule: ResourcePolicyRule, info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  if (!hasOrStar(rule.verbs, info.verb) || !hasOrStar(rule.apiGroups, info.group)) return false;
  // a subresource is named `resource/subresource`
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!hasOrStar(rule.resources, resource)) return false;
  if (!info.namespace) return rule.clusterScope === true;
  return hasOrStar(rule.namespaces, info.namespace);
}

/** kube's URL patterns: `*`, an exact path, or a prefix: `/healthz` and `/healthz/*` both cover `/healthz/...` */
function matchesUrl(patterns: string[] | undefined, path: string): boolean {
  for (const pattern of patterns ?? []) {
    if (pattern === '*' || pattern === path) return true;
    let prefix = pattern.endsWith('*') ? pattern.slice(0, -1) : pattern;
    if (!prefix.endsWith('/')) prefix += '/';
    if (path.startsWith(prefix)) return true;
  }
  return false;
}

function matchesNonResourceRule(rule: NonResourcePolicyRule, info: RequestInfo): boolean {
  if (info.isResourceRequest) return false;
  return hasOrStar(rule.verbs, info.verb) && matchesUrl(rule.nonResourceURLs, info.path);
}

export function matchesRule(rule: PolicyRulesWithSubjects, user: UserInfo, info: RequestInfo): boolean {
  if (!(rule.subjects ?? []).some((s) => matchesSubject(s, user))) return false;
  return (rule.resourceRules ?? []).some((r) => matchesResourceRule(r, info)) || (rule.nonResourceRules ?? []).some((r) => matchesNonResourceRule(r, info));
}

export function matchesFlowSchema(spec: FlowSchemaSpec, user: UserInfo, info: RequestInfo): boolean {
  return (spec.rules ?? []).some((rule) => matchesRule(rule, user, info));
}

/** the flow distinguisher: the user name (ByUser), the namespace (ByNamespace), or nothing */
export function flowDistinguisher(spec: FlowSchemaSpec, user: UserInfo, info: RequestInfo): string {
  switch (spec.distinguisherMethod?.type) {
    case 'ByUser':
      return user.name;
    case 'ByNamespace':
      return info.isResourceRequest ? info.namespace ?? '' : '';
    default:
      return '';
  }
}
