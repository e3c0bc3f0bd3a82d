/**
 * The cluster roles of kube 1.20's bootstrap policy for system components: nodes, kube-proxy, the
 * scheduler, the controller manager, DNS, aggregation, volume provisioning and the certificate
 * approvers. Rules gated by feature gates are listed as 1.20's defaults leave them (on:
 * ExpandPersistentVolumes, TokenRequest, CSINodeInfo, RuntimeClass, EndpointSlice,
 * ServiceAccountIssuerDiscovery; off: CSIStorageCapacity).
 */
import type { KubeObject } from '../../../kind';
import type { PolicyRule } from '../policy-rule';
import { rule } from '../policy-rule';
import { READ, READ_UPDATE, clusterRole, eventsRule } from './objects';

const AUTHN = 'authentication.k8s.io';
const AUTHZ = 'authorization.k8s.io';
const CERTS = 'certificates.k8s.io';
const COORD = 'coordination.k8s.io';
const STORAGE = 'storage.k8s.io';

/** kube's NodeRules: what a kubelet may do (the Node authorizer narrows it to its own objects) */
export function nodeRules(): PolicyRule[] {
  return [
    rule('create').groups(AUTHN).resources('tokenreviews').build(),
    rule('create').groups(AUTHZ).resources('subjectaccessreviews', 'localsubjectaccessreviews').build(),
    rule(...READ).groups('').resources('services').build(),
    rule('create', 'get', 'list', 'watch').groups('').resources('nodes').build(),
    rule('update', 'patch').groups('').resources('nodes/status').build(),
    rule('update', 'patch').groups('').resources('nodes').build(),
    rule('create', 'update', 'patch').groups('').resources('events').build(),
    rule(...READ).groups('').resources('pods').build(),
    rule('create', 'delete').groups('').resources('pods').build(),
    rule('update', 'patch').groups('').resources('pods/status').build(),
    rule('create').groups('').resources('pods/eviction').build(),
    rule('get', 'list', 'watch').groups('').resources('secrets', 'configmaps').build(),
    rule('get').groups('').resources('persistentvolumeclaims', 'persistentvolumes').build(),
    rule('get').groups('').resources('endpoints').build(),
    rule('create', 'get', 'list', 'watch').groups(CERTS).resources('certificatesigningrequests').build(),
    rule('get', 'create', 'update', 'patch', 'delete').groups(COORD).resources('leases').build(),
    rule('get').groups(STORAGE).resources('volumeattachments').build(),
    rule('get', 'update', 'patch').groups('').resources('persistentvolumeclaims/status').build(),
    rule('create').groups('').resources('serviceaccounts/token').build(),
    rule('get', 'watch', 'list').groups(STORAGE).resources('csidrivers').build(),
    rule('get', 'create', 'update', 'patch', 'delete').groups(STORAGE).resources('csinodes').build(),
    rule('get', 'list', 'watch').groups('node.k8s.io').resources('runtimeclasses').build(),
  ];
}

const approver = (signer: string): KubeObject =>
  clusterRole(`system:certificates.k8s.io:${signer.replace('kubernetes.io/', '')}-approver`, [rule('approve').groups(CERTS).resources('signers').names(signer).build()]);

export function systemRoles(): KubeObject[] {
  return [
    clusterRole('system:heapster', [
      rule(...READ).groups('').resources('events', 'pods', 'nodes', 'namespaces').build(),
      rule(...READ).groups('extensions').resources('deployments').build(),
    ]),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-problem-detector', [
      rule('get').groups('').resources('nodes').build(),
      rule('patch').groups('').resources('nodes/status').build(),
      eventsRule(),
    ]),
    clusterRole('system:kubelet-api-admin', [
      rule('get', 'list', 'watch').groups('').resources('nodes').build(),
      rule('proxy').groups('').resources('nodes').build(),
      rule('*').groups('').resources('nodes/proxy', 'nodes/metrics', 'nodes/spec', 'nodes/stats', 'nodes/log').build(),
    ]),
    clusterRole('system:node-bootstrapper', [rule('create', 'get', 'list', 'watch').groups(CERTS).resources('certificatesigningrequests').build()]),
    clusterRole('system:auth-delegator', [
      rule('create').groups(AUTHN).resources('tokenreviews').build(),
      rule('create').groups(AUTHZ).resources('subjectaccessreviews').build(),
    ]),
    clusterRole('system:kube-aggregator', [rule(...READ).groups('').resources('services', 'endpoints').build()]),
    clusterRole('system:kube-controller-manager', [
      eventsRule(),
      // leader election, in leases and (until kube moved off them) endpoints
      rule('create').groups(COORD).resources('leases').build(),
      rule('get', 'update').groups(COORD).resources('leases').names('kube-controller-manager').build(),
      rule('create').groups('').resources('endpoints').build(),
      rule('get', 'update').groups('').resources('endpoints').names('kube-controller-manager').build(),
      rule('create').groups('').resources('secrets', 'serviceaccounts').build(),
      rule('delete').groups('').resources('secrets').build(),
      rule('get').groups('').resources('namespaces', 'secrets', 'serviceaccounts', 'configmaps').build(),
      rule('update').groups('').resources('secrets', 'serviceaccounts').build(),
      rule('create').groups(AUTHN).resources('tokenreviews').build(),
      rule('create').groups(AUTHZ).resources('subjectaccessreviews').build(),
      // every shared informer
      rule('list', 'watch').groups('*').resources('*').build(),
      rule('create').groups('').resources('serviceaccounts/token').build(),
    ]),
    clusterRole('system:kube-dns', [rule('list', 'watch').groups('').resources('endpoints', 'services').build()]),
    clusterRole('system:persistent-volume-provisioner', [
      rule('get', 'list', 'watch', 'create', 'delete').groups('').resources('persistentvolumes').build(),
      rule('get', 'list', 'watch', 'update').groups('').resources('persistentvolumeclaims').build(),
      rule(...READ).groups(STORAGE).resources('storageclasses').build(),
      rule('watch').groups('').resources('events').build(),
      eventsRule(),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [
      rule('create').groups(CERTS).resources('certificatesigningrequests/nodeclient').build(),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [
      rule('create').groups(CERTS).resources('certificatesigningrequests/selfnodeclient').build(),
    ]),
    clusterRole('system:volume-scheduler', [
      rule(...READ_UPDATE).groups('').resources('persistentvolumes').build(),
      rule(...READ).groups(STORAGE).resources('storageclasses').build(),
      rule(...READ_UPDATE).groups('').resources('persistentvolumeclaims').build(),
    ]),
    approver('kubernetes.io/legacy-unknown'),
    approver('kubernetes.io/kubelet-serving'),
    approver('kubernetes.io/kube-apiserver-client'),
    approver('kubernetes.io/kube-apiserver-client-kubelet'),
    clusterRole('system:service-account-issuer-discovery', [rule('get').urls('/.well-known/openid-configuration', '/openid/v1/jwks').build()]),
    clusterRole('system:node-proxier', [
      rule('list', 'watch').groups('').resources('services', 'endpoints').build(),
      rule('get', 'list', 'watch').groups('').resources('nodes').build(),
      eventsRule(),
      rule('list', 'watch').groups('discovery.k8s.io').resources('endpointslices').build(),
    ]),
    clusterRole('system:kube-scheduler', [
      eventsRule(),
      rule('create').groups(COORD).resources('leases').build(),
      rule('get', 'update').groups(COORD).resources('leases').names('kube-scheduler').build(),
      rule('create').groups('').resources('endpoints').build(),
      rule('get', 'update').groups('').resources('endpoints').names('kube-scheduler').build(),
      rule(...READ).groups('').resources('nodes').build(),
      rule('get', 'list', 'watch', 'delete').groups('').resources('pods').build(),
      rule('create').groups('').resources('pods/binding', 'bindings').build(),
      rule('patch', 'update').groups('').resources('pods/status').build(),
      rule(...READ).groups('').resources('services', 'replicationcontrollers').build(),
      rule(...READ).groups('apps', 'extensions').resources('replicasets').build(),
      rule(...READ).groups('apps').resources('statefulsets').build(),
      rule(...READ).groups('policy').resources('poddisruptionbudgets').build(),
      rule(...READ).groups('').resources('persistentvolumeclaims', 'persistentvolumes').build(),
      rule('create').groups(AUTHN).resources('tokenreviews').build(),
      rule('create').groups(AUTHZ).resources('subjectaccessreviews').build(),
      rule(...READ).groups(STORAGE).resources('csinodes').build(),
    ]),
  ];
}
