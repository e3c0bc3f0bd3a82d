/** core/v1 LimitRange: kube's SetDefaults_LimitRangeItem for containers; no server table (kube has none) */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { notSupported, required } from '../../validation/field-errors';
import { arrAt, ensureObj, isObj, objAt, str } from '../util';

const TYPES = ['Container', 'Pod', 'PersistentVolumeClaim'];

function defaults(obj: KubeObject): void {
  for (const item of arrAt(objAt(obj, 'spec'), 'limits')) {
    if (!isObj(item) || item.type !== 'Container') continue;
    const def = ensureObj(item, 'default');
    const defReq = ensureObj(item, 'defaultRequest');
    // an unset default limit takes the max; an unset default request takes the default limit, then the min
    for (const [k, v] of Object.entries(objAt(item, 'max') ?? {})) if (def[k] === undefined) def[k] = v;
    for (const [k, v] of Object.entries(def)) if (defReq[k] === undefined) defReq[k] = v;
    for (const [k, v] of Object.entries(objAt(item, 'min') ?? {})) if (defReq[k] === undefined) defReq[k] = v;
  }
}

function validate(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  arrAt(objAt(obj, 'spec'), 'limits').forEach((item, i) => {
    const type = isObj(item) ? str(item.type) : '';
    if (!type) causes.push(required(`spec.limits[${i}].type`, ''));
    else if (!TYPES.includes(type) && !type.includes('/')) causes.push(notSupported(`spec.limits[${i}].type`, type, TYPES));
  });
  return causes;
}

export function limitRangeKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'LimitRange',
    listKind: 'LimitRangeList',
    resource: 'limitranges',
    singular: 'limitrange',
    namespaced: true,
    shortNames: ['limits'],
    categories: [],
    storage: { group: '', resource: 'limitranges' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.LimitRange',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: { defaults, validate },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
