import t from 'tap';
import { startTestServer, getJson } from './helpers';

const W = '/apis/test.ballast.io/v1';

t.test('every path shape reaches the right registry verb and target', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const json = { 'Content-Type': 'application/json' };
  const cases: [string, string, string | undefined, string, object][] = [
    ['GET', `${W}/namespaces/ns1/widgets/w1`, undefined, 'get', { kind: 'Widget', namespace: 'ns1', name: 'w1' }],
    ['GET', `${W}/namespaces/ns1/widgets`, undefined, 'list', { kind: 'Widget', namespace: 'ns1' }],
    ['GET', `${W}/widgets`, undefined, 'list', { kind: 'Widget' }],
    ['POST', `${W}/namespaces/ns1/widgets`, '{"metadata":{"name":"x"}}', 'create', { kind: 'Widget', namespace: 'ns1' }],
    ['PUT', `${W}/namespaces/ns1/widgets/w1`, '{"metadata":{"name":"w1"}}', 'update', { kind: 'Widget', namespace: 'ns1', name: 'w1' }],
    ['DELETE', `${W}/namespaces/ns1/widgets/w1`, undefined, 'delete', { kind: 'Widget', namespace: 'ns1', name: 'w1' }],
    ['DELETE', `${W}/namespaces/ns1/widgets`, undefined, 'deletecollection', { kind: 'Widget', namespace: 'ns1' }],
    ['GET', `${W}/namespaces/ns1/widgets/w1/status`, undefined, 'getStatus', { kind: 'Widget', namespace: 'ns1', name: 'w1' }],
    ['PUT', `${W}/namespaces/ns1/widgets/w1/status`, '{"metadata":{"name":"w1"}}', 'updateStatus', { kind: 'Widget', namespace: 'ns1', name: 'w1' }],
    ['GET', `${W}/namespaces/ns1/widgets/w1/scale`, undefined, 'getScale', { kind: 'Widget', namespace: 'ns1', name: 'w1' }],
    ['PUT', `${W}/namespaces/ns1/widgets/w1/scale`, '{"spec":{"replicas":2}}', 'updateScale', { kind: 'Widget', namespace: 'ns1', name: 'w1' }],
    ['GET', '/api/v1/gadgets/g1', undefined, 'get', { kind: 'Gadget', name: 'g1' }],
    ['GET', '/api/v1/gadgets', undefined, 'list', { kind: 'Gadget' }],
    ['POST', '/api/v1/gadgets', '{}', 'create', { kind: 'Gadget' }],
    ['GET', '/api/v1/namespaces/ns2/pieces/p', undefined, 'get', { kind: 'Piece', namespace: 'ns2', name: 'p' }],
    ['GET', '/api/v1/pieces', undefined, 'list', { kind: 'Piece' }],
  ];
  for (const [method, path, body, verb, target] of cases) {
    const r = await getJson(s.url + path, { method, body, headers: body ? json : {} });
    t.ok(r.status < 300, `${method} ${path} succeeds (${r.status} ${JSON.stringify(r.body).slice(0, 200)})`);
    t.equal(s.registry.lastCall().verb, verb, `${method} ${path} -> ${verb}`);
    t.same(s.registry.lastCall().target, target, `${method} ${path} target`);
  }
});

t.test('PATCH on the resource and its subresources carries the patch type and raw body', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const types: [string, string][] = [
    ['application/json-patch+json', 'json'],
    ['application/merge-patch+json', 'merge'],
    ['application/strategic-merge-patch+json', 'strategic'],
    ['application/apply-patch+yaml', 'apply'],
  ];
  for (const [ct, type] of types) {
    const q = type === 'apply' ? '?fieldManager=kubectl&force=true' : '';
    const r = await getJson(`${s.url}${W}/namespaces/ns1/widgets/w1${q}`, { method: 'PATCH', body: '{"spec":{"size":4}}', headers: { 'Content-Type': ct } });
    t.equal(r.status, 201, `${ct} -> 201 (created by the fake)`);
    const call = s.registry.lastCall();
    t.equal(call.verb, 'patch');
    t.equal(call.patchType, type);
    t.equal(call.body, '{"spec":{"size":4}}');
  }
  t.same(s.registry.lastCall().options, { dryRun: false, fieldManager: 'kubectl', force: true, userAgent: 'node' });
  await getJson(`${s.url}${W}/namespaces/ns1/widgets/w1/status`, { method: 'PATCH', body: '{}', headers: { 'Content-Type': 'application/merge-patch+json' } });
  t.equal(s.registry.lastCall().verb, 'patchStatus');
  const r = await getJson(`${s.url}${W}/namespaces/ns1/widgets/w1/scale`, { method: 'PATCH', body: '{"spec":{"replicas":5}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
  t.equal(s.registry.lastCall().verb, 'patchScale');
  t.equal(r.status, 200);
  t.equal(r.body.kind, 'Scale');
});

t.test('watch=true and watch=1 make a list a watch; deprecated /watch/ paths too', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const open = async (path: string) => {
    const ac = new AbortController();
    const res = await fetch(s.url + path, { signal: ac.signal });
    t.equal(res.status, 200, `${path} streams`);
    ac.abort();
    return s.registry.watches[s.registry.watches.length - 1];
  };
  let w = await open(`${W}/namespaces/ns1/widgets?watch=true&resourceVersion=5`);
  t.same(w.target, { kind: 'Widget', namespace: 'ns1' });
  t.equal(w.options.resourceVersion, '5');
  w = await open(`/api/v1/gadgets?watch=1`);
  t.same(w.target, { kind: 'Gadget' });
  w = await open(`${W}/widgets?watch=true`);
  t.same(w.target, { kind: 'Widget' }, 'across namespaces');
  w = await open(`${W}/watch/namespaces/ns1/widgets`);
  t.same(w.target, { kind: 'Widget', namespace: 'ns1' });
  w = await open(`${W}/watch/widgets`);
  t.same(w.target, { kind: 'Widget' });
  w = await open(`${W}/watch/namespaces/ns1/widgets/w1?labelSelector=a%3Db`);
  t.same(w.target, { kind: 'Widget', namespace: 'ns1' }, 'the name becomes a field selector');
  t.equal(w.options.fieldSelector, 'metadata.name=w1');
  t.equal(w.options.labelSelector, 'a=b');
  w = await open(`/api/v1/watch/gadgets/g1`);
  t.same(w.target, { kind: 'Gadget' });
  t.equal(w.options.fieldSelector, 'metadata.name=g1');

  const clash = await getJson(`${s.url}${W}/watch/namespaces/ns1/widgets/w1?fieldSelector=metadata.name%3Dother`);
  t.equal(clash.status, 400);
  t.equal(clash.body.message, "fieldSelector metadata.name doesn't match requested name");
  const wrongMethod = await getJson(`${s.url}${W}/watch/namespaces/ns1/widgets`, { method: 'POST', body: '{}' });
  t.equal(wrongMethod.status, 405);
  t.equal(wrongMethod.body.reason, 'MethodNotAllowed');
});

t.test('unknown groups, versions, resources and shapes are 404 NotFound Status', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  for (const path of [
    '/apis/nope.io/v1/things',
    '/apis/test.ballast.io/v9/widgets',
    `${W}/sprockets`,
    `${W}/widgets/w1`, // a namespaced kind has no named path outside a namespace
    '/api/v1/namespaces/ns1/gadgets', // a cluster-scoped kind has none inside one
    `${W}/namespaces/ns1/widgets/w1/bogus`,
    `${W}/namespaces/ns1/widgets/w1/status/more`,
    '/api/v1/gadgets/g1/status', // Gadget has no status subresource
    '/api/v2',
    '/apis/nope.io',
    '/apis/nope.io/v1',
    '/openapi/v4', // OpenAPI serves v2 and v3 only
    '/openapi/v3/apis/nope.io/v1', // and v3 only for served group-versions
    '/something/else',
  ]) {
    const r = await getJson(s.url + path);
    t.equal(r.status, 404, path);
    t.same(r.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
  }
  t.equal(s.registry.calls.length, 0, 'the registry was never called');
});

t.test('methods a path does not serve are 405 MethodNotAllowed Status', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const cases: [string, string][] = [
    ['POST', `${W}/namespaces/ns1/widgets/w1`], // create on a name
    ['PUT', `${W}/namespaces/ns1/widgets`], // update a collection
    ['POST', `${W}/widgets`], // create across namespaces
    ['DELETE', `${W}/widgets`], // deletecollection across namespaces
    ['DELETE', '/api/v1/gadgets'], // the kind does not serve deletecollection
    ['POST', `${W}/namespaces/ns1/widgets/w1/status`],
    ['DELETE', `${W}/namespaces/ns1/widgets/w1/scale`],
    ['OPTIONS', `${W}/namespaces/ns1/widgets`],
  ];
  for (const [method, path] of cases) {
    const r = await getJson(s.url + path, { method, body: method === 'OPTIONS' ? undefined : '{}' });
    t.equal(r.status, 405, `${method} ${path}`);
    t.equal(r.body.reason, 'MethodNotAllowed');
    t.equal(r.body.kind, 'Status');
  }
  const r = await getJson(`${s.url}/api/v1/gadgets`, { method: 'DELETE' });
  t.equal(r.body.message, 'deletecollection is not supported on resources of kind "gadgets"');
  t.equal(s.registry.calls.length, 0);
});
