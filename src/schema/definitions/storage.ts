/**
 * storage.k8s.io: StorageClass (v1, v1beta1), VolumeAttachment (v1, v1beta1, v1alpha1), CSIDriver
 * and CSINode (v1, v1beta1), CSIStorageCapacity (v1, v1beta1, v1alpha1). Every version of a kind
 * has the same fields.
 */
import type { Definitions } from '../types';
import {
  addKind, atomic, bool, core, int32, int64, map, meta, mergeList, obj, oneOf, quantity, ref, set, str, time,
} from '../dsl';

const S = 'io.k8s.api.storage.';

export const storageDefinitions: Definitions = {
  // core/v1 types only StorageClass uses
  [core('TopologySelectorTerm')]: obj(
    'Topology requirements, all of which must hold.',
    { matchLabelExpressions: atomic(ref(core('TopologySelectorLabelRequirement')), 'Label requirements.') },
    { atomic: true },
  ),
  [core('TopologySelectorLabelRequirement')]: obj(
    'A topology label and the values it may have.',
    {
      key: str('The label key.'),
      values: atomic(str(), 'Values the label may have; at least one.'),
    },
    { required: ['key', 'values'] },
  ),
};

function addStorageClass(p: string, version: string): void {
  addKind(storageDefinitions, p, { group: 'storage.k8s.io', version, kind: 'StorageClass' }, 'A class of dynamically provisioned volumes.', {
    allowVolumeExpansion: bool('Claims of the class may be resized.'),
    allowedTopologies: atomic(ref(core('TopologySelectorTerm')), 'Where volumes may be provisioned; empty means anywhere.'),
    mountOptions: atomic(str(), 'Mount options of the provisioned volumes, e.g. ro or soft.'),
    parameters: map('Settings passed to the provisioner. Immutable.'),
    provisioner: str('Name of the volume plugin or CSI driver that provisions the volumes. Immutable.'),
    reclaimPolicy: oneOf('What happens to provisioned volumes when their claim goes: Delete (the default) or Retain.', ['Delete', 'Recycle', 'Retain']),
    volumeBindingMode: oneOf('When claims are provisioned and bound: Immediate (the default) or WaitForFirstConsumer.', ['Immediate', 'WaitForFirstConsumer']),
  }, ['provisioner']);
}

function addVolumeAttachment(p: string, version: string): void {
  Object.assign(storageDefinitions, {
    [`${p}VolumeAttachmentSpec`]: obj(
      'Which volume is to be attached to which node, by whom.',
      {
        attacher: str('Name of the attaching volume driver (the CSI driver name).'),
        nodeName: str('Node the volume is attached to.'),
        source: ref(`${p}VolumeAttachmentSource`, 'The volume.'),
      },
      { required: ['attacher', 'source', 'nodeName'] },
    ),
    [`${p}VolumeAttachmentSource`]: obj('The volume to attach: a persistent volume or an inline one (exactly one).', {
      inlineVolumeSpec: ref(core('PersistentVolumeSpec'), 'An inline volume of a pod, migrated to CSI.'),
      persistentVolumeName: str('Name of the persistent volume.'),
    }),
    [`${p}VolumeAttachmentStatus`]: obj(
      'Attachment state, written by the attacher.',
      {
        attachError: ref(`${p}VolumeError`, 'The last attach failure, if any.'),
        attached: bool('The volume is attached.'),
        attachmentMetadata: map('Information the attacher passes on to the later mount steps.'),
        detachError: ref(`${p}VolumeError`, 'The last detach failure, if any.'),
      },
      { required: ['attached'] },
    ),
    [`${p}VolumeError`]: obj('A failure of an attach or detach operation.', {
      errorCode: int32('Numeric gRPC code of the failure, when the driver returned one.'),
      message: str('What went wrong; may be logged.'),
      time: time('When it happened.'),
    }),
  });
  addKind(storageDefinitions, p, { group: 'storage.k8s.io', version, kind: 'VolumeAttachment' }, 'A request to attach a volume to a node, and its outcome.', {
    spec: ref(`${p}VolumeAttachmentSpec`, 'Desired attachment. Immutable.'),
    status: ref(`${p}VolumeAttachmentStatus`, 'Observed state, written by the attacher.'),
  }, ['spec']);
}

function addCsiDriverAndNode(p: string, version: string): void {
  const modesDesc = 'Volume lifecycles the driver supports: Persistent (the default) and Ephemeral. Immutable.';
  Object.assign(storageDefinitions, {
    [`${p}CSIDriverSpec`]: obj('How the cluster talks to a CSI driver.', {
      attachRequired: bool('The driver needs an attach step (ControllerPublishVolume). Defaults to true. Immutable.'),
      fsGroupPolicy: oneOf('Whether fsGroup ownership changes apply: ReadWriteOnceWithFSType (the default), File or None. Immutable.', ['File', 'None', 'ReadWriteOnceWithFSType']),
      nodeAllocatableUpdatePeriodSeconds: int64('How often the kubelet refreshes the allocatable volume count of the driver; unset means never.'),
      podInfoOnMount: bool('The kubelet passes pod information to NodePublishVolume. Defaults to false.'),
      requiresRepublish: bool('NodePublishVolume is called again periodically. Defaults to false.'),
      seLinuxMount: bool('The driver supports the SELinux context mount option. Defaults to false.'),
      storageCapacity: bool('The scheduler considers the CSIStorageCapacity objects of the driver. Defaults to false.'),
      tokenRequests: atomic(ref(`${p}TokenRequest`), 'Service account tokens passed to NodePublishVolume.'),
      volumeLifecycleModes: version === 'v1' ? set(str(), modesDesc) : atomic(str(), modesDesc),
    }),
    [`${p}TokenRequest`]: obj(
      'A service account token a CSI driver wants.',
      {
        audience: str('Audience of the token.'),
        expirationSeconds: int64('Lifetime of the token in seconds; at least 600.'),
      },
      { required: ['audience'] },
    ),
    [`${p}CSINodeSpec`]: obj(
      'The CSI drivers on a node.',
      { drivers: mergeList(ref(`${p}CSINodeDriver`), 'name', 'Drivers registered on the node; entries are immutable.') },
      { required: ['drivers'] },
    ),
    [`${p}CSINodeDriver`]: obj(
      'A CSI driver registered on a node.',
      {
        allocatable: ref(`${p}VolumeNodeResources`, 'Volume limits of the driver on the node.'),
        name: str('Name of the driver.'),
        nodeID: str('Identity of the node as the driver knows it.'),
        topologyKeys: atomic(str(), 'Topology labels the driver supports.'),
      },
      { required: ['name', 'nodeID'] },
    ),
    [`${p}VolumeNodeResources`]: obj('Volume limits of a driver on a node.', {
      count: int32('Most volumes of the driver a node may use; unset means unlimited.'),
    }),
  });
  addKind(storageDefinitions, p, { group: 'storage.k8s.io', version, kind: 'CSIDriver' }, 'A CSI volume driver installed in the cluster.', {
    spec: ref(`${p}CSIDriverSpec`, 'Settings of the driver.'),
  }, ['spec']);
  addKind(storageDefinitions, p, { group: 'storage.k8s.io', version, kind: 'CSINode' }, 'The CSI drivers of a node; named after the node.', {
    spec: ref(`${p}CSINodeSpec`, 'The drivers.'),
  }, ['spec']);
}

function addCsiStorageCapacity(p: string, version: string): void {
  addKind(storageDefinitions, p, { group: 'storage.k8s.io', version, kind: 'CSIStorageCapacity' }, 'Storage a CSI driver has left for one class in one topology segment.', {
    capacity: quantity('Capacity reported by the driver for new volumes; unset means unknown.'),
    maximumVolumeSize: quantity('Largest volume that can be created; unset means capacity is the limit.'),
    nodeTopology: ref(meta('LabelSelector'), 'Nodes that can reach the storage; unset means none.'),
    storageClassName: str('StorageClass the capacity applies to. Immutable.'),
  }, ['storageClassName']);
}

for (const version of ['v1', 'v1beta1', 'v1alpha1']) {
  const p = `${S}${version}.`;
  if (version !== 'v1alpha1') {
    addStorageClass(p, version);
    addCsiDriverAndNode(p, version);
  }
  addVolumeAttachment(p, version);
  addCsiStorageCapacity(p, version);
}
