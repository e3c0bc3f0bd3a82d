/**
 * CSIStorageCapacity, namespaced, served as storage.k8s.io/v1alpha1 (1.20), v1beta1 and v1 (today's
 * clients) and stored as v1. kube's validation: a valid node topology selector, a class name that
 * is a DNS subdomain, non-negative capacity and maximumVolumeSize; the topology and the class are
 * immutable. kube's table has no age column.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { invalid } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';
import { validateLabelSelector } from '../label-selector';
import { sameFieldsConversion } from '../same-fields-conversion';
import { column, nameColumn } from '../table-format';
import { str } from '../util';

/** a quantity (string or number) below zero */
function isNegative(q: unknown): boolean {
  if (typeof q === 'number') return q < 0;
  return typeof q === 'string' && q.trim().startsWith('-') && /[1-9]/.test(q.replace(/[eE][-+]?\d+$/, ''));
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const causes = validateLabelSelector(obj.nodeTopology, 'nodeTopology');
  const className = str(obj.storageClassName);
  for (const msg of isDNS1123Subdomain(className)) causes.push(invalid('storageClassName', className, msg));
  for (const key of ['capacity', 'maximumVolumeSize']) {
    if (isNegative(obj[key])) causes.push(invalid(key, String(obj[key]), 'must be greater than or equal to 0'));
  }
  if (old) {
    if (!jsonEqual(obj.nodeTopology, old.nodeTopology)) causes.push(invalid('nodeTopology', obj.nodeTopology, 'field is immutable'));
    if (className !== str(old.storageClassName)) causes.push(invalid('storageClassName', className, 'field is immutable'));
  }
  return causes;
}

export function csiStorageCapacityKind(version: 'v1' | 'v1beta1' | 'v1alpha1'): KindDefinition {
  return {
    group: 'storage.k8s.io',
    version,
    kind: 'CSIStorageCapacity',
    listKind: 'CSIStorageCapacityList',
    resource: 'csistoragecapacities',
    singular: 'csistoragecapacity',
    namespaced: true,
    shortNames: [],
    categories: [],
    storage: { group: 'storage.k8s.io', resource: 'csistoragecapacities' },
    storageVersion: 'v1',
    ...sameFieldsConversion(`storage.k8s.io/${version}`, 'storage.k8s.io/v1'),
    schemaName: `io.k8s.api.storage.${version}.CSIStorageCapacity`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate },
    table: {
      columns: [
        nameColumn(),
        column('StorageClassName', 'string', 'StorageClass the capacity applies to.'),
        column('Capacity', 'string', 'Capacity reported by the driver.'),
      ],
      cells: (obj) => [str(obj.metadata?.name), str(obj.storageClassName), obj.capacity === undefined || obj.capacity === null ? '<unset>' : String(obj.capacity)],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
