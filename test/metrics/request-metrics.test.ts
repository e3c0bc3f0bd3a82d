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
import { ApiError } from '../../src/api/errors';

async function serve(t: Test, opts: { profiling?: boolean; metrics?: boolean; requestTimeoutSeconds?: number } = {}) {
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
    options: { requestTimeoutSeconds: opts.requestTimeoutSeconds },
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
  registry.failures.set('get', Object.assign(new ApiError(404, 'NotFound', 'nope'), {}));
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

t.test('a request timeout (504) is a termination', async (t) => {
  const { url, metrics, registry } = await serve(t, { requestTimeoutSeconds: 0.1 });
  registry.delayMs = 400;
  const res = await fetch(`${url}/apis/test.ballast.io/v1/namespaces/a/widgets/x`);
  t.equal(res.status, 504);
  await res.text();
  await settle();
  t.equal(await value(metrics, 'apiserver_request_terminations_total', { verb: 'GET', resource: 'widgets', code: '504' }), 1);
  t.equal(await value(metrics, 'apiserver_request_total', { verb: 'GET', resource: 'widgets', code: '504' }), 1);
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

t.test('--profiling: /debug/pprof/ serves a V8 CPU profile and heap snapshot', async (t) => {
  const { url } = await serve(t, { profiling: true, requestTimeoutSeconds: 5 });
  const index = await fetch(`${url}/debug/pprof/`);
  t.equal(index.status, 200);
  t.match(await index.text(), /profile\t.*\nheap\t/);
  const [profile, busy] = await Promise.all([
    fetch(`${url}/debug/pprof/profile?seconds=1`),
    new Promise((r) => setTimeout(r, 100)).then(() => fetch(`${url}/debug/pprof/profile?seconds=1`)),
  ]);
  t.equal(profile.status, 200);
  t.match(profile.headers.get('content-disposition'), /\.cpuprofile/);
  const body = (await profile.json()) as { nodes: unknown[]; startTime: number; endTime: number };
  t.ok(body.nodes.length > 0 && body.endTime > body.startTime, 'a V8 CPU profile');
  t.equal(busy.status, 500, 'one CPU profile at a time');
  t.match(((await busy.json()) as { message: string }).message, /already in use/);
  const tooLong = await fetch(`${url}/debug/pprof/profile?seconds=5`);
  t.equal(tooLong.status, 400, 'a profile must end before the request timeout');
  t.match(((await tooLong.json()) as { message: string }).message, /exceeds server's request timeout/);
  t.equal((await fetch(`${url}/debug/pprof/profile?seconds=-1`)).status, 400);
  t.equal((await fetch(`${url}/debug/pprof/nothing`)).status, 404);
  t.equal((await fetch(`${url}/debug/pprof/`, { method: 'POST' })).status, 405);
  const heap = await fetch(`${url}/debug/pprof/heap`);
  t.equal(heap.status, 200);
  const snapshot = await heap.text();
  t.match(snapshot.slice(0, 20), /^\{"snapshot":/);
  t.ok(JSON.parse(snapshot).nodes.length > 0, 'a whole heap snapshot');
});

t.test('without --profiling, /debug/pprof/ is a 404', async (t) => {
  const { url } = await serve(t, { profiling: false });
  t.equal((await fetch(`${url}/debug/pprof/`)).status, 404);
  t.equal((await fetch(`${url}/debug/pprof/profile?seconds=1`)).status, 404);
});
