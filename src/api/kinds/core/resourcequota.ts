/** core/v1 ResourceQuota: status subresource, scopes, and kube's Request/Limit table */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { notSupported } from '../../validation/field-errors';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, objAt, str } from '../util';

const SCOPES = ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass'];

function validate(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  arrAt(objAt(obj, 'spec'), 'scopes').forEach((s, i) => {
    if (!SCOPES.includes(str(s))) causes.push(notSupported(`spec.scopes[${i}]`, s, SCOPES));
  });
  return causes;
}

/** kube's printResourceQuota: `resource: used/hard` pairs, limits.* in the Limit column */
function quotaCells(obj: KubeObject, now: Date): unknown[] {
  const status = objAt(obj, 'status') ?? {};
  const hard = objAt(status, 'hard') ?? {};
  const used = objAt(status, 'used') ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const r of Object.keys(hard).sort()) {
    const entry = `${r}: ${String(used[r] ?? '0')}/${String(hard[r])}`;
    const parts = r.split('.');
    (parts.length > 1 && parts[0] === 'limits' ? limit : request).push(entry);
  }
  return [str(obj.metadata?.name), request.join(', '), limit.join(', '), age(obj, now)];
}

export function resourceQuotaKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'ResourceQuota',
    listKind: 'ResourceQuotaList',
    resource: 'resourcequotas',
    singular: 'resourcequota',
    namespaced: true,
    shortNames: ['quota'],
    categories: [],
    storage: { group: '', resource: 'resourcequotas' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.ResourceQuota',
    tracksGeneration: false,
    statusSubresource: true,
    strategy: {
      defaults() {},
      prepareForCreate(obj) {
        obj.status = {};
      },
      validate,
    },
    table: {
      columns: [
        nameColumn(),
        column('Request', 'string', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
        column('Limit', 'string', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
        ageColumn(),
      ],
      cells: quotaCells,
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
