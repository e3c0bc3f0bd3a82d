/**
 * Role and ClusterRole in rbac.authorization.k8s.io v1, v1beta1 and v1alpha1 (stored as v1), with
 * kube's validation (ValidateRole, ValidateClusterRole: rules, aggregation selectors; names are
 * path segments) and table (Name, Created At).
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { required } from '../../validation/field-errors';
import { validateLabelSelector } from '../label-selector';
import { column, nameColumn } from '../table-format';
import { arrAt, isObj, str } from '../util';
import type { RbacVersion } from './conversion';
import { rbacKindBase } from './conversion';
import { validatePolicyRule } from './policy-rule';

function validateRules(obj: KubeObject, namespaced: boolean): StatusCause[] {
  return arrAt(obj, 'rules').flatMap((r, i) => validatePolicyRule(r, namespaced, `rules[${i}]`));
}

function validateAggregation(obj: KubeObject): StatusCause[] {
  const agg = obj.aggregationRule;
  if (agg === undefined || agg === null) return [];
  const selectors = arrAt(agg, 'clusterRoleSelectors');
  const causes: StatusCause[] = [];
  if (selectors.length === 0) {
    causes.push(required('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  }
  selectors.forEach((s, i) => causes.push(...validateLabelSelector(isObj(s) ? s : {}, `aggregationRule.clusterRoleSelectors[${i}]`)));
  return causes;
}

/** kube prints the creation time itself (RFC 3339, UTC), not an age */
function createdAt(obj: KubeObject): string {
  const t = Date.parse(str(obj.metadata?.creationTimestamp));
  return Number.isNaN(t) ? '' : new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const ROLE_TABLE = {
  columns: [
    nameColumn(),
    column('Created At', 'date', 'CreationTimestamp is a timestamp representing the server time when this object was created.'),
  ],
  cells: (obj: KubeObject) => [str(obj.metadata?.name), createdAt(obj)],
};

function roleKind(kind: 'Role' | 'ClusterRole', version: RbacVersion): KindDefinition {
  const namespaced = kind === 'Role';
  const resource = namespaced ? 'roles' : 'clusterroles';
  return {
    ...rbacKindBase(kind, version, resource, namespaced),
    strategy: {
      defaults() {},
      validate: (obj) => (namespaced ? validateRules(obj, true) : [...validateRules(obj, false), ...validateAggregation(obj)]),
    },
    table: ROLE_TABLE,
  };
}

export function roleKinds(version: RbacVersion): KindDefinition[] {
  return [roleKind('ClusterRole', version), roleKind('Role', version)];
}
