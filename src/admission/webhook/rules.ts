/**
 * kube's rule matcher (admission/plugin/webhook/predicates/rules): a webhook rule matches a request
 * when its scope, operation, API group, API version and resource all do. Resources are written
 * `resource` or `resource/subresource`; `*` alone matches every main resource (no subresource),
 * `*\/*` everything, `pods/*` pods and all its subresources (kube compares the part after the
 * slash with the request's subresource, '' included) and `*\/status` the status of everything.
 */
import { arrAt, str, type Obj } from '../../api/kinds/util';

/** the request as rules see it */
export interface RuleRequest {
  operation: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** '' for cluster-scoped objects */
  namespace: string;
}

function anyOf(values: string[], value: string): boolean {
  return values.some((v) => v === '*' || v === value);
}

function scopeMatches(scope: string, req: RuleRequest): boolean {
  // namespaces are cluster-scoped objects, though a request for one names a namespace
  const isNamespace = req.group === '' && req.resource === 'namespaces';
  if (scope === 'Cluster') return req.namespace === '' || isNamespace;
  if (scope === 'Namespaced') return req.namespace !== '' && !isNamespace;
  return true;
}

function resourceMatches(resources: string[], req: RuleRequest): boolean {
  return resources.some((r) => {
    const slash = r.indexOf('/');
    const res = slash < 0 ? r : r.slice(0, slash);
    const sub = slash < 0 ? '' : r.slice(slash + 1);
    return (res === '*' || res === req.resource) && (sub === '*' || sub === req.subresource);
  });
}

export function ruleMatches(rule: Obj, req: RuleRequest): boolean {
  const strings = (key: string): string[] => arrAt(rule, key).map(str);
  return (
    scopeMatches(str(rule.scope) || '*', req) &&
    anyOf(strings('operations'), req.operation) &&
    anyOf(strings('apiGroups'), req.group) &&
    anyOf(strings('apiVersions'), req.version) &&
    resourceMatches(strings('resources'), req)
  );
}

/** true when any of the webhook's rules matches */
export function rulesMatch(hook: Obj, req: RuleRequest): boolean {
  return arrAt(hook, 'rules').some((r) => typeof r === 'object' && r !== null && ruleMatches(r as Obj, req));
}
