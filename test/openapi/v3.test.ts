import t from 'tap';
import { builtinKinds } from '../../src/api/kinds';
import { Scheme } from '../../src/api/scheme';
import { buildOpenApiV3, toV3Schema } from '../../src/openapi/v3';
import { definitions } from '../../src/schema';
import { refsIn, startRealServer } from './server';

const scheme = new Scheme(builtinKinds());
const docs = buildOpenApiV3({ scheme, definitions, version: 'v1.32.0' });
type Doc = { openapi: string; paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

t.test('one document per group-version and discovery root', async (t) => {
  const keys = [...docs.keys()];
  for (const k of ['api', 'api/v1', 'apis', 'apis/apps', 'apis/apps/v1', 'apis/batch/v1', 'apis/batch/v1beta1', 'apis/coordination.k8s.io/v1', 'apis/events.k8s.io/v1']) {
    t.ok(keys.includes(k), k);
  }
  t.same(keys, [...keys].sort());
});

t.test('each document: refs into its own components, all resolvable; described refs wrapped in allOf', async (t) => {
  for (const [key, raw] of docs) {
    const doc = raw as unknown as Doc;
    t.equal(doc.openapi, '3.0.0');
    const refs = refsIn(doc);
    const bad = refs.filter((r) => !r.startsWith('#/components/schemas/') || !doc.components.schemas[r.slice('#/components/schemas/'.length)]);
    t.same(bad, [], key);
    t.same(refsParents(doc).filter((node) => Object.keys(node).length !== 1), [], `${key}: every $ref stands alone`);
  }
  const apps = docs.get('apis/apps/v1') as unknown as Doc;
  const spec = apps.components.schemas['io.k8s.api.apps.v1.Deployment'].properties.spec;
  t.same(spec.allOf, [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }]);
  t.type(spec.description, 'string');
  t.same(apps.components.schemas['io.k8s.api.apps.v1.Deployment']['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
  // only what the group-version reaches
  t.notOk(apps.components.schemas['io.k8s.api.batch.v1.Job']);
  t.ok(apps.components.schemas['io.k8s.api.core.v1.Container']);
  t.ok(apps.components.schemas['io.k8s.api.autoscaling.v1.Scale']);
});

t.test('PATCH advertises fieldValidation as a query parameter, with the GVK (kubectl 1.32 then sends Strict)', async (t) => {
  const apps = docs.get('apis/apps/v1') as unknown as Doc;
  const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch;
  t.same(patch['x-kubernetes-group-version-kind'], { group: 'apps', kind: 'Deployment', version: 'v1' });
  t.equal(patch.operationId, 'patchAppsV1NamespacedDeployment');
  const fv = patch.parameters.find((p: any) => p.name === 'fieldValidation');
  t.same({ in: fv.in, schema: fv.schema }, { in: 'query', schema: { type: 'string', uniqueItems: true } });
  t.same(Object.keys(patch.requestBody.content), ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
  const post = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments'].post;
  t.same(post.requestBody, { content: { '*/*': { schema: { $ref: '#/components/schemas/io.k8s.api.apps.v1.Deployment' } } }, required: true });
  t.same(post.responses['201'].content['application/json'], { schema: { $ref: '#/components/schemas/io.k8s.api.apps.v1.Deployment' } });
  t.same(post.responses['401'], { description: 'Unauthorized' });
  const params = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].parameters;
  t.same(params.map((p: any) => p.name), ['name', 'namespace']);
});

t.test('toV3Schema: lone refs stay refs, siblings move the ref into allOf, nested nodes converted', async (t) => {
  t.same(toV3Schema({ $ref: '#/definitions/a.B' }), { $ref: '#/components/schemas/a.B' });
  t.same(toV3Schema({ $ref: '#/definitions/a.B', description: 'd', 'x-kubernetes-patch-strategy': 'retainKeys' }), {
    description: 'd',
    'x-kubernetes-patch-strategy': 'retainKeys',
    allOf: [{ $ref: '#/components/schemas/a.B' }],
  });
  t.same(toV3Schema({ type: 'array', items: { $ref: '#/definitions/a.C' } }), { type: 'array', items: { $ref: '#/components/schemas/a.C' } });
  t.same(toV3Schema({ type: 'object', additionalProperties: { $ref: '#/definitions/a.Q', description: 'q' } }), {
    type: 'object',
    additionalProperties: { description: 'q', allOf: [{ $ref: '#/components/schemas/a.Q' }] },
  });
});

t.test('GET /openapi/v3: index by hash, immutable hashed documents, 301 for a stale hash, 304', async (t) => {
  const s = await startRealServer();
  t.teardown(() => s.close());
  const index = await fetch(`${s.url}/openapi/v3?timeout=32s`, { headers: { Accept: 'application/json, */*' } });
  t.equal(index.status, 200);
  t.equal(index.headers.get('content-type'), 'application/json');
  const { paths } = (await index.json()) as { paths: Record<string, { serverRelativeURL: string }> };
  const url = paths['apis/apps/v1'].serverRelativeURL;
  t.match(url, /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
  const hash = url.split('hash=')[1];

  const doc = await fetch(`${s.url}${url}&timeout=32s`, { headers: { Accept: 'application/json' } });
  t.equal(doc.status, 200);
  t.equal(doc.headers.get('cache-control'), 'public, immutable');
  t.ok(doc.headers.get('expires'));
  t.equal(doc.headers.get('etag'), `"${hash}"`);
  const body = (await doc.json()) as Doc;
  t.ok(body.paths['/apis/apps/v1/namespaces/{namespace}/deployments']);

  const stale = await fetch(`${s.url}/openapi/v3/apis/apps/v1?hash=ABC`, { redirect: 'manual' });
  t.equal(stale.status, 301);
  t.equal(stale.headers.get('location'), url);
  await stale.arrayBuffer();

  const plain = await fetch(`${s.url}/openapi/v3/api/v1`);
  t.equal(plain.status, 200);
  t.equal(plain.headers.get('cache-control'), null);
  const tag = plain.headers.get('etag') as string;
  await plain.arrayBuffer();
  const cached = await fetch(`${s.url}/openapi/v3/api/v1`, { headers: { 'If-None-Match': tag } });
  t.equal(cached.status, 304);
  await cached.arrayBuffer();

  const missing = await fetch(`${s.url}/openapi/v3/apis/nope/v1`);
  t.equal(missing.status, 404);
  await missing.arrayBuffer();
});

/** every object holding a $ref */
function refsParents(node: unknown, out: object[] = []): object[] {
  if (Array.isArray(node)) for (const item of node) refsParents(item, out);
  else if (node !== null && typeof node === 'object') {
    // a reference has a string $ref; JSONSchemaProps (apiextensions) has a property named `$ref`,
    // whose entry in a properties map is a schema object, as in kube's own document
    if ('$ref' in node && typeof (node as { $ref: unknown }).$ref === 'string') out.push(node);
    for (const value of Object.values(node)) refsParents(value, out);
  }
  return out;
}
