import t from 'tap';
import { builtinKinds } from '../../src/api/kinds';
import { Scheme } from '../../src/api/scheme';
import { buildOpenApiV2 } from '../../src/openapi/v2';
import { definitions } from '../../src/schema';
import { refsIn } from './server';

const scheme = new Scheme(builtinKinds());
const doc = buildOpenApiV2({ scheme, definitions, version: 'v1.32.0' });
type Op = { operationId: string; parameters?: Array<{ name: string; in: string; required?: boolean; schema?: { $ref: string } }>; consumes: string[]; produces: string[]; responses: Record<string, { schema?: { $ref: string } }>; 'x-kubernetes-action'?: string; 'x-kubernetes-group-version-kind'?: unknown };
const op = (path: string, method: string): Op => {
  const item = doc.paths[path] as Record<string, Op> | undefined;
  if (!item?.[method]) throw new Error(`no ${method} ${path}`);
  return item[method];
};
const queryNames = (o: Op) => (o.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name).sort();

t.test('a Swagger 2.0 document named like kube, with every definition of the schema source', async (t) => {
  t.equal(doc.swagger, '2.0');
  t.same(doc.info, { title: 'Kubernetes', version: 'v1.32.0' });
  for (const name of Object.keys(definitions)) t.ok(doc.definitions[name], name);
  // descriptions stay beside $ref in v2, as kube writes them
  const spec = doc.definitions['io.k8s.api.apps.v1.Deployment'].properties?.spec as { $ref: string; description: string };
  t.equal(spec.$ref, '#/definitions/io.k8s.api.apps.v1.DeploymentSpec');
  t.type(spec.description, 'string');
});

t.test('every $ref resolves and every operationId is unique', async (t) => {
  const refs = refsIn(doc);
  t.ok(refs.length > 500, `${refs.length} refs`);
  const dangling = refs.filter((r) => !r.startsWith('#/definitions/') || !doc.definitions[r.slice('#/definitions/'.length)]);
  t.same(dangling, []);
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).filter((o): o is Op => !!o && typeof o === 'object' && 'operationId' in o).map((o) => o.operationId));
  t.equal(new Set(ids).size, ids.length);
});

t.test('every served kind has its operations with the GVK and action', async (t) => {
  for (const k of scheme.kinds) {
    const prefix = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
    const coll = k.namespaced ? `${prefix}/namespaces/{namespace}/${k.resource}` : `${prefix}/${k.resource}`;
    const gvk = { group: k.group, kind: k.kind, version: k.version };
    const expect: Array<[string, string, string]> = [
      [coll, 'get', 'list'], [coll, 'post', 'post'], [coll, 'delete', 'deletecollection'],
      [`${coll}/{name}`, 'get', 'get'], [`${coll}/{name}`, 'put', 'put'], [`${coll}/{name}`, 'patch', 'patch'], [`${coll}/{name}`, 'delete', 'delete'],
    ];
    for (const [path, method, action] of expect) {
      const verb = { post: 'create', put: 'update', get: action === 'list' ? 'list' : 'get', delete: action === 'delete' ? 'delete' : 'deletecollection', patch: 'patch' }[method] as string;
      if (k.verbs && !k.verbs.includes(verb)) continue;
      const o = op(path, method);
      t.equal(o['x-kubernetes-action'], action, `${method} ${path}`);
      t.same(o['x-kubernetes-group-version-kind'], gvk, `${method} ${path}`);
    }
    if (k.statusSubresource) t.same(op(`${coll}/{name}/status`, 'patch')['x-kubernetes-group-version-kind'], gvk);
    if (k.scale) t.same(op(`${coll}/{name}/scale`, 'put')['x-kubernetes-group-version-kind'], { group: 'autoscaling', kind: 'Scale', version: 'v1' });
  }
});

t.test('Deployment: kube operationIds, parameters, media types and responses', async (t) => {
  const coll = '/apis/apps/v1/namespaces/{namespace}/deployments';
  const item = `${coll}/{name}`;
  t.equal(op(coll, 'post').operationId, 'createAppsV1NamespacedDeployment');
  t.equal(op(coll, 'get').operationId, 'listAppsV1NamespacedDeployment');
  t.equal(op(coll, 'delete').operationId, 'deleteAppsV1CollectionNamespacedDeployment');
  t.equal(op(item, 'get').operationId, 'readAppsV1NamespacedDeployment');
  t.equal(op(item, 'put').operationId, 'replaceAppsV1NamespacedDeployment');
  t.equal(op(item, 'patch').operationId, 'patchAppsV1NamespacedDeployment');
  t.equal(op('/apis/apps/v1/deployments', 'get').operationId, 'listAppsV1DeploymentForAllNamespaces');
  t.equal(op('/apis/apps/v1/watch/namespaces/{namespace}/deployments', 'get').operationId, 'watchAppsV1NamespacedDeploymentList');
  t.equal(op('/apis/apps/v1/watch/namespaces/{namespace}/deployments/{name}', 'get')['x-kubernetes-action'], 'watch');
  t.equal(op('/apis/apps/v1/watch/deployments', 'get').operationId, 'watchAppsV1DeploymentListForAllNamespaces');
  t.equal(op(`${item}/status`, 'get').operationId, 'readAppsV1NamespacedDeploymentStatus');
  t.equal(op(`${item}/scale`, 'patch').operationId, 'patchAppsV1NamespacedDeploymentScale');

  t.same(queryNames(op(coll, 'post')), ['dryRun', 'fieldManager', 'fieldValidation', 'pretty']);
  t.same(queryNames(op(item, 'put')), ['dryRun', 'fieldManager', 'fieldValidation', 'pretty']);
  t.same(queryNames(op(item, 'patch')), ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty']);
  t.same(queryNames(op(item, 'delete')), ['dryRun', 'gracePeriodSeconds', 'orphanDependents', 'pretty', 'propagationPolicy']);
  t.same(queryNames(op(coll, 'get')), ['allowWatchBookmarks', 'continue', 'fieldSelector', 'labelSelector', 'limit', 'pretty', 'resourceVersion', 'resourceVersionMatch', 'sendInitialEvents', 'timeoutSeconds', 'watch']);
  t.ok(queryNames(op(coll, 'delete')).includes('propagationPolicy'));
  t.ok(queryNames(op(coll, 'delete')).includes('labelSelector'));

  const body = op(item, 'patch').parameters?.find((p) => p.in === 'body');
  t.same(body, { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  t.same(op(item, 'patch').consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
  t.ok(op(coll, 'get').produces.includes('application/json;stream=watch'));
  t.same(Object.keys(op(coll, 'post').responses), ['200', '201', '202', '401']);
  t.equal(op(coll, 'post').responses['201'].schema?.$ref, '#/definitions/io.k8s.api.apps.v1.Deployment');
  t.equal(op(coll, 'get').responses['200'].schema?.$ref, '#/definitions/io.k8s.api.apps.v1.DeploymentList');
  t.equal(op(item, 'delete').responses['200'].schema?.$ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Status');

  const pathParams = (doc.paths[item] as { parameters: Array<{ name: string; in: string; required: boolean }> }).parameters;
  t.same(pathParams.map((p) => [p.name, p.in, p.required]), [['name', 'path', true], ['namespace', 'path', true]]);
});

t.test('cluster-scoped kinds, core group names, versions served twice', async (t) => {
  t.equal(op('/api/v1/namespaces', 'post').operationId, 'createCoreV1Namespace');
  t.equal(op('/api/v1/namespaces/{name}', 'get').operationId, 'readCoreV1Namespace');
  t.equal(op('/api/v1/nodes', 'delete').operationId, 'deleteCoreV1CollectionNode');
  t.equal(op('/api/v1/watch/nodes/{name}', 'get').operationId, 'watchCoreV1Node');
  t.equal(op('/api/v1/namespaces/{namespace}/pods', 'post').operationId, 'createCoreV1NamespacedPod');
  t.equal(op('/api/v1/pods', 'get').operationId, 'listCoreV1PodForAllNamespaces');
  t.equal(op('/apis/batch/v1beta1/namespaces/{namespace}/cronjobs', 'post').operationId, 'createBatchV1beta1NamespacedCronJob');
  t.equal(op('/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases', 'post').operationId, 'createCoordinationV1NamespacedLease');
  t.equal(op('/apis/apps/v1/', 'get').operationId, 'getAppsV1APIResources');
  t.equal(op('/apis/apps/', 'get').operationId, 'getAppsAPIGroup');
  // a cluster-scoped path has only the name parameter
  const params = (doc.paths['/api/v1/nodes/{name}'] as { parameters: Array<{ name: string }> }).parameters;
  t.same(params.map((p) => p.name), ['name']);
});
