/** core/v1 ConfigMap: key format, size limit, `immutable` */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid, tooLong } from '../../validation/field-errors';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { isObj, str } from '../util';
import { MAX_DATA_SIZE, validateDataKeys, validateImmutableData } from './data-keys';

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const causes = [...validateDataKeys(obj.data, 'data'), ...validateDataKeys(obj.binaryData, 'binaryData')];
  let size = 0;
  const data = isObj(obj.data) ? obj.data : {};
  const binary = isObj(obj.binaryData) ? obj.binaryData : {};
  for (const [k, v] of Object.entries(data)) {
    size += typeof v === 'string' ? Buffer.byteLength(v) : 0;
    if (k in binary) causes.push(invalid(`data[${k}]`, k, 'duplicate of key present in binaryData'));
  }
  for (const v of Object.values(binary)) size += typeof v === 'string' ? Math.floor((v.length * 3) / 4) : 0;
  if (size > MAX_DATA_SIZE) causes.push(tooLong('', MAX_DATA_SIZE));
  if (old) causes.push(...validateImmutableData(obj, old, ['data', 'binaryData']));
  return causes;
}

export function configMapKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'ConfigMap',
    listKind: 'ConfigMapList',
    resource: 'configmaps',
    singular: 'configmap',
    namespaced: true,
    shortNames: ['cm'],
    categories: [],
    storage: { group: '', resource: 'configmaps' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.ConfigMap',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: {
      defaults() {},
      validate,
    },
    table: {
      columns: [nameColumn(), column('Data', 'string', 'Data contains the configuration data.'), ageColumn()],
      cells(obj, now) {
        const count = Object.keys(isObj(obj.data) ? obj.data : {}).length + Object.keys(isObj(obj.binaryData) ? obj.binaryData : {}).length;
        return [str(obj.metadata?.name), count, age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
