import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { Scheme } from '../../src/api/scheme';
import { createApiServerApp } from '../../src/http/app';
import { ApiServerMetrics } from '../../src/metrics/apiserver-metrics';
import { FakeRegistry } from '../http/fake-registry';
import { gadgetKind, pieceKind, testVersion, widgetKind } from '../http/helpers';

async function serve(t: Test, opts: { profiling?: boolean; metrics?: boolean } = {}) {
  const metrics = new ApiServerMetrics({ defaultCollectors: false });
  const registry = new FakeRegistry();
  const { app } = createApiServerApp({
    scheme: new Scheme([widgetKind, gadgetKind, pieceKind]),
    registry,
    logger: pino({ level: 'silent' }),
    health: [{ name: 'etcd', check: async () => {} }],
    version: testVersion,
    metrics: opts.metrics === false ? undefined : metrics,
    profiling: opts.profiling,
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, metrics, registry };
}

async function value(metrics: ApiServerMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = await metrics.registry.getSingleMetric(name)!.get();
  const found = m.values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want));
  return found?.value;
}

const settle = () => new Promise((r) => setTimeout(r, 20));

t.test('every request is counted with kube labels and its code', async (t) => {
  const { url, metrics, registry } = await serve(t);
  await (await fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets`)).text();
  await (await fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets`)).text();
  await (await fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets/x`)).text();
  const body = JSON.stringify({ apiVersion: 'test.ballast.io/v1', kind: 'Widget', metadata: { name: 'n' } });
  await (await fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets?dryRun=All`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })).text();
  registry.failures.set('get', Object.assign(new (await import('../../src/api/errors')).ApiError(404, 'NotFound', 'nope'), {}));
  await (await fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets/gone`)).text();
  await settle();

  const list = { verb: 'LIST', group: 'test.ballast.io', version: 'v1', resource: 'widgets', scope: 'namespace', component: 'apiserver', code: '200', dry_run: '' };
  t.equal(await value(metrics, 'apiserver_request_total', list), 2);
  t.equal(await value(metrics, 'apiserver_request_total', { ...list, verb: 'GET', scope: 'resource' }), 1);
  t.equal(await value(metrics, 'apiserver_request_total', { ...list, verb: 'GET', scope: 'resource', code: '404' }), 1);
  t.equal(await value(metrics, 'apiserver_request_total', { ...list, verb: 'POST', scope: 'resource', dry_run: 'All', code: '201' }), 1);
  t.equal(await value(metrics, 'apiserver_request_duration_seconds', { verb: 'LIST', resource: 'widgets', le: '60' }), 2);
  t.ok(((await value(metrics, 'apiserver_response_sizes', { verb: 'LIST', resource: 'widgets', le: '+Inf' })) ?? 0) === 2, 'LIST response sizes observed');
  t.equal(await value(metrics, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 0, 'nothing left in flight');
});

t.test('in-flight requests are counted while they run', async (t) => {
  const { url, metrics, registry } = await serve(t);
  registry.delayMs = 200;
  const pending = fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets`).then((r) => r.text());
  await new Promise((r) => setTimeout(r, 80));
  t.equal(await value(metrics, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 1);
  await pending;
  await settle();
  t.equal(await value(metrics, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 0);
});

t.test('watches are long-running and registered watchers until they end', async (t) => {
  const { url, metrics, registry } = await serve(t);
  const ac = new AbortController();
  const res = await fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets?watch=true`, { signal: ac.signal });
  t.equal(res.status, 200);
  t.equal(registry.watches.length, 1);
  t.equal(await value(metrics, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'widgets' }), 1);
  t.equal(await value(metrics, 'apiserver_registered_watchers', { group: 'test.ballast.io', version: 'v1', kind: 'Widget' }), 1);
  t.equal(await value(metrics, 'apiserver_current_inflight_requests', { request_kind: 'readOnly' }), 0, 'not in flight');
  registry.watches[0].sink.end();
  await res.text().catch(() => '');
  await settle();
  t.equal(await value(metrics, 'apiserver_longrunning_requests', { verb: 'WATCH', resource: 'widgets' }), 0);
  t.equal(await value(metrics, 'apiserver_registered_watchers', { kind: 'Widget' }), 0);
  t.equal(await value(metrics, 'apiserver_request_total', { verb: 'WATCH', resource: 'widgets', code: '200' }), 1, 'counted once, when it ended');
});

t.test('a client that leaves before the answer is an abort', async (t) => {
  const { url, metrics, registry } = await serve(t);
  registry.delayMs = 300;
  const ac = new AbortController();
  const p = fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets/x`, { signal: ac.signal }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 50));
  ac.abort();
  await p;
  await new Promise((r) => setTimeout(r, 400));
  t.equal(await value(metrics, 'apiserver_request_aborts_total', { verb: 'GET', resource: 'widgets', scope: 'resource' }), 1);
});

t.test('GET /metrics serves the Prometheus text', async (t) => {
  const { url } = await serve(t);
  await (await fetch(`${url}/api/v1/gadgets`)).text();
  const res = await fetch(`${url}/metrics`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain/);
  const text = await res.text();
  t.match(text, /# TYPE apiserver_request_total counter/);
  t.match(text, /apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="gadgets",subresource="",scope="cluster",component="apiserver",code="200"\} 1/);
  t.match(text, /apiserver_current_inflight_requests\{request_kind="mutating"\} 0/);
  t.match(text, /apiserver_request_duration_seconds_bucket\{le="0.005",verb="LIST"/);
});

t.test('without metrics, /metrics is a 404', async (t) => {
  const { url } = await serve(t, { metrics: false });
  t.equal((await fetch(`${url}/metrics`)).status, 404);
});
