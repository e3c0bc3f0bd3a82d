/**
 * CSINode, cluster-scoped and named after its node, served as storage.k8s.io/v1 and v1beta1 and
 * stored as v1. kube 1.20's validation: each driver has a CSI driver name (once), a node ID of at
 * most 128 characters, a non-negative volume count and distinct qualified topology keys; a driver
 * entry may be added or removed but never changed.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { jsonEqual } from '../../json-value';
import { duplicate, invalid, required } from '../../validation/field-errors';
import { isQualifiedName } from '../../validation/names';
import { sameFieldsConversion } from '../same-fields-conversion';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, isObj, objAt, str, type Obj } from '../util';
import { validateCsiDriverName } from './csi-driver-name';

const MAX_NODE_ID = 128;

function validateDriver(driver: Obj, p: string, names: Set<string>): StatusCause[] {
  const name = str(driver.name);
  const causes = validateCsiDriverName(name, `${p}.name`);
  const nodeID = str(driver.nodeID);
  if (nodeID === '') causes.push(required(`${p}.nodeID`, ''));
  if (nodeID.length > MAX_NODE_ID) causes.push(invalid(`${p}.nodeID`, nodeID, `must be ${MAX_NODE_ID} characters or less`));
  const count = objAt(driver, 'allocatable')?.count;
  if (typeof count === 'number' && count < 0) causes.push(invalid(`${p}.allocatable.count`, count, 'must be greater than or equal to 0'));
  if (names.has(name)) causes.push(duplicate(`${p}.name`, name));
  names.add(name);
  const keys = arrAt(driver, 'topologyKeys').map(str);
  const seen = new Set<string>();
  for (const key of keys) {
    // kube reports topology key problems at the driver's path
    if (key === '') causes.push(required(p, ''));
    if (seen.has(key)) causes.push(duplicate(p, key));
    seen.add(key);
    for (const msg of isQualifiedName(key)) causes.push(invalid(p, keys, msg));
  }
  return causes;
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const drivers = arrAt(objAt(obj, 'spec'), 'drivers');
  const names = new Set<string>();
  const causes: StatusCause[] = [];
  drivers.forEach((d, i) => causes.push(...validateDriver(isObj(d) ? d : {}, `spec.drivers[${i}]`, names)));
  if (old) {
    for (const before of arrAt(objAt(old, 'spec'), 'drivers')) {
      for (const after of drivers) {
        if (isObj(before) && isObj(after) && before.name === after.name && !jsonEqual(before, after)) {
          causes.push(invalid('CSINodeDriver', after, 'field is immutable'));
        }
      }
    }
  }
  return causes;
}

export function csiNodeKind(version: 'v1' | 'v1beta1'): KindDefinition {
  return {
    group: 'storage.k8s.io',
    version,
    kind: 'CSINode',
    listKind: 'CSINodeList',
    resource: 'csinodes',
    singular: 'csinode',
    namespaced: false,
    shortNames: [],
    categories: [],
    storage: { group: 'storage.k8s.io', resource: 'csinodes' },
    storageVersion: 'v1',
    ...sameFieldsConversion(`storage.k8s.io/${version}`, 'storage.k8s.io/v1'),
    schemaName: `io.k8s.api.storage.${version}.CSINode`,
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults() {}, validate },
    table: {
      columns: [nameColumn(), column('Drivers', 'integer', 'Number of CSI drivers registered on the node.'), ageColumn()],
      cells: (obj, now) => [str(obj.metadata?.name), arrAt(objAt(obj, 'spec'), 'drivers').length, age(obj, now)],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
