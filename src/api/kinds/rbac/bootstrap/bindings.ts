/** kube 1.20's bootstrap ClusterRoleBindings (policy.go), in kube's order */
import type { KubeObject } from '../../../kind';
import { clusterRoleBinding, subjects } from './objects';

export function systemBindings(): KubeObject[] {
  return [
    clusterRoleBinding('cluster-admin', subjects().groups('system:masters')),
    clusterRoleBinding('system:discovery', subjects().groups('system:authenticated')),
    clusterRoleBinding('system:basic-user', subjects().groups('system:authenticated')),
    clusterRoleBinding('system:public-info-viewer', subjects().groups('system:authenticated', 'system:unauthenticated')),
    clusterRoleBinding('system:node-proxier', subjects().users('system:kube-proxy')),
    clusterRoleBinding('system:kube-controller-manager', subjects().users('system:kube-controller-manager')),
    clusterRoleBinding('system:kube-dns', subjects().serviceAccount('kube-system', 'kube-dns')),
    clusterRoleBinding('system:kube-scheduler', subjects().users('system:kube-scheduler')),
    clusterRoleBinding('system:volume-scheduler', subjects().users('system:kube-scheduler')),
    // kept without subjects since the Node authorizer took over (1.8), so reconciliation leaves it empty
    clusterRoleBinding('system:node'),
    clusterRoleBinding('system:service-account-issuer-discovery', subjects().groups('system:serviceaccounts')),
  ];
}
