/**
 * Cluster role aggregation, as kube's clusterrole-aggregation controller computes it: the rules of
 * an aggregated role are the rules of every other cluster role its selectors match, roles taken in
 * name order, each rule once. Bootstrap uses it to give admin, edit and view the rules kube ends up
 * with; the controller (a later piece of work) is meant to use it as well.
 */
import { jsonEqual } from '../../json-value';
import type { KubeObject } from '../../kind';
import { selectorMatches } from '../label-selector';
import { arrAt, isObj, objAt, str, stringMap } from '../util';

export function aggregatedRules(role: KubeObject, all: readonly KubeObject[]): unknown[] {
  const selectors = arrAt(objAt(role, 'aggregationRule'), 'clusterRoleSelectors');
  const self = str(role.metadata?.name);
  const selected = all
    .filter((other) => str(other.metadata?.name) !== self)
    .filter((other) => selectors.some((sel) => selectorMatches(sel, stringMap(other.metadata?.labels))))
    .sort((a, b) => (str(a.metadata?.name) < str(b.metadata?.name) ? -1 : 1));
  const rules: unknown[] = [];
  for (const other of selected) {
    for (const r of arrAt(other, 'rules')) if (isObj(r) && !rules.some((have) => jsonEqual(have, r))) rules.push(r);
  }
  return rules;
}

/**
 * fill the rules of every aggregated role in `roles` (in place), repeating until nothing changes,
 * since aggregated roles may select each other (admin selects edit, which selects view)
 */
export function fillAggregatedRules(roles: KubeObject[]): void {
  for (let pass = 0; pass < roles.length; pass++) {
    let changed = false;
    for (const role of roles) {
      if (!objAt(role, 'aggregationRule')) continue;
      const rules = aggregatedRules(role, roles);
      if (!jsonEqual(rules, role.rules ?? [])) {
        role.rules = rules;
        changed = true;
      }
    }
    if (!changed) return;
  }
}
