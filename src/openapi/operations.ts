/**
 * Every operation the server answers, derived from the Scheme (served kinds, verbs, scope,
 * subresources): one neutral list that the v2 and v3 documents both render. Paths, operationIds,
 * actions and responses follow kube 1.32's OpenAPI (`createAppsV1NamespacedDeployment`,
 * `listCoreV1PodForAllNamespaces`, the deprecated `/watch/` paths, `/status` and `/scale`).
 */
import type { KindDefinition } from '../api/kind';
import type { Scheme } from '../api/scheme';
import { groupVersionKey, groupVersionPrefix, operationInfix } from './naming';
import { parametersOf } from './parameters';

export type Action = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'discovery';
export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface OperationResponse {
  code: string;
  description: string;
  /** definition name of the body; none for 401 */
  schema?: string;
}

export interface ApiOperation {
  path: string;
  method: Method;
  action: Action;
  operationId: string;
  description: string;
  /** the OpenAPI v3 document holding the operation: `apis/apps/v1`, `api/v1`, `apis/apps`, `apis`, `api` */
  documentKey: string;
  group: string;
  version: string;
  gvk?: GroupVersionKind;
  /** the kind named by a `{name}` path parameter */
  nameOf?: string;
  query: string[];
  /** definition name of the request body */
  body?: { schema: string; required: boolean };
  responses: OperationResponse[];
  consumes: string[];
  produces: string[];
}

export const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
export const PATCH_SCHEMA = `${META_V1}Patch`;
const STATUS = `${META_V1}Status`;
const DELETE_OPTIONS = `${META_V1}DeleteOptions`;
const WATCH_EVENT = `${META_V1}WatchEvent`;
const SCALE = 'io.k8s.api.autoscaling.v1.Scale';

const OBJECT_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const STREAM_TYPES = [...OBJECT_TYPES, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const UNAUTHORIZED: OperationResponse = { code: '401', description: 'Unauthorized' };

const ok = (schema: string): OperationResponse[] => [{ code: '200', description: 'OK', schema }, UNAUTHORIZED];
const written = (schema: string, accepted: boolean): OperationResponse[] => [
  { code: '200', description: 'OK', schema },
  { code: '201', description: 'Created', schema },
  ...(accepted ? [{ code: '202', description: 'Accepted', schema }] : []),
  UNAUTHORIZED,
];

/** `io.k8s.api.apps.v1.Deployment` -> `io.k8s.api.apps.v1.DeploymentList` */
function listSchemaOf(kind: KindDefinition): string {
  return kind.schemaName.slice(0, kind.schemaName.lastIndexOf('.') + 1) + kind.listKind;
}

function kindOperations(kind: KindDefinition): ApiOperation[] {
  const { group, version } = kind;
  const infix = operationInfix(group, version);
  const prefix = groupVersionPrefix(group, version);
  const scoped = kind.namespaced ? 'Namespaced' : '';
  const collection = kind.namespaced ? `${prefix}/namespaces/{namespace}/${kind.resource}` : `${prefix}/${kind.resource}`;
  const watchCollection = kind.namespaced ? `${prefix}/watch/namespaces/{namespace}/${kind.resource}` : `${prefix}/watch/${kind.resource}`;
  const item = `${collection}/{name}`;
  const gvk = { group, version, kind: kind.kind };
  const verbs = new Set(kind.verbs ?? ALL_VERBS);
  const K = kind.kind;
  const ops: ApiOperation[] = [];
  const add = (op: Omit<ApiOperation, 'documentKey' | 'group' | 'version' | 'query' | 'gvk' | 'consumes' | 'produces'> & Partial<ApiOperation>) =>
    ops.push({
      documentKey: groupVersionKey(group, version),
      group,
      version,
      gvk,
      query: parametersOf[op.action],
      consumes: ['*/*'],
      produces: OBJECT_TYPES,
      ...op,
    });

  if (verbs.has('list')) {
    add({ path: collection, method: 'get', action: 'list', operationId: `list${infix}${scoped}${K}`, description: `list or watch objects of kind ${K}`, responses: ok(listSchemaOf(kind)), produces: STREAM_TYPES });
  }
  if (verbs.has('create')) {
    add({ path: collection, method: 'post', action: 'post', operationId: `create${infix}${scoped}${K}`, description: `create a ${K}`, body: { schema: kind.schemaName, required: true }, responses: written(kind.schemaName, true) });
  }
  if (verbs.has('deletecollection')) {
    add({ path: collection, method: 'delete', action: 'deletecollection', operationId: `delete${infix}Collection${scoped}${K}`, description: `delete collection of ${K}`, body: { schema: DELETE_OPTIONS, required: false }, responses: ok(STATUS) });
  }
  const named = { nameOf: K };
  if (verbs.has('get')) {
    add({ ...named, path: item, method: 'get', action: 'get', operationId: `read${infix}${scoped}${K}`, description: `read the specified ${K}`, responses: ok(kind.schemaName) });
  }
  if (verbs.has('update')) {
    add({ ...named, path: item, method: 'put', action: 'put', operationId: `replace${infix}${scoped}${K}`, description: `replace the specified ${K}`, body: { schema: kind.schemaName, required: true }, responses: written(kind.schemaName, false) });
  }
  if (verbs.has('delete')) {
    add({ ...named, path: item, method: 'delete', action: 'delete', operationId: `delete${infix}${scoped}${K}`, description: `delete a ${K}`, body: { schema: DELETE_OPTIONS, required: false }, responses: [{ code: '200', description: 'OK', schema: STATUS }, { code: '202', description: 'Accepted', schema: STATUS }, UNAUTHORIZED] });
  }
  if (verbs.has('patch')) {
    add({ ...named, path: item, method: 'patch', action: 'patch', operationId: `patch${infix}${scoped}${K}`, description: `partially update the specified ${K}`, body: { schema: PATCH_SCHEMA, required: true }, responses: written(kind.schemaName, false), consumes: PATCH_TYPES });
  }
  if (kind.namespaced && verbs.has('list')) {
    add({ path: `${prefix}/${kind.resource}`, method: 'get', action: 'list', operationId: `list${infix}${K}ForAllNamespaces`, description: `list or watch objects of kind ${K}`, responses: ok(listSchemaOf(kind)), produces: STREAM_TYPES });
  }
  if (verbs.has('watch')) {
    const deprecated = "deprecated: use the 'watch' parameter with a list operation instead";
    add({ ...named, path: `${watchCollection}/{name}`, method: 'get', action: 'watch', operationId: `watch${infix}${scoped}${K}`, description: `watch changes to an object of kind ${K}. ${deprecated}, filtered to a single item with the 'fieldSelector' parameter.`, responses: ok(WATCH_EVENT), produces: STREAM_TYPES });
    add({ path: watchCollection, method: 'get', action: 'watchlist', operationId: `watch${infix}${scoped}${K}List`, description: `watch individual changes to a list of ${K}. ${deprecated}.`, responses: ok(WATCH_EVENT), produces: STREAM_TYPES });
    if (kind.namespaced) {
      add({ path: `${prefix}/watch/${kind.resource}`, method: 'get', action: 'watchlist', operationId: `watch${infix}${K}ListForAllNamespaces`, description: `watch individual changes to a list of ${K}. ${deprecated}.`, responses: ok(WATCH_EVENT), produces: STREAM_TYPES });
    }
  }
  const subresource = (name: 'status' | 'scale', schema: string, subGvk: GroupVersionKind) => {
    const Sub = name === 'status' ? 'Status' : 'Scale';
    const base = { ...named, path: `${item}/${name}`, gvk: subGvk };
    add({ ...base, method: 'get', action: 'get', operationId: `read${infix}${scoped}${K}${Sub}`, description: `read ${name} of the specified ${K}`, responses: ok(schema) });
    add({ ...base, method: 'put', action: 'put', operationId: `replace${infix}${scoped}${K}${Sub}`, description: `replace ${name} of the specified ${K}`, body: { schema, required: true }, responses: written(schema, false) });
    add({ ...base, method: 'patch', action: 'patch', operationId: `patch${infix}${scoped}${K}${Sub}`, description: `partially update ${name} of the specified ${K}`, body: { schema: PATCH_SCHEMA, required: true }, responses: written(schema, false), consumes: PATCH_TYPES });
  };
  if (kind.statusSubresource) subresource('status', kind.schemaName, gvk);
  if (kind.scale) subresource('scale', SCALE, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
  for (const s of kind.subresources ?? []) {
    // kube's operation names capitalize only the first letter: readCoreV1NamespacedPodEphemeralcontainers
    const Sub = s.name[0].toUpperCase() + s.name.slice(1);
    const schema = s.schemaName ?? kind.schemaName;
    const base = { ...named, path: `${item}/${s.name}`, gvk: s.kind ?? gvk };
    if (s.type === 'partial') {
      add({ ...base, method: 'get', action: 'get', operationId: `read${infix}${scoped}${K}${Sub}`, description: `read ${s.name} of the specified ${K}`, responses: ok(schema) });
      add({ ...base, method: 'put', action: 'put', operationId: `replace${infix}${scoped}${K}${Sub}`, description: `replace ${s.name} of the specified ${K}`, body: { schema, required: true }, responses: written(schema, false) });
      add({ ...base, method: 'patch', action: 'patch', operationId: `patch${infix}${scoped}${K}${Sub}`, description: `partially update ${s.name} of the specified ${K}`, body: { schema: PATCH_SCHEMA, required: true }, responses: written(schema, false), consumes: PATCH_TYPES });
    } else if (s.type === 'action') {
      add({ ...base, method: 'post', action: 'post', operationId: `create${infix}${scoped}${K}${Sub}`, description: `create ${s.name} of a ${K}`, body: { schema, required: true }, responses: written(schema, true) });
    }
  }
  return ops;
}

function discoveryOperation(path: string, operationId: string, description: string, schema: string, documentKey: string, group: string, version: string): ApiOperation {
  return { path, method: 'get', action: 'discovery', operationId, description, documentKey, group, version, query: [], responses: ok(schema), consumes: OBJECT_TYPES, produces: OBJECT_TYPES };
}

/** the discovery endpoints kube documents: /api/, /apis/, /apis/<group>/ and each group-version's resource list */
function discoveryOperations(scheme: Scheme): ApiOperation[] {
  const ops: ApiOperation[] = [];
  const groups = scheme.groups();
  if (groups.some((g) => g.name === '')) {
    ops.push(discoveryOperation('/api/', 'getCoreAPIVersions', 'get available API versions', `${META_V1}APIVersions`, 'api', '', ''));
  }
  ops.push(discoveryOperation('/apis/', 'getAPIVersions', 'get available API versions', `${META_V1}APIGroupList`, 'apis', '', ''));
  for (const g of groups) {
    if (g.name !== '') {
      const groupInfix = operationInfix(g.name, '');
      ops.push(discoveryOperation(`/apis/${g.name}/`, `get${groupInfix}APIGroup`, 'get information of a group', `${META_V1}APIGroup`, `apis/${g.name}`, g.name, ''));
    }
    for (const v of g.versions) {
      ops.push(discoveryOperation(`${groupVersionPrefix(g.name, v)}/`, `get${operationInfix(g.name, v)}APIResources`, 'get available resources', `${META_V1}APIResourceList`, groupVersionKey(g.name, v), g.name, v));
    }
  }
  return ops;
}

/** every operation of every served kind, discovery first */
export function apiOperations(scheme: Scheme): ApiOperation[] {
  return [...discoveryOperations(scheme), ...scheme.kinds.flatMap(kindOperations)];
}
