/**
 * kube's RBAC reconciliation at start (pkg/registry/rbac/reconciliation, as the rbac/bootstrap-roles
 * post-start hook runs it: union mode, nothing removed). An object annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone. Otherwise missing labels and
 * annotations are added (existing values win), missing rules come back (broken down into single
 * verb/resource rules, as kube appends them), missing aggregation selectors and binding subjects are
 * appended, and an aggregationRule the policy does not have is removed.
 */
import { jsonEqual } from '../../../json-value';
import type { KubeObject } from '../../../kind';
import { arrAt, clone, isObj, objAt, stringMap } from '../../util';
import { covers } from '../rule-matching';
import { AUTOUPDATE_ANNOTATION } from './objects';

function isProtected(existing: KubeObject): boolean {
  return stringMap(existing.metadata?.annotations)[AUTOUPDATE_ANNOTATION] === 'false';
}

/** labels and annotations: the policy's keys added, the existing values kept */
function mergeMetadata(result: KubeObject, wanted: KubeObject): void {
  const meta = (result.metadata ??= {});
  meta.labels = { ...stringMap(wanted.metadata?.labels), ...stringMap(meta.labels) };
  meta.annotations = { ...stringMap(wanted.metadata?.annotations), ...stringMap(meta.annotations) };
}

/** the items of `wanted` that `have` lacks (deep equality) */
function missing(have: unknown[], wanted: unknown[]): unknown[] {
  return wanted.filter((w) => !have.some((h) => jsonEqual(h, w)));
}

/** the Role or ClusterRole to store over `existing`, or undefined when it stays as it is */
export function reconcileRole(existing: KubeObject, wanted: KubeObject): KubeObject | undefined {
  if (isProtected(existing)) return undefined;
  const result = clone(existing);
  mergeMetadata(result, wanted);
  const wantedAggregation = objAt(wanted, 'aggregationRule');
  // an aggregated role's rules belong to the aggregation controller, so only plain roles get rules back
  if (!wantedAggregation) {
    const { uncovered } = covers(arrAt(existing, 'rules'), arrAt(wanted, 'rules'));
    if (uncovered.length > 0) result.rules = [...arrAt(existing, 'rules'), ...uncovered];
    if (isObj(existing.aggregationRule)) delete result.aggregationRule;
  } else {
    const have = arrAt(existing.aggregationRule, 'clusterRoleSelectors');
    const add = missing(have, arrAt(wantedAggregation, 'clusterRoleSelectors'));
    if (add.length > 0 || !isObj(existing.aggregationRule)) result.aggregationRule = { clusterRoleSelectors: [...have, ...add] };
  }
  return jsonEqual(result, existing) ? undefined : result;
}

/**
 * the RoleBinding or ClusterRoleBinding to store over `existing`, or undefined. A binding whose
 * roleRef differs is left alone: kube deletes and recreates it, which a reconcile cannot do here
 * (roleRef is immutable), so the object stays as the user made it.
 */
export function reconcileBinding(existing: KubeObject, wanted: KubeObject): KubeObject | undefined {
  if (isProtected(existing)) return undefined;
  if (!jsonEqual(existing.roleRef, wanted.roleRef)) return undefined;
  const result = clone(existing);
  mergeMetadata(result, wanted);
  const have = arrAt(existing, 'subjects');
  const add = missing(have, arrAt(wanted, 'subjects'));
  if (add.length > 0) result.subjects = [...have, ...add];
  return jsonEqual(result, existing) ? undefined : result;
}
