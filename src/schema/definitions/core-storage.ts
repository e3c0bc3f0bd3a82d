/** core/v1 object references and PersistentVolumeClaim. */
import type { Definitions } from '../types';
import {
  addKind, atomic, core, map, meta, mergeList, obj, oneOf, ref, resourceList, str, time,
} from '../dsl';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

export const coreStorageDefinitions: Definitions = {
  [core('LocalObjectReference')]: obj(
    'Names an object in the same namespace.',
    { name: str('Name of the referent.', { default: '' }) },
    { atomic: true },
  ),
  [core('ObjectReference')]: obj(
    'A reference to any object, possibly one field of it.',
    {
      apiVersion: str('API version of the referent.'),
      fieldPath: str('A field of the referent, e.g. spec.containers{name}.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent.'),
      resourceVersion: str('The referent version meant, if one.'),
      uid: str('UID of the referent.'),
    },
    { atomic: true },
  ),
  [core('TypedLocalObjectReference')]: obj(
    'Names an object of a given kind in the same namespace.',
    {
      apiGroup: str('Group of the kind; empty for the core group.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
    },
    { required: ['kind', 'name'], atomic: true },
  ),
  [core('TypedObjectReference')]: obj(
    'Names an object of a given kind, possibly in another namespace.',
    {
      apiGroup: str('Group of the kind; empty for the core group.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      namespace: str('Namespace of the referent, when it differs.'),
    },
    { required: ['kind', 'name'] },
  ),
  [core('SecretReference')]: obj(
    'Names a Secret in any namespace.',
    { name: str('Name of the Secret.'), namespace: str('Namespace of the Secret.') },
    { atomic: true },
  ),
  [core('PersistentVolumeClaimSpec')]: obj('What storage a claim asks for.', {
    accessModes: atomic(oneOf('Access mode.', ACCESS_MODES), 'Access modes the volume must support.'),
    dataSource: ref(core('TypedLocalObjectReference'), 'Populate the volume from a snapshot or another claim.'),
    dataSourceRef: ref(core('TypedObjectReference'), 'Populate the volume from any populator object.'),
    resources: ref(core('VolumeResourceRequirements'), 'Minimum (and maximum) size.'),
    selector: ref(meta('LabelSelector'), 'Which existing volumes may bind.'),
    storageClassName: str('StorageClass to provision from; empty string means no class.'),
    volumeAttributesClassName: str('VolumeAttributesClass for the volume.'),
    volumeMode: oneOf('Block or Filesystem. Defaults to Filesystem.', ['Block', 'Filesystem']),
    volumeName: str('Binds to this PersistentVolume.'),
  }),
  [core('VolumeResourceRequirements')]: obj('Storage size bounds.', {
    limits: resourceList('Most storage allowed.'),
    requests: resourceList('Least storage needed.'),
  }),
  [core('PersistentVolumeClaimStatus')]: obj('Observed state of a claim.', {
    accessModes: atomic(oneOf('Access mode.', ACCESS_MODES), 'Access modes of the bound volume.'),
    allocatedResourceStatuses: map('Progress of resizes per resource.', { type: 'string' }, { mapType: 'granular' }),
    allocatedResources: resourceList('Sizes allocated, which may exceed the request.'),
    capacity: resourceList('Actual size of the bound volume.'),
    conditions: mergeList(ref(core('PersistentVolumeClaimCondition')), 'type', 'Current conditions, e.g. Resizing.'),
    currentVolumeAttributesClassName: str('VolumeAttributesClass in effect.'),
    modifyVolumeStatus: ref(core('ModifyVolumeStatus'), 'Progress of a volume class change.'),
    phase: oneOf('Lifecycle phase of the claim.', ['Bound', 'Lost', 'Pending']),
  }),
  [core('PersistentVolumeClaimCondition')]: obj(
    'A condition of a claim.',
    {
      lastProbeTime: time('When the condition was last probed.'),
      lastTransitionTime: time('When the condition last changed status.'),
      message: str('Human-readable details.'),
      reason: str('Machine-readable, CamelCase reason.'),
      status: str('True, False or Unknown.'),
      type: str('Type of the condition.'),
    },
    { required: ['type', 'status'] },
  ),
  [core('ModifyVolumeStatus')]: obj(
    'State of a volume class change.',
    {
      status: oneOf('Progress of the change.', ['InProgress', 'Infeasible', 'Pending']),
      targetVolumeAttributesClassName: str('Class being applied.'),
    },
    { required: ['status'] },
  ),
};

addKind(coreStorageDefinitions, core(''), { group: '', version: 'v1', kind: 'PersistentVolumeClaim' }, "A user's request for storage.", {
  spec: ref(core('PersistentVolumeClaimSpec'), 'Requested storage.'),
  status: ref(core('PersistentVolumeClaimStatus'), 'Observed state. Read-only.'),
});
