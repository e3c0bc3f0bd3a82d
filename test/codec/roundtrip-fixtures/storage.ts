/** round-trip fixtures of storage.k8s.io, every kind and version */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';

const storageClass = (version: string) => ({
  apiVersion: `storage.k8s.io/${version}`,
  kind: 'StorageClass',
  metadata: { ...fixtureMeta('standard'), annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: 'ebs.csi.aws.com',
  parameters: { type: 'gp3', encrypted: 'true' },
  reclaimPolicy: 'Retain',
  mountOptions: ['noatime'],
  allowVolumeExpansion: false,
  volumeBindingMode: 'WaitForFirstConsumer',
  allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.ebs.csi.aws.com/zone', values: ['eu-west-1a', 'eu-west-1b'] }] }],
});

const volumeAttachment = (version: string, inline: boolean) => ({
  apiVersion: `storage.k8s.io/${version}`,
  kind: 'VolumeAttachment',
  metadata: fixtureMeta('csi-0a1b2c'),
  spec: {
    attacher: 'ebs.csi.aws.com',
    nodeName: 'node-1',
    source: inline
      ? { inlineVolumeSpec: { accessModes: ['ReadWriteOnce'], csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0123', fsType: 'ext4', readOnly: true, volumeAttributes: { a: 'b' }, nodePublishSecretRef: { name: 's', namespace: 'kube-system' } } } }
      : { persistentVolumeName: 'pvc-0a1b2c' },
  },
  status: {
    attached: false,
    attachmentMetadata: { devicePath: '/dev/xvdba' },
    attachError: { time: '2024-05-01T10:00:00Z', message: 'timed out', errorCode: 4 },
    detachError: { message: 'busy' },
  },
});

const csiDriver = (version: string) => ({
  apiVersion: `storage.k8s.io/${version}`,
  kind: 'CSIDriver',
  metadata: fixtureMeta('ebs.csi.aws.com'),
  spec: {
    attachRequired: true,
    podInfoOnMount: false,
    volumeLifecycleModes: ['Persistent', 'Ephemeral'],
    storageCapacity: true,
    fsGroupPolicy: 'File',
    tokenRequests: [{ audience: 'sts.amazonaws.com', expirationSeconds: 3600 }, { audience: 'vault' }],
    requiresRepublish: false,
    seLinuxMount: true,
    nodeAllocatableUpdatePeriodSeconds: 60,
  },
});

const csiNode = (version: string) => ({
  apiVersion: `storage.k8s.io/${version}`,
  kind: 'CSINode',
  metadata: fixtureMeta('node-1'),
  spec: {
    drivers: [
      { name: 'ebs.csi.aws.com', nodeID: 'i-0123456789', topologyKeys: ['topology.ebs.csi.aws.com/zone'], allocatable: { count: 25 } },
      { name: 'efs.csi.aws.com', nodeID: 'i-0123456789', topologyKeys: [] },
    ],
  },
});

const capacity = (version: string) => ({
  apiVersion: `storage.k8s.io/${version}`,
  kind: 'CSIStorageCapacity',
  metadata: fixtureMeta('csisc-9x8w', 'kube-system'),
  nodeTopology: { matchLabels: { 'topology.ebs.csi.aws.com/zone': 'eu-west-1a' } },
  storageClassName: 'standard',
  capacity: '1Ti',
  maximumVolumeSize: '16Ti',
});

export const storageFixtures: Fixtures = {
  'storage.k8s.io/v1/StorageClass': storageClass('v1'),
  'storage.k8s.io/v1beta1/StorageClass': storageClass('v1beta1'),
  'storage.k8s.io/v1/VolumeAttachment': volumeAttachment('v1', false),
  'storage.k8s.io/v1beta1/VolumeAttachment': volumeAttachment('v1beta1', true),
  'storage.k8s.io/v1alpha1/VolumeAttachment': volumeAttachment('v1alpha1', false),
  'storage.k8s.io/v1/CSIDriver': csiDriver('v1'),
  'storage.k8s.io/v1beta1/CSIDriver': csiDriver('v1beta1'),
  'storage.k8s.io/v1/CSINode': csiNode('v1'),
  'storage.k8s.io/v1beta1/CSINode': csiNode('v1beta1'),
  'storage.k8s.io/v1/CSIStorageCapacity': capacity('v1'),
  'storage.k8s.io/v1beta1/CSIStorageCapacity': capacity('v1beta1'),
  'storage.k8s.io/v1alpha1/CSIStorageCapacity': capacity('v1alpha1'),
};
