import t from 'tap';
import { storageVersionHash } from '../../src/http/discovery';
import { startTestServer, getJson, testVersion, widgetKind } from './helpers';

const AGG_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

t.test('legacy discovery: /api, /apis, /apis/<group>', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const host = new URL(s.url).host;
  let r = await getJson(`${s.url}/api?timeout=32s`, { headers: { Accept: 'application/json, */*' } });
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'application/json');
  t.same(r.body, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: host }] });
  const group = {
    name: 'test.ballast.io',
    versions: [
      { groupVersion: 'test.ballast.io/v1', version: 'v1' },
      { groupVersion: 'test.ballast.io/v1beta1', version: 'v1beta1' },
    ],
    preferredVersion: { groupVersion: 'test.ballast.io/v1', version: 'v1' },
  };
  r = await getJson(`${s.url}/apis`);
  t.same(r.body, { kind: 'APIGroupList', apiVersion: 'v1', groups: [group] });
  r = await getJson(`${s.url}/apis/test.ballast.io`);
  t.same(r.body, { kind: 'APIGroup', apiVersion: 'v1', ...group });
});

t.test('legacy discovery: APIResourceList with subresources', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}/apis/test.ballast.io/v1`);
  t.equal(r.status, 200);
  t.same(r.body, {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: 'test.ballast.io/v1',
    resources: [
      {
        name: 'widgets',
        singularName: 'widget',
        namespaced: true,
        kind: 'Widget',
        verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        shortNames: ['wd'],
        categories: ['all'],
        storageVersionHash: storageVersionHash(widgetKind),
      },
      // kube's installer registers paths in sorted order: scale before status
      { name: 'widgets/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
      { name: 'widgets/status', singularName: '', namespaced: true, kind: 'Widget', verbs: ['get', 'patch', 'update'] },
    ],
  });
  r = await getJson(`${s.url}/api/v1`);
  t.same(
    r.body.resources.map((x: { name: string; namespaced: boolean; verbs: string[] }) => [x.name, x.namespaced, x.verbs.length]),
    [
      ['gadgets', false, 7],
      ['pieces', true, 8],
    ],
  );
  t.equal(r.body.groupVersion, 'v1');
  t.match(storageVersionHash(widgetKind), /^[A-Za-z0-9+/]{11}=$/, 'eight bytes, base64');
  t.equal(storageVersionHash(widgetKind), storageVersionHash({ ...widgetKind }), 'stable');
});

t.test('aggregated discovery when kubectl 1.32 asks for it', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}/apis?timeout=32s`, { headers: { Accept: AGG_ACCEPT } });
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  t.equal(r.headers.get('vary'), 'Accept');
  t.equal(r.body.kind, 'APIGroupDiscoveryList');
  t.equal(r.body.apiVersion, 'apidiscovery.k8s.io/v2');
  t.equal(r.body.items.length, 1);
  const g = r.body.items[0];
  t.same(g.metadata, { name: 'test.ballast.io', creationTimestamp: null });
  t.same(g.versions.map((v: { version: string }) => v.version), ['v1', 'v1beta1']);
  t.same(g.versions[0].resources[0], {
    resource: 'widgets',
    responseKind: { group: 'test.ballast.io', version: 'v1', kind: 'Widget' },
    scope: 'Namespaced',
    singularResource: 'widget',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['wd'],
    categories: ['all'],
    subresources: [
      { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
      { subresource: 'status', responseKind: { group: 'test.ballast.io', version: 'v1', kind: 'Widget' }, verbs: ['get', 'patch', 'update'] },
    ],
  });
  t.equal(g.versions[0].freshness, 'Current');
  r = await getJson(`${s.url}/api`, { headers: { Accept: AGG_ACCEPT } });
  t.equal(r.body.items.length, 1);
  t.same(r.body.items[0].metadata, { creationTimestamp: null }, 'the core group has no name');
  t.same(r.body.items[0].versions[0].resources.map((x: { resource: string; scope: string }) => [x.resource, x.scope]), [
    ['gadgets', 'Cluster'],
    ['pieces', 'Namespaced'],
  ]);
  r = await getJson(`${s.url}/apis`, { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList' } });
  t.equal(r.body.apiVersion, 'apidiscovery.k8s.io/v2beta1');
  t.equal(r.headers.get('content-type'), 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList');
  r = await getJson(`${s.url}/apis/test.ballast.io/v1`, { headers: { Accept: AGG_ACCEPT } });
  t.equal(r.body.kind, 'APIResourceList', 'group-version documents stay legacy');
});

t.test('/version answers the VersionInfo; OpenAPI is served', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const r = await getJson(`${s.url}/version?timeout=32s`);
  t.equal(r.status, 200);
  t.same(r.body, testVersion);
  for (const p of ['/openapi/v2', '/openapi/v3']) t.equal((await getJson(s.url + p)).status, 200, p);
  const post = await getJson(`${s.url}/version`, { method: 'POST', body: '{}' });
  t.equal(post.status, 405);
});
