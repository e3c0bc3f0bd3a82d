/**
 * The roles of the controller manager's controllers, each `system:controller:<name>` bound to the
 * service account kube-system/<name> (kube 1.20's controller_policy.go). The ephemeral-volume and
 * ttl-after-finished controllers' roles exist only with their gates on, as in kube (both alpha in
 * 1.20, off by default).
 */
import type { KubeObject } from '../../../kind';
import type { PolicyRule } from '../policy-rule';
import { rule } from '../policy-rule';
import { clusterRole, clusterRoleBinding, eventsRule, subjects } from './objects';

export const CONTROLLER_PREFIX = 'system:controller:';

const APPS_EXT = ['extensions', 'apps'];
const CERT_SIGNERS = ['kubernetes.io/legacy-unknown', 'kubernetes.io/kube-apiserver-client', 'kubernetes.io/kube-apiserver-client-kubelet', 'kubernetes.io/kubelet-serving'];

/** what the roles need of the server's feature gates */
export interface FeatureGateReader {
  enabled(name: string): boolean;
}

/** controller name -> its rules, in kube's order */
function controllerRules(gates?: FeatureGateReader): Array<[string, PolicyRule[]]> {
  const gated: Array<[string, PolicyRule[]]> = [];
  if (gates?.enabled('GenericEphemeralVolume')) {
    gated.push(['ephemeral-volume-controller', [
      rule('get', 'list', 'watch').groups('').resources('pods').build(),
      rule('update').groups('').resources('pods/finalizers').build(),
      rule('get', 'list', 'watch', 'create').groups('').resources('persistentvolumeclaims').build(),
      eventsRule(),
    ]]);
  }
  if (gates?.enabled('TTLAfterFinished')) {
    gated.push(['ttl-after-finished-controller', [rule('get', 'list', 'watch', 'delete').groups('batch').resources('jobs').build(), eventsRule()]]);
  }
  return [
    ...gated,
    ['attachdetach-controller', [
      rule('list', 'watch').groups('').resources('persistentvolumes', 'persistentvolumeclaims').build(),
      rule('get', 'list', 'watch').groups('').resources('nodes').build(),
      rule('patch', 'update').groups('').resources('nodes/status').build(),
      rule('list', 'watch').groups('').resources('pods').build(),
      eventsRule(),
      rule('get', 'create', 'delete', 'list', 'watch').groups('storage.k8s.io').resources('volumeattachments').build(),
      rule('get', 'watch', 'list').groups('storage.k8s.io').resources('csidrivers').build(),
      rule('get', 'watch', 'list').groups('storage.k8s.io').resources('csinodes').build(),
    ]],
    ['clusterrole-aggregation-controller', [
      rule('escalate', 'get', 'list', 'watch', 'update', 'patch').groups('rbac.authorization.k8s.io').resources('clusterroles').build(),
    ]],
    ['cronjob-controller', [
      rule('get', 'list', 'watch', 'update').groups('batch').resources('cronjobs').build(),
      rule('get', 'list', 'watch', 'create', 'update', 'delete', 'patch').groups('batch').resources('jobs').build(),
      rule('update').groups('batch').resources('cronjobs/status').build(),
      rule('update').groups('batch').resources('cronjobs/finalizers').build(),
      rule('list', 'delete').groups('').resources('pods').build(),
      eventsRule(),
    ]],
    ['daemon-set-controller', [
      rule('get', 'list', 'watch').groups(...APPS_EXT).resources('daemonsets').build(),
      rule('update').groups(...APPS_EXT).resources('daemonsets/status').build(),
      rule('update').groups(...APPS_EXT).resources('daemonsets/finalizers').build(),
      rule('list', 'watch').groups('').resources('nodes').build(),
      rule('list', 'watch', 'create', 'delete', 'patch').groups('').resources('pods').build(),
      rule('create').groups('').resources('pods/binding').build(),
      rule('get', 'list', 'watch', 'create', 'delete', 'update', 'patch').groups('apps').resources('controllerrevisions').build(),
      eventsRule(),
    ]],
    ['deployment-controller', [
      rule('get', 'list', 'watch', 'update').groups(...APPS_EXT).resources('deployments').build(),
      rule('update').groups(...APPS_EXT).resources('deployments/status').build(),
      rule('update').groups(...APPS_EXT).resources('deployments/finalizers').build(),
      rule('get', 'list', 'watch', 'create', 'update', 'patch', 'delete').groups(...APPS_EXT).resources('replicasets').build(),
      rule('get', 'list', 'watch', 'update').groups('').resources('pods').build(),
      eventsRule(),
    ]],
    ['disruption-controller', [
      rule('get', 'list', 'watch').groups(...APPS_EXT).resources('deployments').build(),
      rule('get', 'list', 'watch').groups(...APPS_EXT).resources('replicasets').build(),
      rule('get', 'list', 'watch').groups('').resources('replicationcontrollers').build(),
      rule('get', 'list', 'watch').groups('policy').resources('poddisruptionbudgets').build(),
      rule('get', 'list', 'watch').groups('apps').resources('statefulsets').build(),
      rule('update').groups('policy').resources('poddisruptionbudgets/status').build(),
      rule('get').groups('*').resources('*/scale').build(),
      eventsRule(),
    ]],
    ['endpoint-controller', [
      rule('get', 'list', 'watch').groups('').resources('services', 'pods').build(),
      rule('get', 'list', 'watch', 'create', 'update', 'delete').groups('').resources('endpoints').build(),
      rule('create').groups('').resources('endpoints/restricted').build(),
      eventsRule(),
    ]],
    ['endpointslice-controller', [
      rule('get', 'list', 'watch').groups('').resources('services', 'pods', 'nodes').build(),
      rule('update').groups('').resources('services/finalizers').build(),
      rule('get', 'list', 'watch', 'create', 'update', 'delete').groups('discovery.k8s.io').resources('endpointslices').build(),
      eventsRule(),
    ]],
    ['endpointslicemirroring-controller', [
      rule('get', 'list', 'watch').groups('').resources('services', 'endpoints').build(),
      rule('update').groups('').resources('services/finalizers').build(),
      rule('get', 'list', 'watch', 'create', 'update', 'delete').groups('discovery.k8s.io').resources('endpointslices').build(),
      eventsRule(),
    ]],
    ['expand-controller', [
      rule('get', 'list', 'watch', 'update', 'patch').groups('').resources('persistentvolumes').build(),
      rule('update', 'patch').groups('').resources('persistentvolumeclaims/status').build(),
      rule('get', 'list', 'watch').groups('').resources('persistentvolumeclaims').build(),
      // glusterfs and portworx volume plugins
      rule('get', 'list', 'watch').groups('storage.k8s.io').resources('storageclasses').build(),
      rule('get').groups('').resources('services', 'endpoints').build(),
      rule('get').groups('').resources('secrets').build(),
      eventsRule(),
    ]],
    ['generic-garbage-collector', [rule('get', 'list', 'watch', 'patch', 'update', 'delete').groups('*').resources('*').build(), eventsRule()]],
    ['horizontal-pod-autoscaler', [
      rule('get', 'list', 'watch').groups('autoscaling').resources('horizontalpodautoscalers').build(),
      rule('update').groups('autoscaling').resources('horizontalpodautoscalers/status').build(),
      rule('get', 'update').groups('*').resources('*/scale').build(),
      rule('list').groups('').resources('pods').build(),
      rule('list').groups('metrics.k8s.io').resources('pods').build(),
      rule('get', 'list').groups('custom.metrics.k8s.io').resources('*').build(),
      rule('get', 'list').groups('external.metrics.k8s.io').resources('*').build(),
      eventsRule(),
    ]],
    ['job-controller', [
      rule('get', 'list', 'watch', 'update').groups('batch').resources('jobs').build(),
      rule('update').groups('batch').resources('jobs/status').build(),
      rule('update').groups('batch').resources('jobs/finalizers').build(),
      rule('list', 'watch', 'create', 'delete', 'patch').groups('').resources('pods').build(),
      eventsRule(),
    ]],
    ['namespace-controller', [
      rule('get', 'list', 'watch', 'delete').groups('').resources('namespaces').build(),
      rule('update').groups('').resources('namespaces/finalize', 'namespaces/status').build(),
      rule('get', 'list', 'watch', 'delete', 'deletecollection').groups('*').resources('*').build(),
    ]],
    ['node-controller', [
      rule('get', 'list', 'update', 'delete', 'patch').groups('').resources('nodes').build(),
      rule('patch', 'update').groups('').resources('nodes/status').build(),
      rule('update').groups('').resources('pods/status').build(),
      rule('list', 'delete').groups('').resources('pods').build(),
      eventsRule(),
    ]],
    ['persistent-volume-binder', [
      rule('get', 'list', 'watch', 'update', 'create', 'delete').groups('').resources('persistentvolumes').build(),
      rule('update').groups('').resources('persistentvolumes/status').build(),
      rule('get', 'list', 'watch', 'update').groups('').resources('persistentvolumeclaims').build(),
      rule('update').groups('').resources('persistentvolumeclaims/status').build(),
      rule('list', 'watch', 'get', 'create', 'delete').groups('').resources('pods').build(),
      // glusterfs volume plugin
      rule('get', 'list', 'watch').groups('storage.k8s.io').resources('storageclasses').build(),
      rule('get', 'create', 'delete').groups('').resources('services', 'endpoints').build(),
      rule('get').groups('').resources('secrets').build(),
      rule('list', 'watch').groups('').resources('nodes').build(),
      eventsRule(),
      // the recycler watches its pod's events
      rule('watch').groups('').resources('events').build(),
    ]],
    ['pod-garbage-collector', [
      rule('list', 'watch', 'delete').groups('').resources('pods').build(),
      rule('list').groups('').resources('nodes').build(),
    ]],
    ['replicaset-controller', [
      rule('get', 'list', 'watch', 'update').groups(...APPS_EXT).resources('replicasets').build(),
      rule('update').groups(...APPS_EXT).resources('replicasets/status').build(),
      rule('update').groups(...APPS_EXT).resources('replicasets/finalizers').build(),
      rule('list', 'watch', 'patch', 'create', 'delete').groups('').resources('pods').build(),
      eventsRule(),
    ]],
    ['replication-controller', [
      rule('get', 'list', 'watch', 'update').groups('').resources('replicationcontrollers').build(),
      rule('update').groups('').resources('replicationcontrollers/status').build(),
      rule('update').groups('').resources('replicationcontrollers/finalizers').build(),
      rule('list', 'watch', 'patch', 'create', 'delete').groups('').resources('pods').build(),
      eventsRule(),
    ]],
    ['resourcequota-controller', [
      rule('list', 'watch').groups('*').resources('*').build(),
      rule('update').groups('').resources('resourcequotas/status').build(),
      eventsRule(),
    ]],
    ['route-controller', [
      rule('list', 'watch').groups('').resources('nodes').build(),
      rule('patch').groups('').resources('nodes/status').build(),
      eventsRule(),
    ]],
    ['service-account-controller', [rule('create').groups('').resources('serviceaccounts').build(), eventsRule()]],
    ['service-controller', [
      rule('get', 'list', 'watch').groups('').resources('services').build(),
      rule('patch', 'update').groups('').resources('services/status').build(),
      rule('list', 'watch').groups('').resources('nodes').build(),
      eventsRule(),
    ]],
    ['statefulset-controller', [
      rule('list', 'watch').groups('').resources('pods').build(),
      rule('get', 'list', 'watch').groups('apps').resources('statefulsets').build(),
      rule('update').groups('apps').resources('statefulsets/status').build(),
      rule('update').groups('apps').resources('statefulsets/finalizers').build(),
      rule('get', 'create', 'delete', 'update', 'patch').groups('').resources('pods').build(),
      rule('get', 'create', 'delete', 'update', 'patch', 'list', 'watch').groups('apps').resources('controllerrevisions').build(),
      rule('get', 'create').groups('').resources('persistentvolumeclaims').build(),
      eventsRule(),
    ]],
    ['ttl-controller', [rule('update', 'patch', 'list', 'watch').groups('').resources('nodes').build(), eventsRule()]],
    ['certificate-controller', [
      rule('get', 'list', 'watch', 'delete').groups('certificates.k8s.io').resources('certificatesigningrequests').build(),
      rule('update').groups('certificates.k8s.io').resources('certificatesigningrequests/status', 'certificatesigningrequests/approval').build(),
      rule('approve').groups('certificates.k8s.io').resources('signers').names('kubernetes.io/kube-apiserver-client-kubelet').build(),
      rule('sign').groups('certificates.k8s.io').resources('signers').names(...CERT_SIGNERS).build(),
      rule('create').groups('authorization.k8s.io').resources('subjectaccessreviews').build(),
      eventsRule(),
    ]],
    ['pvc-protection-controller', [
      rule('get', 'list', 'watch', 'update').groups('').resources('persistentvolumeclaims').build(),
      rule('list', 'watch', 'get').groups('').resources('pods').build(),
      eventsRule(),
    ]],
    ['pv-protection-controller', [rule('get', 'list', 'watch', 'update').groups('').resources('persistentvolumes').build(), eventsRule()]],
    ['root-ca-cert-publisher', [rule('create', 'update').groups('').resources('configmaps').build(), eventsRule()]],
  ];
}

/** the controller roles and their bindings to kube-system service accounts of the same name */
export function controllerRoles(gates?: FeatureGateReader): { roles: KubeObject[]; bindings: KubeObject[] } {
  const pairs = controllerRules(gates);
  return {
    roles: pairs.map(([name, rules]) => clusterRole(CONTROLLER_PREFIX + name, rules)),
    bindings: pairs.map(([name]) => clusterRoleBinding(CONTROLLER_PREFIX + name, subjects().serviceAccount('kube-system', name))),
  };
}
