/**
 * core/v1 PersistentVolumeClaim: kube's defaults (volume mode Filesystem, phase Pending),
 * ValidatePersistentVolumeClaim, the update rules of kube 1.20 (the spec is fixed once created,
 * except setting volumeName once, moving the beta storage-class annotation into
 * spec.storageClassName, and growing resources.requests.storage of a bound claim), status
 * validation and kubectl's table.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, immutable, invalid, required } from '../../validation/field-errors';
import { jsonEqual } from '../../json-value';
import { validateLabelSelector } from '../label-selector';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { clone, ensureObj, isObj, objAt, str } from '../util';
import type { Obj } from '../util';
import { parseQuantity, quantityText } from './quantity';
import {
  BETA_STORAGE_CLASS_ANNOTATION, accessModesText, storageClassOf, validateAccessModes, validateClassName, validateVolumeMode,
} from './volume-common';

function validateDataSource(ds: unknown, field: string): StatusCause[] {
  const d = isObj(ds) ? ds : {};
  const causes: StatusCause[] = [];
  if (!str(d.name)) causes.push(required(`${field}.name`, ''));
  if (!str(d.kind)) causes.push(required(`${field}.kind`, ''));
  if (!str(d.apiGroup) && d.kind !== 'PersistentVolumeClaim') causes.push(invalid(field, str(d.kind), ''));
  return causes;
}

/** kube's ValidatePersistentVolumeClaimSpec */
export function validateClaimSpec(spec: Obj, field: string): StatusCause[] {
  const causes = validateAccessModes(spec.accessModes, `${field}.accessModes`, 'at least 1 access mode is required');
  if (spec.selector !== undefined && spec.selector !== null) causes.push(...validateLabelSelector(spec.selector, `${field}.selector`));
  const requests = objAt(objAt(spec, 'resources'), 'requests') ?? {};
  const storagePath = `${field}.resources[storage]`;
  if (!Object.hasOwn(requests, 'storage')) causes.push(required(storagePath, ''));
  else {
    const q = parseQuantity(requests.storage);
    if (q !== undefined && q <= 0) causes.push(invalid(storagePath, quantityText(requests.storage), 'must be greater than zero'));
  }
  causes.push(...validateClassName(spec.storageClassName, `${field}.storageClassName`));
  causes.push(...validateVolumeMode(spec.volumeMode, `${field}.volumeMode`));
  if (spec.dataSource != null) causes.push(...validateDataSource(spec.dataSource, `${field}.dataSource`));
  if (spec.dataSourceRef != null) causes.push(...validateDataSource(spec.dataSourceRef, `${field}.dataSourceRef`));
  if (spec.dataSource != null && spec.dataSourceRef != null && !jsonEqual(spec.dataSource, spec.dataSourceRef)) {
    causes.push(invalid(field, `${field}.dataSource`, 'must match dataSourceRef'));
  }
  return causes;
}

/** kube's validateStorageClassUpgrade: the beta annotation's class may move into the new field once */
function storageClassUpgrade(obj: KubeObject, old: KubeObject): boolean {
  const oldAnnotations = old.metadata?.annotations ?? {};
  const newAnnotations = obj.metadata?.annotations ?? {};
  if (!Object.hasOwn(oldAnnotations, BETA_STORAGE_CLASS_ANNOTATION)) return false;
  const oldClass = oldAnnotations[BETA_STORAGE_CLASS_ANNOTATION];
  const oldName = objAt(old, 'spec')?.storageClassName;
  const newName = objAt(obj, 'spec')?.storageClassName;
  if (oldName !== undefined && oldName !== null) return false;
  if (newName !== oldClass) return false;
  return !Object.hasOwn(newAnnotations, BETA_STORAGE_CLASS_ANNOTATION) || newAnnotations[BETA_STORAGE_CLASS_ANNOTATION] === oldClass;
}

/** kube 1.20's ValidatePersistentVolumeClaimUpdate (with volume expansion, on by default) */
function validateUpdate(obj: KubeObject, old: KubeObject): StatusCause[] {
  const spec = clone(objAt(obj, 'spec') ?? {});
  const oldSpec = clone(objAt(old, 'spec') ?? {});
  const causes: StatusCause[] = [];
  // the binder sets volumeName once
  if (!str(oldSpec.volumeName)) oldSpec.volumeName = spec.volumeName;
  if (storageClassUpgrade(obj, old)) {
    delete spec.storageClassName;
    delete oldSpec.storageClassName;
  } else {
    const now = obj.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? '';
    const before = old.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? '';
    if (now !== before) causes.push(invalid(`metadata.annotations.${BETA_STORAGE_CLASS_ANNOTATION}`, now, 'field is immutable'));
  }
  const oldStorage = objAt(objAt(oldSpec, 'resources'), 'requests')?.storage;
  const newStorage = objAt(objAt(spec, 'resources'), 'requests')?.storage;
  const requests = objAt(objAt(spec, 'resources'), 'requests');
  const bound = str(objAt(obj, 'status')?.phase) === 'Bound';
  // a bound claim may change its storage request; equal quantities written differently are equal
  if (requests && (bound || parseQuantity(oldStorage) === parseQuantity(newStorage))) requests.storage = oldStorage;
  if (!jsonEqual(spec, oldSpec)) causes.push(forbidden('spec', 'spec is immutable after creation except resources.requests for bound claims'));
  const oldSize = parseQuantity(oldStorage) ?? 0;
  const newSize = parseQuantity(newStorage) ?? 0;
  if (newSize < oldSize) causes.push(forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  causes.push(...immutable('volumeMode', objAt(obj, 'spec')?.volumeMode, objAt(old, 'spec')?.volumeMode));
  return causes;
}

/** kube's ValidatePersistentVolumeClaimStatusUpdate */
function validateStatus(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const modes = objAt(obj, 'spec')?.accessModes;
  if (!Array.isArray(modes) || modes.length === 0) causes.push(required('Spec.accessModes', ''));
  for (const [k, v] of Object.entries(objAt(objAt(obj, 'status'), 'capacity') ?? {})) {
    const q = parseQuantity(v);
    if (q !== undefined && q < 0) causes.push(invalid(`status.capacity[${k}]`, quantityText(v), 'must be greater than or equal to 0'));
  }
  return causes;
}

export function persistentVolumeClaimKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'PersistentVolumeClaim',
    listKind: 'PersistentVolumeClaimList',
    resource: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    namespaced: true,
    shortNames: ['pvc'],
    categories: [],
    storage: { group: '', resource: 'persistentvolumeclaims' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.PersistentVolumeClaim',
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults(obj) {
        const spec = ensureObj(obj, 'spec');
        if (spec.volumeMode === undefined || spec.volumeMode === null) spec.volumeMode = 'Filesystem';
        const status = ensureObj(obj, 'status');
        if (!status.phase) status.phase = 'Pending';
      },
      prepareForCreate(obj) {
        obj.status = { phase: 'Pending' };
      },
      validate(obj, old) {
        const causes = validateClaimSpec(objAt(obj, 'spec') ?? {}, 'spec');
        if (old) causes.push(...validateUpdate(obj, old));
        return causes;
      },
      validateStatus,
    },
    selectableFields: (obj) => ({ name: str(obj.metadata?.name) }),
    table: {
      columns: [
        nameColumn(),
        column('Status', 'string', 'Lifecycle phase of the claim.'),
        column('Volume', 'string', 'The volume bound to the claim.'),
        column('Capacity', 'string', 'Actual size of the bound volume.'),
        column('Access Modes', 'string', 'Access modes of the bound volume.'),
        column('StorageClass', 'string', 'StorageClass of the pvc'),
        column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
        ageColumn(),
        column('VolumeMode', 'string', 'Block or Filesystem.', 1),
      ],
      cells(obj, now) {
        const spec = objAt(obj, 'spec') ?? {};
        const status = objAt(obj, 'status') ?? {};
        const phase = obj.metadata?.deletionTimestamp ? 'Terminating' : str(status.phase);
        const volume = str(spec.volumeName);
        // kube shows capacity and access modes only once a volume is named
        const capacity = volume ? quantityText(objAt(status, 'capacity')?.storage) : '';
        const modes = volume ? accessModesText(status.accessModes) : '';
        const vac = typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : '<unset>';
        const mode = typeof spec.volumeMode === 'string' ? spec.volumeMode : '<unset>';
        return [str(obj.metadata?.name), phase, volume, capacity, modes, storageClassOf(obj), vac, age(obj, now), mode];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
