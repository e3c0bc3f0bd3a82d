/**
 * PLACEHOLDER, to be replaced at merge: core/v1 definitions the storage.k8s.io kinds reference and
 * that another branch (core PersistentVolume) adds in full.
 *
 * - PersistentVolumeSpec (VolumeAttachmentSource.inlineVolumeSpec) and CSIPersistentVolumeSource:
 *   a subset of kube's fields (the ones an inline CSI volume of a VolumeAttachment uses). Drop this
 *   part when core-pv (or its equivalent) defines them.
 * - TopologySelectorTerm and TopologySelectorLabelRequirement (StorageClass.allowedTopologies):
 *   complete; keep them unless the core branch defines them too (the merge then reports
 *   "schema definition ... is defined twice").
 *
 * The protobuf messages of these types come from kube's sources in full either way (the generator
 * keeps every field of a reached message), so only validation and documents see the subset.
 */
import type { Definitions } from '../types';
import { atomic, bool, core, map, obj, oneOf, ref, resourceList, str } from '../dsl';

export const corePvPlaceholderDefinitions: Definitions = {
  [core('PersistentVolumeSpec')]: obj('The specification of a persistent volume (subset: see the file comment).', {
    accessModes: atomic(oneOf('Access mode.', ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']), 'Ways the volume can be mounted.'),
    capacity: resourceList('Size of the volume.'),
    claimRef: ref(core('ObjectReference'), 'The claim bound to the volume.'),
    csi: ref(core('CSIPersistentVolumeSource'), 'A volume of an external CSI driver.'),
    mountOptions: atomic(str(), 'Mount options, e.g. ro or soft.'),
    persistentVolumeReclaimPolicy: oneOf('What happens to the volume when its claim goes: Retain, Delete or Recycle.', ['Delete', 'Recycle', 'Retain']),
    storageClassName: str('StorageClass the volume belongs to.'),
    volumeAttributesClassName: str('VolumeAttributesClass of the volume.'),
    volumeMode: oneOf('Block or Filesystem. Defaults to Filesystem.', ['Block', 'Filesystem']),
  }),
  [core('CSIPersistentVolumeSource')]: obj(
    'A volume managed by an external CSI driver.',
    {
      controllerExpandSecretRef: ref(core('SecretReference'), 'Secret passed to ControllerExpandVolume.'),
      controllerPublishSecretRef: ref(core('SecretReference'), 'Secret passed to ControllerPublishVolume.'),
      driver: str('Name of the driver.'),
      fsType: str('File system type, e.g. ext4.'),
      nodeExpandSecretRef: ref(core('SecretReference'), 'Secret passed to NodeExpandVolume.'),
      nodePublishSecretRef: ref(core('SecretReference'), 'Secret passed to NodePublishVolume.'),
      nodeStageSecretRef: ref(core('SecretReference'), 'Secret passed to NodeStageVolume.'),
      readOnly: bool('Mount read-only. Defaults to false.'),
      volumeAttributes: map('Driver-specific attributes of the volume.'),
      volumeHandle: str('Driver-specific identity of the volume.'),
    },
    { required: ['driver', 'volumeHandle'] },
  ),
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
