/**
 * Connect subresources over HTTP with the real registry: kube's answers where they need no node
 * agent (404 for the object, 400 for a bad container or an unbound pod, an empty log for an
 * unbound pod), otherwise a 503 naming what is missing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { createApiServerApp } from '../../src/http/app';
import { makeFixture, write } from '../helpers/registry-fixture';
import type { KubeObject } from '../../src/api/kind';
import { getJson, testVersion } from './helpers';

async function serve(t: Test) {
  const f = await makeFixture();
  const { app } = createApiServerApp({ scheme: f.scheme, registry: f.registry, logger: pino({ level: 'silent' }), health: [], version: testVersion });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await f.close();
  });
  return { f, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const pod = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec } });
const NS = '/api/v1/namespaces/default';

t.test('pods: NotFound for a missing pod, kube\'s 400s, an empty log for an unbound pod, 503 otherwise', async (t) => {
  const { f, url } = await serve(t);
  const pods = f.target('pods', 'default');
  await f.registry.create(pods, pod('pending', {}), write);
  await f.registry.create(pods, pod('bound', { nodeName: 'node-1' }), write);
  await f.registry.create(pods, pod('two', { nodeName: 'node-1', containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'x' }], initContainers: [{ name: 'i', image: 'x' }] }), write);

  for (const [method, sub] of [['GET', 'log'], ['POST', 'exec'], ['GET', 'exec'], ['POST', 'attach'], ['POST', 'portforward'], ['GET', 'proxy']]) {
    const r = await getJson(`${url}${NS}/pods/missing/${sub}`, { method });
    t.equal(r.status, 404, `${method} ${sub}`);
    t.match(r.body, { kind: 'Status', reason: 'NotFound', message: 'pods "missing" not found', details: { name: 'missing', kind: 'pods' } });
  }

  const emptyLog = await fetch(`${url}${NS}/pods/pending/log?container=app`);
  t.equal(emptyLog.status, 200, 'kube: no node, no log yet');
  t.equal(await emptyLog.text(), '');
  const exec = await getJson(`${url}${NS}/pods/pending/exec?command=sh&stdout=true&container=app`, { method: 'POST' });
  t.match(exec, { status: 400, body: { reason: 'BadRequest', message: 'pod pending does not have a host assigned' } });
  t.match(await getJson(`${url}${NS}/pods/pending/portforward?ports=80`, { method: 'POST' }), { status: 400, body: { message: 'pod pending does not have a host assigned' } });

  const wrong = await getJson(`${url}${NS}/pods/bound/log?container=nope`);
  t.match(wrong, { status: 400, body: { reason: 'BadRequest', message: 'container nope is not valid for pod bound' } });
  t.match(await getJson(`${url}${NS}/pods/bound/exec?container=nope&command=sh`, { method: 'POST' }), { status: 400, body: { message: 'container nope is not valid for pod bound' } });
  t.match(await getJson(`${url}${NS}/pods/two/log`), {
    status: 400,
    body: { message: 'a container name must be specified for pod two, choose one of: [a b] or one of the init containers: [i]' },
  });

  for (const [method, sub, query] of [['GET', 'log', 'container=app'], ['POST', 'exec', 'command=sh&stdout=true'], ['POST', 'attach', 'stdout=true'], ['POST', 'portforward', 'ports=80'], ['GET', 'log', '']]) {
    const r = await getJson(`${url}${NS}/pods/bound/${sub}?${query}`, { method });
    t.equal(r.status, 503, `${method} ${sub}`);
    t.match(r.body, { kind: 'Status', status: 'Failure', reason: 'ServiceUnavailable', code: 503, message: `pods/${sub} is not available: no node agent serves node "node-1" yet` });
    t.notOk(r.headers.get('retry-after'), 'no Retry-After: clients must not retry for ever');
  }
  t.match(await getJson(`${url}${NS}/pods/two/log?container=i`), { status: 503 }, 'an init container is a valid container');

  t.match(await getJson(`${url}${NS}/pods/bound/proxy/healthz`), { status: 400, body: { message: 'address not allowed' } }, 'no pod IP yet');
  t.match(await getJson(`${url}${NS}/pods/a:b:c:d/proxy`), { status: 400, body: { message: 'invalid pod request "a:b:c:d"' } });
  t.match(await getJson(`${url}${NS}/pods/bound/log`, { method: 'PUT', body: '{}' }), { status: 405, body: { reason: 'MethodNotAllowed' } });
});

t.test('services/proxy and nodes/proxy', async (t) => {
  const { f, url } = await serve(t);
  t.match(await getJson(`${url}${NS}/services/web/proxy/`), { status: 404, body: { reason: 'NotFound', message: 'services "web" not found' } });
  await f.registry.create(f.target('services', 'default'), { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } }, write);
  t.match(await getJson(`${url}${NS}/services/http:web:80/proxy/index.html`), { status: 503, body: { reason: 'ServiceUnavailable', message: 'no endpoints available for service "web"' } });
  t.match(await getJson(`${url}/api/v1/nodes/node-1/proxy/stats`), { status: 404, body: { message: 'nodes "node-1" not found' } });
  await f.registry.create(f.target('nodes'), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' } }, write);
  t.match(await getJson(`${url}/api/v1/nodes/node-1/proxy/stats`), { status: 503, body: { message: 'nodes/proxy is not available: no node agent serves node "node-1" yet' } });
});

t.test('discovery lists kube\'s connect subresources with their kinds and verbs', async (t) => {
  const { url } = await serve(t);
  const list = (await getJson(`${url}/api/v1`)).body as { resources: Array<{ name: string; kind: string; verbs: string[]; namespaced: boolean }> };
  const pick = (name: string) => {
    const r = list.resources.find((x) => x.name === name)!;
    return r && { kind: r.kind, verbs: r.verbs, namespaced: r.namespaced };
  };
  const proxy = ['create', 'delete', 'get', 'patch', 'update'];
  t.same(pick('pods/attach'), { kind: 'PodAttachOptions', verbs: ['create', 'get'], namespaced: true });
  t.same(pick('pods/exec'), { kind: 'PodExecOptions', verbs: ['create', 'get'], namespaced: true });
  t.same(pick('pods/log'), { kind: 'Pod', verbs: ['get'], namespaced: true });
  t.same(pick('pods/portforward'), { kind: 'PodPortForwardOptions', verbs: ['create', 'get'], namespaced: true });
  t.same(pick('pods/proxy'), { kind: 'PodProxyOptions', verbs: proxy, namespaced: true });
  t.same(pick('nodes/proxy'), { kind: 'NodeProxyOptions', verbs: proxy, namespaced: false });
  t.same(pick('services/proxy'), { kind: 'ServiceProxyOptions', verbs: proxy, namespaced: true });
});
