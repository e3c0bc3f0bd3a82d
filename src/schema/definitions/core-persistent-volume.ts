/** core/v1 PersistentVolume and the volume sources only a PersistentVolume has. */
import type { Definitions, SchemaNode } from '../types';
import { addKind, atomic, bool, core, int32, map, obj, oneOf, ref, resourceList, str, time } from '../dsl';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

const fsType = (dflt = ''): SchemaNode => str(`Filesystem type to mount, e.g. ext4 or xfs${dflt ? `. Defaults to ${dflt}` : ''}.`);
const readOnly = (): SchemaNode => bool('Mount read-only.');
const secretRef = (desc = 'Secret with the credentials.'): SchemaNode => ref(core('SecretReference'), desc);

/** field -> [definition, description], in kube's PersistentVolumeSource field order */
const SOURCES: Record<string, [string, string]> = {
  gcePersistentDisk: ['GCEPersistentDiskVolumeSource', 'Deprecated: a GCE persistent disk.'],
  awsElasticBlockStore: ['AWSElasticBlockStoreVolumeSource', 'Deprecated: an AWS EBS volume.'],
  hostPath: ['HostPathVolumeSource', 'A directory of one node; for single-node testing only.'],
  glusterfs: ['GlusterfsPersistentVolumeSource', 'Deprecated: a GlusterFS volume.'],
  nfs: ['NFSVolumeSource', 'An NFS export.'],
  rbd: ['RBDPersistentVolumeSource', 'Deprecated: a Ceph RBD image.'],
  iscsi: ['ISCSIPersistentVolumeSource', 'An iSCSI disk.'],
  cinder: ['CinderPersistentVolumeSource', 'Deprecated: an OpenStack Cinder volume.'],
  cephfs: ['CephFSPersistentVolumeSource', 'Deprecated: a CephFS mount.'],
  fc: ['FCVolumeSource', 'A Fibre Channel disk.'],
  flocker: ['FlockerVolumeSource', 'Deprecated: a Flocker dataset.'],
  flexVolume: ['FlexPersistentVolumeSource', 'Deprecated: a volume from a FlexVolume driver.'],
  azureFile: ['AzureFilePersistentVolumeSource', 'Deprecated: an Azure File share.'],
  vsphereVolume: ['VsphereVirtualDiskVolumeSource', 'Deprecated: a vSphere disk.'],
  quobyte: ['QuobyteVolumeSource', 'Deprecated: a Quobyte volume.'],
  azureDisk: ['AzureDiskVolumeSource', 'Deprecated: an Azure data disk.'],
  photonPersistentDisk: ['PhotonPersistentDiskVolumeSource', 'Deprecated: a Photon disk.'],
  portworxVolume: ['PortworxVolumeSource', 'Deprecated: a Portworx volume.'],
  scaleIO: ['ScaleIOPersistentVolumeSource', 'Deprecated: a ScaleIO volume.'],
  local: ['LocalVolumeSource', 'A disk, partition or directory of one node; needs nodeAffinity.'],
  storageos: ['StorageOSPersistentVolumeSource', 'Deprecated: a StorageOS volume.'],
  csi: ['CSIPersistentVolumeSource', 'A volume of a CSI driver.'],
};

/** the persistent volume source fields (inlined into PersistentVolumeSpec, as kube's JSON does) */
export const PERSISTENT_VOLUME_SOURCES: readonly string[] = Object.keys(SOURCES);

const sourceProps: Record<string, SchemaNode> = {};
for (const [field, [def, desc]] of Object.entries(SOURCES)) sourceProps[field] = ref(core(def), desc);

export const corePersistentVolumeDefinitions: Definitions = {
  [core('PersistentVolumeSpec')]: obj('What a PersistentVolume offers and where its storage lives.', {
    accessModes: atomic(oneOf('Access mode.', ACCESS_MODES), 'Ways the volume can be mounted.'),
    capacity: resourceList('Size of the volume (storage).'),
    // kube marks claimRef granular although ObjectReference is atomic elsewhere: the binder sets fields one by one
    claimRef: { ...ref(core('ObjectReference'), 'The claim bound to this volume, or reserved for it.'), 'x-kubernetes-map-type': 'granular' },
    mountOptions: atomic(str(), 'Mount options, e.g. ro or soft; not validated.'),
    nodeAffinity: ref(core('VolumeNodeAffinity'), 'Nodes the volume can be reached from.'),
    persistentVolumeReclaimPolicy: oneOf('What happens when the claim is released: Retain (default), Delete or Recycle.', [
      'Delete', 'Recycle', 'Retain',
    ]),
    storageClassName: str('StorageClass this volume belongs to; empty means no class.'),
    volumeAttributesClassName: str('VolumeAttributesClass of the volume.'),
    volumeMode: oneOf('Block or Filesystem. Defaults to Filesystem.', ['Block', 'Filesystem']),
    ...sourceProps,
  }),
  [core('PersistentVolumeStatus')]: obj('Observed state of a PersistentVolume.', {
    lastPhaseTransitionTime: time('When the phase last changed.'),
    message: str('Human-readable reason of the state.'),
    phase: oneOf('Lifecycle phase of the volume.', ['Available', 'Bound', 'Failed', 'Pending', 'Released']),
    reason: str('Short, machine-readable reason of a failure.'),
  }),
  [core('VolumeNodeAffinity')]: obj('Nodes a volume can be reached from.', {
    required: ref(core('NodeSelector'), 'Hard constraint on the nodes.'),
  }),
  [core('GlusterfsPersistentVolumeSource')]: obj(
    'A GlusterFS volume.',
    {
      endpoints: str('Endpoints object naming the cluster.'),
      endpointsNamespace: str('Namespace of the Endpoints object; defaults to the claim namespace.'),
      path: str('Volume path.'),
      readOnly: readOnly(),
    },
    { required: ['endpoints', 'path'] },
  ),
  [core('RBDPersistentVolumeSource')]: obj(
    'A Ceph RBD image.',
    {
      fsType: fsType(),
      image: str('Image name.'),
      keyring: str('Keyring path. Defaults to /etc/ceph/keyring.', { default: '/etc/ceph/keyring' }),
      monitors: atomic(str(), 'Ceph monitors.'),
      pool: str('Pool name. Defaults to rbd.', { default: 'rbd' }),
      readOnly: readOnly(),
      secretRef: secretRef(),
      user: str('Ceph user. Defaults to admin.', { default: 'admin' }),
    },
    { required: ['monitors', 'image'] },
  ),
  [core('ISCSIPersistentVolumeSource')]: obj(
    'An iSCSI disk.',
    {
      chapAuthDiscovery: bool('Use CHAP for discovery.'),
      chapAuthSession: bool('Use CHAP for the session.'),
      fsType: fsType(),
      initiatorName: str('Custom initiator name.'),
      iqn: str('Target IQN.'),
      iscsiInterface: str('iSCSI interface. Defaults to default.', { default: 'default' }),
      lun: int32('Target LUN.'),
      portals: atomic(str(), 'Extra target portals.'),
      readOnly: readOnly(),
      secretRef: secretRef('CHAP credentials.'),
      targetPortal: str('Target portal, ip[:port].'),
    },
    { required: ['targetPortal', 'iqn', 'lun'] },
  ),
  [core('CinderPersistentVolumeSource')]: obj(
    'An OpenStack Cinder volume.',
    { fsType: fsType(), readOnly: readOnly(), secretRef: secretRef(), volumeID: str('Id of the volume.') },
    { required: ['volumeID'] },
  ),
  [core('CephFSPersistentVolumeSource')]: obj(
    'A CephFS mount.',
    {
      monitors: atomic(str(), 'Ceph monitors.'),
      path: str('Root of the mount. Defaults to /.'),
      readOnly: readOnly(),
      secretFile: str('Keyring path. Defaults to /etc/ceph/user.secret.'),
      secretRef: secretRef(),
      user: str('Ceph user. Defaults to admin.'),
    },
    { required: ['monitors'] },
  ),
  [core('FlexPersistentVolumeSource')]: obj(
    'A FlexVolume driver volume.',
    {
      driver: str('Driver name.'),
      fsType: fsType(),
      options: map('Driver options.'),
      readOnly: readOnly(),
      secretRef: secretRef(),
    },
    { required: ['driver'] },
  ),
  [core('AzureFilePersistentVolumeSource')]: obj(
    'An Azure File share.',
    {
      readOnly: readOnly(),
      secretName: str('Secret with the account name and key.'),
      secretNamespace: str('Namespace of that Secret; defaults to the pod namespace.'),
      shareName: str('Share name.'),
    },
    { required: ['secretName', 'shareName'] },
  ),
  [core('ScaleIOPersistentVolumeSource')]: obj(
    'A ScaleIO volume.',
    {
      fsType: str('Filesystem type. Defaults to xfs.', { default: 'xfs' }),
      gateway: str('Gateway address.'),
      protectionDomain: str('Protection domain.'),
      readOnly: readOnly(),
      secretRef: secretRef(),
      sslEnabled: bool('Use TLS to the gateway.'),
      storageMode: str('ThickProvisioned or ThinProvisioned. Defaults to ThinProvisioned.', { default: 'ThinProvisioned' }),
      storagePool: str('Storage pool.'),
      system: str('Storage system name.'),
      volumeName: str('Volume name.'),
    },
    { required: ['gateway', 'system', 'secretRef'] },
  ),
  [core('StorageOSPersistentVolumeSource')]: obj('A StorageOS volume.', {
    fsType: fsType(),
    readOnly: readOnly(),
    secretRef: ref(core('ObjectReference'), 'Secret with the API credentials.'),
    volumeName: str('Volume name.'),
    volumeNamespace: str('StorageOS namespace of the volume.'),
  }),
  [core('LocalVolumeSource')]: obj(
    'A local disk, partition or directory.',
    {
      fsType: str('Filesystem type, for block devices only; detected when empty.'),
      path: str('Full path of the volume on the node.'),
    },
    { required: ['path'] },
  ),
  [core('CSIPersistentVolumeSource')]: obj(
    'A volume managed by a CSI driver.',
    {
      controllerExpandSecretRef: secretRef('Secret passed to ControllerExpandVolume.'),
      controllerPublishSecretRef: secretRef('Secret passed to ControllerPublishVolume and ControllerUnpublishVolume.'),
      driver: str('Name of the CSI driver.'),
      fsType: fsType(),
      nodeExpandSecretRef: secretRef('Secret passed to NodeExpandVolume.'),
      nodePublishSecretRef: secretRef('Secret passed to NodePublishVolume and NodeUnpublishVolume.'),
      nodeStageSecretRef: secretRef('Secret passed to NodeStageVolume, NodeUnstageVolume and NodeUnpublishVolume.'),
      readOnly: bool('Publish read-only. Defaults to false.'),
      volumeAttributes: map('Driver-specific properties of the volume.'),
      volumeHandle: str('The driver\'s own id of the volume.'),
    },
    { required: ['driver', 'volumeHandle'] },
  ),
};

addKind(corePersistentVolumeDefinitions, core(''), { group: '', version: 'v1', kind: 'PersistentVolume' }, 'A piece of storage in the cluster, provisioned by an administrator or a StorageClass.', {
  spec: ref(core('PersistentVolumeSpec'), 'What the volume offers.'),
  status: ref(core('PersistentVolumeStatus'), 'Observed state. Read-only.'),
});
