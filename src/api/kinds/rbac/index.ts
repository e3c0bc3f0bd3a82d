/**
 * rbac.authorization.k8s.io in v1, v1beta1 and v1alpha1, in kube's discovery order
 * (clusterrolebindings, clusterroles, rolebindings, roles). Every version shares v1's storage.
 */
import type { KindDefinition } from '../../kind';
import { bindingKinds } from './bindings';
import type { RbacVersion } from './conversion';
import { roleKinds } from './roles';

function versionKinds(version: RbacVersion): KindDefinition[] {
  const [clusterRoleBindings, roleBindings] = bindingKinds(version);
  const [clusterRoles, roles] = roleKinds(version);
  return [clusterRoleBindings, clusterRoles, roleBindings, roles];
}

export function rbacKinds(): KindDefinition[] {
  return [...versionKinds('v1'), ...versionKinds('v1beta1'), ...versionKinds('v1alpha1')];
}
