/**
 * The RBAC objects kube 1.20's API server ensures at start (the rbac/bootstrap-roles post-start
 * hook): cluster roles (policy and controller roles), cluster role bindings, then the namespaced
 * roles and role bindings of kube-system and kube-public, each reconciled when it exists.
 *
 * admin, edit and view are aggregated roles: kube creates them without rules and its
 * clusterrole-aggregation controller fills them from the system:aggregate-to-* roles. Until that
 * controller runs here, they are created with the rules it would compute (see aggregation.ts), so
 * users and `kubectl auth can-i` style tools see complete roles from the first start.
 */
import type { BootstrapObject } from '../../../bootstrap-objects';
import type { KubeObject } from '../../../kind';
import { fillAggregatedRules } from '../aggregation';
import { systemBindings } from './bindings';
import { controllerRoles, type FeatureGateReader } from './controller-roles';
import { namespaceBindings, namespaceRoles } from './namespace-roles';
import { reconcileBinding, reconcileRole } from './reconcile';
import { systemRoles } from './system-roles';
import { userRoles } from './user-roles';

/** every bootstrap RBAC object, as kube creates it */
export function rbacBootstrapPolicy(gates?: FeatureGateReader): { clusterRoles: KubeObject[]; clusterRoleBindings: KubeObject[]; roles: KubeObject[]; roleBindings: KubeObject[] } {
  const controllers = controllerRoles(gates);
  const clusterRoles = [...userRoles(), ...systemRoles(), ...controllers.roles];
  fillAggregatedRules(clusterRoles);
  return {
    clusterRoles,
    clusterRoleBindings: [...systemBindings(), ...controllers.bindings],
    roles: namespaceRoles(),
    roleBindings: namespaceBindings(),
  };
}

export function rbacBootstrapObjects(gates?: FeatureGateReader): BootstrapObject[] {
  const policy = rbacBootstrapPolicy(gates);
  const asRole = (object: KubeObject): BootstrapObject => ({ object, reconcile: reconcileRole });
  const asBinding = (object: KubeObject): BootstrapObject => ({ object, reconcile: reconcileBinding });
  return [
    ...policy.clusterRoles.map(asRole),
    ...policy.clusterRoleBindings.map(asBinding),
    ...policy.roles.map(asRole),
    ...policy.roleBindings.map(asBinding),
  ];
}
