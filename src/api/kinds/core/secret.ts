/** core/v1 Secret: type Opaque by default, stringData folded into data, per-type required keys */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { immutable, invalid, required, tooLong } from '../../validation/field-errors';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { ensureObj, isObj, objAt, str } from '../util';
import { MAX_DATA_SIZE, validateDataKeys, validateImmutableData } from './data-keys';

function defaults(obj: KubeObject): void {
  if (!obj.type) obj.type = 'Opaque';
  // kube's v1 conversion writes stringData into data (base64) and never stores stringData
  if (isObj(obj.stringData)) {
    const data = ensureObj(obj, 'data');
    for (const [k, v] of Object.entries(obj.stringData)) if (typeof v === 'string') data[k] = Buffer.from(v, 'utf8').toString('base64');
    delete obj.stringData;
  }
}

function decodedLength(v: unknown): number {
  return typeof v === 'string' ? Buffer.from(v, 'base64').length : 0;
}

function validateType(obj: KubeObject, data: Record<string, unknown>): StatusCause[] {
  const has = (k: string): boolean => decodedLength(data[k]) > 0 || (typeof data[k] === 'string' && data[k] !== '');
  switch (obj.type) {
    case 'kubernetes.io/service-account-token': {
      const key = 'kubernetes.io/service-account.name';
      return str(objAt(obj.metadata, 'annotations')?.[key]) ? [] : [required(`metadata.annotations[${key}]`, '')];
    }
    case 'kubernetes.io/dockercfg':
      return has('.dockercfg') ? [] : [required('data[.dockercfg]', '')];
    case 'kubernetes.io/dockerconfigjson':
      return has('.dockerconfigjson') ? [] : [required('data[.dockerconfigjson]', '')];
    case 'kubernetes.io/basic-auth':
      return has('username') || has('password') ? [] : [required('data[username]', ''), required('data[password]', '')];
    case 'kubernetes.io/ssh-auth':
      return has('ssh-privatekey') ? [] : [required('data[ssh-privatekey]', '')];
    case 'kubernetes.io/tls': {
      const causes: StatusCause[] = [];
      if (data['tls.key'] === undefined) causes.push(required('data[tls.key]', ''));
      if (data['tls.crt'] === undefined) causes.push(required('data[tls.crt]', ''));
      return causes;
    }
    default:
      return [];
  }
}

function validate(obj: KubeObject, old?: KubeObject): StatusCause[] {
  const data = isObj(obj.data) ? obj.data : {};
  const causes = validateDataKeys(data, 'data');
  let size = 0;
  for (const [k, v] of Object.entries(data)) {
    size += decodedLength(v);
    if (v !== undefined && typeof v !== 'string') causes.push(invalid(`data[${k}]`, v, 'must be a base64 encoded string'));
  }
  if (size > MAX_DATA_SIZE) causes.push(tooLong('data', MAX_DATA_SIZE));
  causes.push(...validateType(obj, data));
  if (old) {
    causes.push(...immutable('type', obj.type, old.type));
    causes.push(...validateImmutableData(obj, old, ['data']));
  }
  return causes;
}

export function secretKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Secret',
    listKind: 'SecretList',
    resource: 'secrets',
    singular: 'secret',
    namespaced: true,
    shortNames: [],
    categories: [],
    storage: { group: '', resource: 'secrets' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Secret',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults, validate },
    selectableFields(obj) {
      return { type: str(obj.type) };
    },
    table: {
      columns: [
        nameColumn(),
        column('Type', 'string', 'Used to facilitate programmatic handling of secret data.'),
        column('Data', 'string', 'Data contains the secret data.'),
        ageColumn(),
      ],
      cells(obj, now) {
        return [str(obj.metadata?.name), str(obj.type), Object.keys(isObj(obj.data) ? obj.data : {}).length, age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
