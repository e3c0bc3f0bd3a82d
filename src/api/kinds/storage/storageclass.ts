/**
 * StorageClass, cluster-scoped, served as storage.k8s.io/v1 and v1beta1 and stored as v1. kube's
 * defaults (reclaimPolicy Delete, volumeBindingMode Immediate) and validation: a provisioner that
 * is a qualified name, at most 512 parameters of 256 KiB in all, Delete or Retain, a binding mode,
 * allowed topologies; provisioner, parameters, reclaimPolicy and volumeBindingMode are immutable.
 * The table marks the default class as kubectl shows it: `standard (default)`.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { forbidden, immutable, invalid, notSupported, required } from '../../validation/field-errors';
import { isQualifiedName } from '../../validation/names';
import { sameFieldsConversion } from '../same-fields-conversion';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, setDefault, str, stringMap } from '../util';
import { validateAllowedTopologies } from './topology-selector';

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const DEFAULT_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

function defaults(obj: KubeObject): void {
  setDefault(obj, 'reclaimPolicy', 'Delete');
  setDefault(obj, 'volumeBindingMode', 'Immediate');
}

/** kube's TooLong without the value: `Too long: may not be more than N bytes` */
function tooLongField(field: string, max: number): StatusCause {
  return { reason: 'FieldValueTooLong', message: `Too long: may not be more than ${max} bytes`, field };
}

function validateParameters(params: unknown): StatusCause[] {
  const map = stringMap(params);
  const keys = Object.keys(map);
  if (keys.length > MAX_PARAMETERS) return [tooLongField('parameters', MAX_PARAMETERS)];
  const causes: StatusCause[] = [];
  let size = 0;
  for (const k of keys) {
    if (k.length < 1) causes.push(invalid('parameters', k, 'field can not be empty.'));
    size += Buffer.byteLength(k) + Buffer.byteLength(map[k]);
  }
  if (size > MAX_PARAMETERS_SIZE) causes.push(tooLongField('parameters', MAX_PARAMETERS_SIZE));
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const provisioner = str(obj.provisioner);
  if (provisioner === '') causes.push(required('provisioner', ''));
  else for (const msg of isQualifiedName(provisioner.toLowerCase())) causes.push(invalid('provisioner', provisioner.toLowerCase(), msg));
  causes.push(...validateParameters(obj.parameters));
  const reclaim = str(obj.reclaimPolicy);
  if (reclaim !== '' && !RECLAIM_POLICIES.includes(reclaim)) causes.push(notSupported('reclaimPolicy', reclaim, RECLAIM_POLICIES));
  if (obj.volumeBindingMode === undefined || obj.volumeBindingMode === null) causes.push(required('volumeBindingMode', ''));
  else if (!BINDING_MODES.includes(str(obj.volumeBindingMode))) causes.push(notSupported('volumeBindingMode', obj.volumeBindingMode, BINDING_MODES));
  causes.push(...validateAllowedTopologies(arrAt(obj, 'allowedTopologies'), 'allowedTopologies'));
  if (old) {
    if (!jsonEqual(stringMap(obj.parameters), stringMap(old.parameters))) causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
    if (provisioner !== str(old.provisioner)) causes.push(forbidden('provisioner', 'updates to provisioner are forbidden.'));
    if (reclaim !== str(old.reclaimPolicy)) causes.push(forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
    causes.push(...immutable('volumeBindingMode', obj.volumeBindingMode, old.volumeBindingMode));
  }
  return causes;
}

/** kube's IsDefaultAnnotation: the GA or beta annotation set to "true" */
export function isDefaultStorageClass(obj: KubeObject): boolean {
  const annotations = stringMap(obj.metadata?.annotations);
  return DEFAULT_ANNOTATIONS.some((a) => annotations[a] === 'true');
}

function cells(obj: KubeObject, now: Date): unknown[] {
  const name = str(obj.metadata?.name);
  return [
    isDefaultStorageClass(obj) ? `${name} (default)` : name,
    str(obj.provisioner),
    typeof obj.reclaimPolicy === 'string' ? obj.reclaimPolicy : 'Delete',
    typeof obj.volumeBindingMode === 'string' ? obj.volumeBindingMode : 'Immediate',
    obj.allowVolumeExpansion === true,
    age(obj, now),
  ];
}

export function storageClassKind(version: 'v1' | 'v1beta1'): KindDefinition {
  return {
    group: 'storage.k8s.io',
    version,
    kind: 'StorageClass',
    listKind: 'StorageClassList',
    resource: 'storageclasses',
    singular: 'storageclass',
    namespaced: false,
    shortNames: ['sc'],
    categories: [],
    storage: { group: 'storage.k8s.io', resource: 'storageclasses' },
    storageVersion: 'v1',
    ...sameFieldsConversion(`storage.k8s.io/${version}`, 'storage.k8s.io/v1'),
    schemaName: `io.k8s.api.storage.${version}.StorageClass`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults, validate },
    table: {
      columns: [
        nameColumn(),
        column('Provisioner', 'string', 'Plugin or CSI driver that provisions the volumes.'),
        column('ReclaimPolicy', 'string', 'What happens to a volume when its claim goes.'),
        column('VolumeBindingMode', 'string', 'When claims are provisioned and bound.'),
        column('AllowVolumeExpansion', 'string', 'Whether claims may be resized.'),
        ageColumn(),
      ],
      cells,
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
