/**
 * core/v1 PersistentVolume (cluster-scoped): kube's defaults (reclaim policy Retain, volume mode
 * Filesystem, phase Pending), validation (ValidatePersistentVolume and the plugin check of the
 * mount-options annotation), update rules (sources, volumeMode and a set nodeAffinity are fixed)
 * and kubectl's table.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, immutable, invalid, notSupported, required } from '../../validation/field-errors';
import { jsonEqual } from '../../json-value';
import { validateNodeSelector } from '../node-selector';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { clone, ensureObj, isObj, objAt, str } from '../util';
import type { Obj } from '../util';
import { defaultPersistentVolumeSources, persistentVolumeSourceOf, validatePersistentVolumeSources } from './persistentvolume-sources';
import { parseQuantity, quantityText } from './quantity';
import { accessModesText, storageClassOf, validateAccessModes, validateClassName, validateVolumeMode } from './volume-common';

const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const MOUNT_OPTION_ANNOTATION = 'volume.beta.kubernetes.io/mount-options';
/** the sources whose plugins take mount options (kube's checkMountOption) */
const MOUNTABLE = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs', 'azureFile',
  'vsphereVolume', 'azureDisk', 'photonPersistentDisk',
];

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
  defaultPersistentVolumeSources(spec);
  const status = ensureObj(obj, 'status');
  if (!status.phase) status.phase = 'Pending';
}

function validateCapacity(capacity: unknown, p: string): StatusCause[] {
  const cap = isObj(capacity) ? capacity : {};
  const causes: StatusCause[] = [];
  const keys = Object.keys(cap);
  if (keys.length === 0) causes.push(required(p, ''));
  if (!keys.includes('storage') || keys.length > 1) causes.push(notSupported(p, cap, ['storage']));
  for (const k of keys) {
    const q = parseQuantity(cap[k]);
    if (q !== undefined && q <= 0) causes.push(invalid(`${p}[${k}]`, quantityText(cap[k]), 'must be greater than zero'));
  }
  return causes;
}

/** kube's ValidatePersistentVolumeSpec for a standalone volume, then the mount-options plugin check */
function validatePersistentVolume(obj: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes: StatusCause[] = [...validateAccessModes(spec.accessModes, 'spec.accessModes', '')];
  causes.push(...validateCapacity(spec.capacity, 'spec.capacity'));
  const policy = spec.persistentVolumeReclaimPolicy;
  if (typeof policy === 'string' && policy !== '' && !RECLAIM_POLICIES.includes(policy)) {
    causes.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  }
  const affinity = spec.nodeAffinity;
  if (affinity !== undefined && affinity !== null) {
    const req = objAt(affinity, 'required');
    if (req) causes.push(...validateNodeSelector(req, 'spec.nodeAffinity.required'));
    else causes.push(required('spec.nodeAffinity.required', 'must specify required node constraints'));
  }
  causes.push(...validatePersistentVolumeSources(spec, 'spec'));
  if (isObj(spec.local) && (affinity === undefined || affinity === null)) {
    causes.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  const hostPath = objAt(spec, 'hostPath');
  if (hostPath && str(hostPath.path).replace(/\/+$/, '') === '' && str(hostPath.path).startsWith('/') && policy === 'Recycle') {
    causes.push(forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  causes.push(...validateClassName(spec.storageClassName, 'spec.storageClassName'));
  causes.push(...validateVolumeMode(spec.volumeMode, 'spec.volumeMode'));
  const annotations = obj.metadata?.annotations ?? {};
  if (Object.hasOwn(annotations, MOUNT_OPTION_ANNOTATION) && !MOUNTABLE.some((s) => isObj(spec[s]))) {
    causes.push(forbidden(`metadata.annotations.${MOUNT_OPTION_ANNOTATION}`, 'may not specify mount options for this volume type'));
  }
  return causes;
}

/** kube's ValidatePersistentVolumeUpdate (its odd paths `volumeMode` and `nodeAffinity` included) */
function validateUpdate(obj: KubeObject, old: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const oldSpec = objAt(old, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const source = clone(persistentVolumeSourceOf(spec));
  const oldSource = persistentVolumeSourceOf(oldSpec);
  // a CSI volume may gain a controllerExpandSecretRef it did not have
  if (isObj(oldSource.csi) && oldSource.csi.controllerExpandSecretRef == null && isObj(source.csi)) {
    delete (source.csi as Obj).controllerExpandSecretRef;
  }
  if (!jsonEqual(source, oldSource)) causes.push(forbidden('spec.persistentvolumesource', 'is immutable after creation'));
  causes.push(...immutable('volumeMode', spec.volumeMode, oldSpec.volumeMode));
  if (oldSpec.nodeAffinity !== undefined && oldSpec.nodeAffinity !== null) {
    causes.push(...immutable('nodeAffinity', spec.nodeAffinity, oldSpec.nodeAffinity));
  }
  return causes;
}

export function persistentVolumeKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'PersistentVolume',
    listKind: 'PersistentVolumeList',
    resource: 'persistentvolumes',
    singular: 'persistentvolume',
    namespaced: false,
    shortNames: ['pv'],
    categories: [],
    storage: { group: '', resource: 'persistentvolumes' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.PersistentVolume',
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults,
      prepareForCreate(obj) {
        // kube's PrepareForCreate: a fresh status, Pending since now
        obj.status = { phase: 'Pending', lastPhaseTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') };
      },
      validate(obj, old) {
        const causes = validatePersistentVolume(obj);
        if (old) causes.push(...validateUpdate(obj, old));
        return causes;
      },
      validateStatus: () => [],
    },
    // kube's PersistentVolumeToSelectableFields keeps a bare `name` for old clients
    selectableFields: (obj) => ({ name: str(obj.metadata?.name) }),
    table: {
      columns: [
        nameColumn(),
        column('Capacity', 'string', 'Capacity of the volume (storage).'),
        column('Access Modes', 'string', 'Ways the volume can be mounted.'),
        column('Reclaim Policy', 'string', 'What happens to the volume when its claim is released.'),
        column('Status', 'string', 'Lifecycle phase of the volume.'),
        column('Claim', 'string', 'The claim bound to this volume.'),
        column('StorageClass', 'string', 'StorageClass of the pv'),
        column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
        column('Reason', 'string', 'Short reason of a failure.'),
        ageColumn(),
        column('VolumeMode', 'string', 'Block or Filesystem.', 1),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const status = objAt(obj, 'status') ?? {};
        const claimRef = objAt(spec, 'claimRef');
        const claim = claimRef ? `${str(claimRef.namespace)}/${str(claimRef.name)}` : '';
        const phase = obj.metadata?.deletionTimestamp ? 'Terminating' : str(status.phase);
        const vac = typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>';
        const mode = typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>';
        return [
          str(obj.metadata?.name),
          quantityText(objAt(spec, 'capacity')?.storage),
          accessModesText(spec.accessModes),
          str(spec.persistentVolumeReclaimPolicy),
          phase,
          claim,
          storageClassOf(obj),
          vac,
          str(status.reason),
          age(obj, now),
          mode,
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
