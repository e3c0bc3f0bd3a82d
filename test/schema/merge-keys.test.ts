import t from 'tap';
import { definitions } from '../../src/schema/index';

/**
 * kube 1.32's list semantics for the lists strategic merge patch and server-side apply use most.
 * Columns: definition, field, patch strategy, patch merge key, list type, list map keys.
 */
const LISTS: Array<[string, string, string | undefined, string | undefined, string | undefined, string[] | undefined]> = [
  ['core.v1.PodSpec', 'containers', 'merge', 'name', 'map', ['name']],
  ['core.v1.PodSpec', 'initContainers', 'merge', 'name', 'map', ['name']],
  ['core.v1.PodSpec', 'ephemeralContainers', 'merge', 'name', 'map', ['name']],
  ['core.v1.PodSpec', 'volumes', 'merge,retainKeys', 'name', 'map', ['name']],
  ['core.v1.PodSpec', 'imagePullSecrets', 'merge', 'name', 'map', ['name']],
  ['core.v1.PodSpec', 'tolerations', undefined, undefined, 'atomic', undefined],
  ['core.v1.PodSpec', 'hostAliases', 'merge', 'ip', 'map', ['ip']],
  ['core.v1.PodSpec', 'topologySpreadConstraints', 'merge', 'topologyKey', 'map', ['topologyKey', 'whenUnsatisfiable']],
  ['core.v1.PodSpec', 'schedulingGates', 'merge', 'name', 'map', ['name']],
  ['core.v1.PodSpec', 'resourceClaims', 'merge,retainKeys', 'name', 'map', ['name']],
  ['core.v1.PodSpec', 'readinessGates', undefined, undefined, 'atomic', undefined],
  ['core.v1.Container', 'ports', 'merge', 'containerPort', 'map', ['containerPort', 'protocol']],
  ['core.v1.Container', 'env', 'merge', 'name', 'map', ['name']],
  ['core.v1.Container', 'envFrom', undefined, undefined, 'atomic', undefined],
  ['core.v1.Container', 'volumeMounts', 'merge', 'mountPath', 'map', ['mountPath']],
  ['core.v1.Container', 'volumeDevices', 'merge', 'devicePath', 'map', ['devicePath']],
  ['core.v1.Container', 'command', undefined, undefined, 'atomic', undefined],
  ['core.v1.Container', 'args', undefined, undefined, 'atomic', undefined],
  ['core.v1.ResourceRequirements', 'claims', undefined, undefined, 'map', ['name']],
  ['core.v1.PodStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['core.v1.PodStatus', 'podIPs', 'merge', 'ip', 'map', ['ip']],
  ['core.v1.PodStatus', 'hostIPs', 'merge', 'ip', 'atomic', undefined],
  ['core.v1.PodStatus', 'containerStatuses', undefined, undefined, 'atomic', undefined],
  ['core.v1.ServiceSpec', 'ports', 'merge', 'port', 'map', ['port', 'protocol']],
  ['core.v1.ServiceSpec', 'clusterIPs', undefined, undefined, 'atomic', undefined],
  ['core.v1.ServiceStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['core.v1.ServiceAccount', 'secrets', 'merge', 'name', 'map', ['name']],
  ['core.v1.ServiceAccount', 'imagePullSecrets', undefined, undefined, 'atomic', undefined],
  ['core.v1.NodeSpec', 'podCIDRs', 'merge', undefined, 'set', undefined],
  ['core.v1.NodeSpec', 'taints', undefined, undefined, 'atomic', undefined],
  ['core.v1.NodeStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['core.v1.NodeStatus', 'addresses', 'merge', 'type', 'map', ['type']],
  ['core.v1.NamespaceSpec', 'finalizers', undefined, undefined, 'atomic', undefined],
  ['core.v1.EndpointSubset', 'addresses', undefined, undefined, 'atomic', undefined],
  ['core.v1.PersistentVolumeClaimStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['apimachinery.pkg.apis.meta.v1.ObjectMeta', 'finalizers', 'merge', undefined, 'set', undefined],
  ['apimachinery.pkg.apis.meta.v1.ObjectMeta', 'ownerReferences', 'merge', 'uid', 'map', ['uid']],
  ['apimachinery.pkg.apis.meta.v1.ObjectMeta', 'managedFields', undefined, undefined, 'atomic', undefined],
  ['apimachinery.pkg.apis.meta.v1.LabelSelector', 'matchExpressions', undefined, undefined, 'atomic', undefined],
  ['apps.v1.DeploymentStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['apps.v1.ReplicaSetStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['apps.v1.DaemonSetStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['apps.v1.StatefulSetStatus', 'conditions', 'merge', 'type', 'map', ['type']],
  ['apps.v1.StatefulSetSpec', 'volumeClaimTemplates', undefined, undefined, 'atomic', undefined],
  ['batch.v1.JobStatus', 'conditions', 'merge', 'type', 'atomic', undefined],
  ['batch.v1.CronJobStatus', 'active', undefined, undefined, 'atomic', undefined],
  ['batch.v1.UncountedTerminatedPods', 'succeeded', undefined, undefined, 'set', undefined],
  ['batch.v1.PodFailurePolicyOnExitCodesRequirement', 'values', undefined, undefined, 'set', undefined],
];

const fullName = (short: string) => (short.startsWith('apimachinery.') ? `io.k8s.${short}` : `io.k8s.api.${short}`);

t.test('list semantics match kube for the common lists', async (t) => {
  for (const [def, field, strategy, mergeKey, listType, keys] of LISTS) {
    const node = definitions[fullName(def)]?.properties?.[field];
    t.ok(node, `${def}.${field} exists`);
    t.same(
      {
        strategy: node?.['x-kubernetes-patch-strategy'],
        mergeKey: node?.['x-kubernetes-patch-merge-key'],
        listType: node?.['x-kubernetes-list-type'],
        keys: node?.['x-kubernetes-list-map-keys'],
      },
      { strategy, mergeKey, listType, keys },
      `${def}.${field}`,
    );
  }
});

t.test('struct-level patch strategies', async (t) => {
  t.equal(definitions['io.k8s.api.apps.v1.DeploymentSpec']?.properties?.strategy?.['x-kubernetes-patch-strategy'], 'retainKeys');
});
