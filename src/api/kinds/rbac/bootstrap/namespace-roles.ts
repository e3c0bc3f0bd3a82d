/**
 * The namespaced bootstrap Roles and RoleBindings of kube 1.20 (namespace_policy.go): in
 * kube-system, reading the authentication configmap, leader election of the controller manager and
 * scheduler, the bootstrap signer, cloud provider and token cleaner; in kube-public, the bootstrap
 * signer's cluster-info configmap.
 */
import type { KubeObject } from '../../../kind';
import { rule } from '../policy-rule';
import { eventsRule, role, roleBinding, subjects } from './objects';

const SYSTEM = 'kube-system';
const PUBLIC = 'kube-public';

const leaderLocking = (component: string): KubeObject =>
  role(SYSTEM, `system::leader-locking-${component}`, [
    rule('watch').groups('').resources('configmaps').build(),
    rule('get', 'update').groups('').resources('configmaps').names(component).build(),
  ]);

export function namespaceRoles(): KubeObject[] {
  return [
    role(SYSTEM, 'extension-apiserver-authentication-reader', [
      rule('get', 'list', 'watch').groups('').resources('configmaps').names('extension-apiserver-authentication').build(),
    ]),
    leaderLocking('kube-controller-manager'),
    leaderLocking('kube-scheduler'),
    role(SYSTEM, 'system:controller:bootstrap-signer', [rule('get', 'list', 'watch').groups('').resources('secrets').build()]),
    role(SYSTEM, 'system:controller:cloud-provider', [rule('create', 'get', 'list', 'watch').groups('').resources('configmaps').build()]),
    role(SYSTEM, 'system:controller:token-cleaner', [rule('delete', 'get', 'list', 'watch').groups('').resources('secrets').build(), eventsRule()]),
    role(PUBLIC, 'system:controller:bootstrap-signer', [
      rule('get', 'list', 'watch').groups('').resources('configmaps').build(),
      rule('update').groups('').resources('configmaps').names('cluster-info').build(),
      eventsRule(),
    ]),
  ];
}

export function namespaceBindings(): KubeObject[] {
  return [
    // the binding's name differs from its role's here, as in kube
    roleBinding(
      SYSTEM,
      'extension-apiserver-authentication-reader',
      subjects().users('system:kube-controller-manager', 'system:kube-scheduler'),
      'system::extension-apiserver-authentication-reader',
    ),
    roleBinding(SYSTEM, 'system::leader-locking-kube-controller-manager', subjects().serviceAccount(SYSTEM, 'kube-controller-manager')),
    roleBinding(SYSTEM, 'system::leader-locking-kube-scheduler', subjects().serviceAccount(SYSTEM, 'kube-scheduler')),
    roleBinding(SYSTEM, 'system:controller:bootstrap-signer', subjects().serviceAccount(SYSTEM, 'bootstrap-signer')),
    roleBinding(SYSTEM, 'system:controller:cloud-provider', subjects().serviceAccount(SYSTEM, 'cloud-provider')),
    roleBinding(SYSTEM, 'system:controller:token-cleaner', subjects().serviceAccount(SYSTEM, 'token-cleaner')),
    roleBinding(PUBLIC, 'system:controller:bootstrap-signer', subjects().serviceAccount(SYSTEM, 'bootstrap-signer')),
  ];
}
