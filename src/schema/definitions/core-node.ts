/** core/v1 Node and Namespace. */
import type { Definitions } from '../types';
import {
  addKind, atomic, bool, condition, core, int32, int64, mergeList, obj, oneOf, ref, resourceList, set, str,
  time,
} from '../dsl';

const nodeConfigSource = () => ref(core('NodeConfigSource'), 'A node configuration source.');

export const coreNodeDefinitions: Definitions = {
  [core('NodeSpec')]: obj('Desired state of a node.', {
    configSource: ref(core('NodeConfigSource'), 'Deprecated: dynamic node agent configuration.'),
    externalID: str('Deprecated; unused.'),
    podCIDR: str('Pod IP range of the node.'),
    podCIDRs: set(str(), 'Pod IP ranges of the node, one per family.', { merge: true }),
    providerID: str('Id of the node at the cloud provider.'),
    taints: atomic(ref(core('Taint')), 'Taints repelling pods that do not tolerate them.'),
    unschedulable: bool('Keep new pods off the node.'),
  }),
  [core('Taint')]: obj(
    'A taint on a node.',
    {
      effect: oneOf('Effect on pods that do not tolerate it.', ['NoExecute', 'NoSchedule', 'PreferNoSchedule']),
      key: str('Taint key.'),
      timeAdded: time('When a NoExecute taint was added.'),
      value: str('Taint value.'),
    },
    { required: ['key', 'effect'] },
  ),
  [core('NodeConfigSource')]: obj('A node configuration source.', {
    configMap: ref(core('ConfigMapNodeConfigSource'), 'A ConfigMap holding the configuration.'),
  }),
  [core('ConfigMapNodeConfigSource')]: obj(
    'A ConfigMap holding node agent configuration.',
    {
      kubeletConfigKey: str('Key holding the configuration.'),
      name: str('Name of the ConfigMap.'),
      namespace: str('Namespace of the ConfigMap.'),
      resourceVersion: str('Version of the ConfigMap, in status.'),
      uid: str('UID of the ConfigMap, in status.'),
    },
    { required: ['namespace', 'name', 'kubeletConfigKey'] },
  ),
  [core('NodeStatus')]: obj('Observed state of a node.', {
    addresses: mergeList(ref(core('NodeAddress')), 'type', 'Addresses of the node.'),
    allocatable: resourceList('Resources available to pods.'),
    capacity: resourceList('Total resources of the node.'),
    conditions: mergeList(ref(core('NodeCondition')), 'type', 'Current conditions (Ready, MemoryPressure...).'),
    config: ref(core('NodeConfigStatus'), 'Status of dynamic configuration.'),
    daemonEndpoints: ref(core('NodeDaemonEndpoints'), 'Ports of daemons on the node.'),
    features: ref(core('NodeFeatures'), 'Features the node supports.'),
    images: atomic(ref(core('ContainerImage')), 'Images present on the node.'),
    nodeInfo: ref(core('NodeSystemInfo'), 'Facts about the node system.'),
    phase: oneOf('Deprecated lifecycle phase.', ['Pending', 'Running', 'Terminated']),
    runtimeHandlers: atomic(ref(core('NodeRuntimeHandler')), 'Runtime handlers available.'),
    volumesAttached: atomic(ref(core('AttachedVolume')), 'Volumes attached to the node.'),
    volumesInUse: atomic(str(), 'Volumes mounted by the node.'),
  }),
  [core('NodeAddress')]: obj(
    'An address of a node.',
    { address: str('The address.'), type: str('Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.') },
    { required: ['type', 'address'] },
  ),
  [core('NodeCondition')]: condition('A condition of a node.', 'Type of the condition.', ['lastHeartbeatTime', 'lastTransitionTime']),
  [core('NodeConfigStatus')]: obj('Status of dynamic node configuration.', {
    active: nodeConfigSource(),
    assigned: nodeConfigSource(),
    error: str('Problem applying the configuration.'),
    lastKnownGood: nodeConfigSource(),
  }),
  [core('NodeDaemonEndpoints')]: obj('Ports of node daemons.', {
    kubeletEndpoint: ref(core('DaemonEndpoint'), 'Port of the node agent.'),
  }),
  [core('DaemonEndpoint')]: obj('A daemon port.', { Port: int32('Port number.') }, { required: ['Port'] }),
  [core('NodeFeatures')]: obj('Features of a node.', {
    supplementalGroupsPolicy: bool('Whether supplementalGroupsPolicy is honoured.'),
  }),
  [core('NodeRuntimeHandler')]: obj('A runtime handler of a node.', {
    features: ref(core('NodeRuntimeHandlerFeatures'), 'Its features.'),
    name: str('Handler name; empty for the default.'),
  }),
  [core('NodeRuntimeHandlerFeatures')]: obj('Features of a runtime handler.', {
    recursiveReadOnlyMounts: bool('Supports recursive read-only mounts.'),
    userNamespaces: bool('Supports user namespaces.'),
  }),
  [core('ContainerImage')]: obj('An image on a node.', {
    names: atomic(str(), 'Names of the image.'),
    sizeBytes: int64('Size in bytes.'),
  }),
  [core('AttachedVolume')]: obj(
    'A volume attached to a node.',
    { devicePath: str('Device path of the volume.'), name: str('Unique volume name.') },
    { required: ['name', 'devicePath'] },
  ),
  [core('NodeSystemInfo')]: obj(
    'Facts about a node.',
    {
      architecture: str('CPU architecture.'),
      bootID: str('Boot id.'),
      containerRuntimeVersion: str('Container runtime version.'),
      kernelVersion: str('Kernel version.'),
      kubeProxyVersion: str('Deprecated: proxy version.'),
      kubeletVersion: str('Node agent version.'),
      machineID: str('Machine id.'),
      operatingSystem: str('Operating system.'),
      osImage: str('OS image.'),
      systemUUID: str('System UUID.'),
    },
    {
      required: [
        'machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion',
        'kubeProxyVersion', 'operatingSystem', 'architecture',
      ],
    },
  ),
  [core('NamespaceSpec')]: obj('Desired state of a namespace.', {
    finalizers: atomic(str(), 'Must be empty before the namespace is removed from storage.'),
  }),
  [core('NamespaceStatus')]: obj('Observed state of a namespace.', {
    conditions: mergeList(ref(core('NamespaceCondition')), 'type', 'Current conditions.'),
    phase: oneOf('Active or Terminating.', ['Active', 'Terminating']),
  }),
  [core('NamespaceCondition')]: condition('A condition of a namespace.', 'Type of the condition.', ['lastTransitionTime']),
};

addKind(coreNodeDefinitions, core(''), { group: '', version: 'v1', kind: 'Node' }, 'A worker machine of the cluster.', {
  spec: ref(core('NodeSpec'), 'Desired state.'),
  status: ref(core('NodeStatus'), 'Observed state. Read-only.'),
});
addKind(coreNodeDefinitions, core(''), { group: '', version: 'v1', kind: 'Namespace' }, 'A scope for names.', {
  spec: ref(core('NamespaceSpec'), 'Desired state.'),
  status: ref(core('NamespaceStatus'), 'Observed state. Read-only.'),
});

