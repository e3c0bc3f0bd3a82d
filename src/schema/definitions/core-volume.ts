/** core/v1 Volume and every pod volume source. */
import type { Definitions, SchemaNode } from '../types';
import {
  atomic, bool, core, int32, int64, map, meta, obj, objectMeta, oneOf, quantity, ref, str,
} from '../dsl';

const fsType = (dflt = ''): SchemaNode => str(`Filesystem type to mount, e.g. ext4 or xfs${dflt ? `. Defaults to ${dflt}` : ''}.`);
const readOnly = (): SchemaNode => bool('Mount read-only.');
const localSecret = (): SchemaNode => ref(core('LocalObjectReference'), 'Secret with the credentials.');
const items = (): SchemaNode => atomic(ref(core('KeyToPath')), 'Keys to project and their paths; all keys when empty.');
const defaultMode = (): SchemaNode => int32('Permission bits for created files (0000-0777). Defaults to 0644.');

/** source name -> definition name, in kube's field order */
const SOURCES: Record<string, [string, string]> = {
  hostPath: ['HostPathVolumeSource', 'A file or directory of the node.'],
  emptyDir: ['EmptyDirVolumeSource', 'A fresh directory that lives as long as the pod.'],
  gcePersistentDisk: ['GCEPersistentDiskVolumeSource', 'Deprecated: a GCE persistent disk.'],
  awsElasticBlockStore: ['AWSElasticBlockStoreVolumeSource', 'Deprecated: an AWS EBS volume.'],
  gitRepo: ['GitRepoVolumeSource', 'Deprecated: a git repository checked out at start.'],
  secret: ['SecretVolumeSource', 'The keys of a Secret as files.'],
  nfs: ['NFSVolumeSource', 'An NFS export.'],
  iscsi: ['ISCSIVolumeSource', 'An iSCSI disk.'],
  glusterfs: ['GlusterfsVolumeSource', 'Deprecated: a GlusterFS volume.'],
  persistentVolumeClaim: ['PersistentVolumeClaimVolumeSource', 'The volume bound to a PersistentVolumeClaim.'],
  rbd: ['RBDVolumeSource', 'Deprecated: a Ceph RBD image.'],
  flexVolume: ['FlexVolumeSource', 'Deprecated: a volume from a FlexVolume driver.'],
  cinder: ['CinderVolumeSource', 'Deprecated: an OpenStack Cinder volume.'],
  cephfs: ['CephFSVolumeSource', 'Deprecated: a CephFS mount.'],
  flocker: ['FlockerVolumeSource', 'Deprecated: a Flocker dataset.'],
  downwardAPI: ['DownwardAPIVolumeSource', 'Pod fields as files.'],
  fc: ['FCVolumeSource', 'A Fibre Channel disk.'],
  azureFile: ['AzureFileVolumeSource', 'Deprecated: an Azure File share.'],
  configMap: ['ConfigMapVolumeSource', 'The keys of a ConfigMap as files.'],
  vsphereVolume: ['VsphereVirtualDiskVolumeSource', 'Deprecated: a vSphere disk.'],
  quobyte: ['QuobyteVolumeSource', 'Deprecated: a Quobyte volume.'],
  azureDisk: ['AzureDiskVolumeSource', 'Deprecated: an Azure data disk.'],
  photonPersistentDisk: ['PhotonPersistentDiskVolumeSource', 'Deprecated: a Photon disk.'],
  projected: ['ProjectedVolumeSource', 'Several sources projected into one directory.'],
  portworxVolume: ['PortworxVolumeSource', 'Deprecated: a Portworx volume.'],
  scaleIO: ['ScaleIOVolumeSource', 'Deprecated: a ScaleIO volume.'],
  storageos: ['StorageOSVolumeSource', 'Deprecated: a StorageOS volume.'],
  csi: ['CSIVolumeSource', 'An inline volume from a CSI driver.'],
  ephemeral: ['EphemeralVolumeSource', 'A volume from a claim created and deleted with the pod.'],
  image: ['ImageVolumeSource', 'The content of an OCI image or artifact, read-only.'],
};

const sourceProps: Record<string, SchemaNode> = {};
for (const [field, [def, desc]] of Object.entries(SOURCES)) sourceProps[field] = ref(core(def), desc);

export const coreVolumeDefinitions: Definitions = {
  [core('Volume')]: obj(
    'A named volume of a pod; exactly one source field is set.',
    { name: str('Name of the volume, a DNS label unique in the pod.'), ...sourceProps },
    { required: ['name'] },
  ),
  [core('KeyToPath')]: obj(
    'Maps one key to a relative file path.',
    {
      key: str('The key.'),
      mode: int32('Permission bits of the file (0000-0777).'),
      path: str('Relative path of the file; no .. elements.'),
    },
    { required: ['key', 'path'] },
  ),
  [core('HostPathVolumeSource')]: obj(
    'A node path mounted into the pod.',
    {
      path: str('Path on the node; symlinks are followed.'),
      type: oneOf('What must exist at the path. Empty means no check.', [
        '', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket',
      ]),
    },
    { required: ['path'] },
  ),
  [core('EmptyDirVolumeSource')]: obj('A scratch directory.', {
    medium: str('Storage medium: empty for node default, or Memory for tmpfs.'),
    sizeLimit: quantity('Most the directory may hold.'),
  }),
  [core('SecretVolumeSource')]: obj('Projects a Secret into files.', {
    defaultMode: defaultMode(),
    items: items(),
    optional: bool('When true, a missing Secret or key is not an error.'),
    secretName: str('Name of the Secret in the pod namespace.'),
  }),
  [core('ConfigMapVolumeSource')]: obj('Projects a ConfigMap into files.', {
    defaultMode: defaultMode(),
    items: items(),
    name: str('Name of the ConfigMap.', { default: '' }),
    optional: bool('When true, a missing ConfigMap or key is not an error.'),
  }),
  [core('PersistentVolumeClaimVolumeSource')]: obj(
    'Uses the volume bound to a claim in the pod namespace.',
    { claimName: str('Name of the claim.'), readOnly: bool('Force a read-only mount.') },
    { required: ['claimName'] },
  ),
  [core('DownwardAPIVolumeSource')]: obj('Pod information as files.', {
    defaultMode: defaultMode(),
    items: atomic(ref(core('DownwardAPIVolumeFile')), 'The files.'),
  }),
  [core('DownwardAPIVolumeFile')]: obj(
    'One file holding a pod field or a container resource.',
    {
      fieldRef: ref(core('ObjectFieldSelector'), 'The pod field (metadata.name, metadata.labels...).'),
      mode: int32('Permission bits of the file (0000-0777).'),
      path: str('Relative path of the file.'),
      resourceFieldRef: ref(core('ResourceFieldSelector'), 'A container resource limit or request.'),
    },
    { required: ['path'] },
  ),
  [core('ProjectedVolumeSource')]: obj('Several sources in one directory.', {
    defaultMode: defaultMode(),
    sources: atomic(ref(core('VolumeProjection')), 'The sources.'),
  }),
  [core('VolumeProjection')]: obj('One source of a projected volume; exactly one field is set.', {
    clusterTrustBundle: ref(core('ClusterTrustBundleProjection'), 'Certificates from ClusterTrustBundle objects.'),
    configMap: ref(core('ConfigMapProjection'), 'Keys of a ConfigMap.'),
    downwardAPI: ref(core('DownwardAPIProjection'), 'Pod fields.'),
    secret: ref(core('SecretProjection'), 'Keys of a Secret.'),
    serviceAccountToken: ref(core('ServiceAccountTokenProjection'), 'A bound service account token.'),
  }),
  [core('ConfigMapProjection')]: obj('ConfigMap keys in a projected volume.', {
    items: items(),
    name: str('Name of the ConfigMap.', { default: '' }),
    optional: bool('When true, a missing ConfigMap or key is not an error.'),
  }),
  [core('SecretProjection')]: obj('Secret keys in a projected volume.', {
    items: items(),
    name: str('Name of the Secret.', { default: '' }),
    optional: bool('When true, a missing Secret or key is not an error.'),
  }),
  [core('DownwardAPIProjection')]: obj('Pod fields in a projected volume.', {
    items: atomic(ref(core('DownwardAPIVolumeFile')), 'The files.'),
  }),
  [core('ServiceAccountTokenProjection')]: obj(
    'A token of the pod service account, refreshed by the node agent.',
    {
      audience: str('Intended audience; defaults to the API server.'),
      expirationSeconds: int64('Requested lifetime. Defaults to one hour; at least ten minutes.'),
      path: str('Relative path of the token file.'),
    },
    { required: ['path'] },
  ),
  [core('ClusterTrustBundleProjection')]: obj(
    'PEM certificates of ClusterTrustBundle objects.',
    {
      labelSelector: ref(meta('LabelSelector'), 'Bundles to include, by label.'),
      name: str('A single bundle by name.'),
      optional: bool('When true, missing bundles are not an error.'),
      path: str('Relative path of the file.'),
      signerName: str('Bundles of this signer.'),
    },
    { required: ['path'] },
  ),
  [core('NFSVolumeSource')]: obj(
    'An NFS export.',
    { path: str('Exported path.'), readOnly: readOnly(), server: str('Server hostname or address.') },
    { required: ['server', 'path'] },
  ),
  [core('CSIVolumeSource')]: obj(
    'An inline volume from a CSI driver.',
    {
      driver: str('Name of the CSI driver.'),
      fsType: fsType(),
      nodePublishSecretRef: ref(core('LocalObjectReference'), 'Secret passed to the driver when publishing.'),
      readOnly: bool('Read-only volume.'),
      volumeAttributes: map('Driver-specific properties.'),
    },
    { required: ['driver'] },
  ),
  [core('EphemeralVolumeSource')]: obj('A claim made from a template for the life of the pod.', {
    volumeClaimTemplate: ref(core('PersistentVolumeClaimTemplate'), 'Template of the claim, named <pod>-<volume>.'),
  }),
  [core('PersistentVolumeClaimTemplate')]: obj(
    'A template for a PersistentVolumeClaim.',
    {
      metadata: objectMeta('Labels and annotations copied to the claim.'),
      spec: ref(core('PersistentVolumeClaimSpec'), 'Spec of the claim.'),
    },
    { required: ['spec'] },
  ),
  [core('ImageVolumeSource')]: obj('An OCI image or artifact as a volume.', {
    pullPolicy: oneOf('When to pull the reference.', ['Always', 'IfNotPresent', 'Never']),
    reference: str('Image or artifact reference.'),
  }),
  [core('GCEPersistentDiskVolumeSource')]: obj(
    'A GCE persistent disk.',
    {
      fsType: fsType(),
      partition: int32('Partition number; 0 for the whole disk.'),
      pdName: str('Name of the disk.'),
      readOnly: readOnly(),
    },
    { required: ['pdName'] },
  ),
  [core('AWSElasticBlockStoreVolumeSource')]: obj(
    'An AWS EBS volume.',
    {
      fsType: fsType(),
      partition: int32('Partition number; 0 for the whole disk.'),
      readOnly: readOnly(),
      volumeID: str('Id of the volume.'),
    },
    { required: ['volumeID'] },
  ),
  [core('GitRepoVolumeSource')]: obj(
    'A git checkout.',
    {
      directory: str('Target directory name; . for the volume root.'),
      repository: str('Repository URL.'),
      revision: str('Commit to check out.'),
    },
    { required: ['repository'] },
  ),
  [core('ISCSIVolumeSource')]: obj(
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
      secretRef: ref(core('LocalObjectReference'), 'CHAP credentials.'),
      targetPortal: str('Target portal, ip[:port].'),
    },
    { required: ['targetPortal', 'iqn', 'lun'] },
  ),
  [core('GlusterfsVolumeSource')]: obj(
    'A GlusterFS volume.',
    {
      endpoints: str('Endpoints object naming the cluster.'),
      path: str('Volume path.'),
      readOnly: readOnly(),
    },
    { required: ['endpoints', 'path'] },
  ),
  [core('RBDVolumeSource')]: obj(
    'A Ceph RBD image.',
    {
      fsType: fsType(),
      image: str('Image name.'),
      keyring: str('Keyring path. Defaults to /etc/ceph/keyring.', { default: '/etc/ceph/keyring' }),
      monitors: atomic(str(), 'Ceph monitors.'),
      pool: str('Pool name. Defaults to rbd.', { default: 'rbd' }),
      readOnly: readOnly(),
      secretRef: localSecret(),
      user: str('Ceph user. Defaults to admin.', { default: 'admin' }),
    },
    { required: ['monitors', 'image'] },
  ),
  [core('FlexVolumeSource')]: obj(
    'A FlexVolume driver volume.',
    {
      driver: str('Driver name.'),
      fsType: fsType(),
      options: map('Driver options.'),
      readOnly: readOnly(),
      secretRef: localSecret(),
    },
    { required: ['driver'] },
  ),
  [core('CinderVolumeSource')]: obj(
    'An OpenStack Cinder volume.',
    { fsType: fsType(), readOnly: readOnly(), secretRef: localSecret(), volumeID: str('Id of the volume.') },
    { required: ['volumeID'] },
  ),
  [core('CephFSVolumeSource')]: obj(
    'A CephFS mount.',
    {
      monitors: atomic(str(), 'Ceph monitors.'),
      path: str('Root of the mount. Defaults to /.'),
      readOnly: readOnly(),
      secretFile: str('Keyring path. Defaults to /etc/ceph/user.secret.'),
      secretRef: localSecret(),
      user: str('Ceph user. Defaults to admin.'),
    },
    { required: ['monitors'] },
  ),
  [core('FlockerVolumeSource')]: obj('A Flocker dataset.', {
    datasetName: str('Dataset name.'),
    datasetUUID: str('Dataset UUID.'),
  }),
  [core('FCVolumeSource')]: obj('A Fibre Channel disk.', {
    fsType: fsType(),
    lun: int32('Target LUN.'),
    readOnly: readOnly(),
    targetWWNs: atomic(str(), 'Target world wide names.'),
    wwids: atomic(str(), 'Volume world wide ids; exclusive with targetWWNs and lun.'),
  }),
  [core('AzureFileVolumeSource')]: obj(
    'An Azure File share.',
    {
      readOnly: readOnly(),
      secretName: str('Secret with the account name and key.'),
      shareName: str('Share name.'),
    },
    { required: ['secretName', 'shareName'] },
  ),
  [core('VsphereVirtualDiskVolumeSource')]: obj(
    'A vSphere disk.',
    {
      fsType: fsType(),
      storagePolicyID: str('Storage policy id.'),
      storagePolicyName: str('Storage policy name.'),
      volumePath: str('Path of the disk.'),
    },
    { required: ['volumePath'] },
  ),
  [core('QuobyteVolumeSource')]: obj(
    'A Quobyte volume.',
    {
      group: str('Group to map access to.'),
      readOnly: readOnly(),
      registry: str('Registry services, host:port list.'),
      tenant: str('Tenant owning the volume.'),
      user: str('User to map access to.'),
      volume: str('Volume name.'),
    },
    { required: ['registry', 'volume'] },
  ),
  [core('AzureDiskVolumeSource')]: obj(
    'An Azure data disk.',
    {
      cachingMode: oneOf('Host caching mode.', ['None', 'ReadOnly', 'ReadWrite']),
      diskName: str('Disk name.'),
      diskURI: str('Disk URI.'),
      fsType: str('Filesystem type. Defaults to ext4.', { default: 'ext4' }),
      kind: oneOf('Disk kind.', ['Dedicated', 'Managed', 'Shared']),
      readOnly: bool('Mount read-only.', { default: false }),
    },
    { required: ['diskName', 'diskURI'] },
  ),
  [core('PhotonPersistentDiskVolumeSource')]: obj(
    'A Photon disk.',
    { fsType: fsType(), pdID: str('Disk id.') },
    { required: ['pdID'] },
  ),
  [core('PortworxVolumeSource')]: obj(
    'A Portworx volume.',
    { fsType: fsType(), readOnly: readOnly(), volumeID: str('Volume id.') },
    { required: ['volumeID'] },
  ),
  [core('ScaleIOVolumeSource')]: obj(
    'A ScaleIO volume.',
    {
      fsType: str('Filesystem type. Defaults to xfs.', { default: 'xfs' }),
      gateway: str('Gateway address.'),
      protectionDomain: str('Protection domain.'),
      readOnly: readOnly(),
      secretRef: localSecret(),
      sslEnabled: bool('Use TLS to the gateway.'),
      storageMode: str('ThickProvisioned or ThinProvisioned. Defaults to ThinProvisioned.', { default: 'ThinProvisioned' }),
      storagePool: str('Storage pool.'),
      system: str('Storage system name.'),
      volumeName: str('Volume name.'),
    },
    { required: ['gateway', 'system', 'secretRef'] },
  ),
  [core('StorageOSVolumeSource')]: obj('A StorageOS volume.', {
    fsType: fsType(),
    readOnly: readOnly(),
    secretRef: localSecret(),
    volumeName: str('Volume name.'),
    volumeNamespace: str('StorageOS namespace of the volume.'),
  }),
};
