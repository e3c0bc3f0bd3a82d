/**
 * The prober's probe kinds and one probe with its events (src/nodeagent/prober/probe-kinds.ts,
 * prober.ts): exec through a fake RuntimeService, httpGet and tcpSocket against local servers.
 */
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { status as GrpcStatus } from '@grpc/grpc-js';
import t, { type Test } from 'tap';
import { CriError } from '../../src/nodeagent/cri/cri-error';
import type { ExecSyncResponse__Output } from '../../src/nodeagent/cri/generated/runtime/v1/ExecSyncResponse';
import { execProbe, httpProbe, MAX_PROBE_OUTPUT_BYTES, tcpProbe } from '../../src/nodeagent/prober/probe-kinds';
import { expandStatic, probe, probePort, type ContainerSpec } from '../../src/nodeagent/prober/prober';
import type { Pod } from '../../src/nodeagent/types';

function fakeRuntime(answer: (id: string, cmd: string[], timeout: number) => Promise<ExecSyncResponse__Output>) {
  const calls: { id: string; cmd: string[]; timeout: number }[] = [];
  return {
    calls,
    execSync: (id: string, cmd: string[], timeout = 0) => {
      calls.push({ id, cmd, timeout });
      return answer(id, cmd, timeout);
    },
  };
}

const reply = (exitCode: number, stdout = '', stderr = '') => async () => ({ exitCode, stdout: Buffer.from(stdout), stderr: Buffer.from(stderr) });

function recorder() {
  const events: string[] = [];
  return { events, event: (_pod: Pod, type: string, reason: string, message: string) => void events.push(`${type} ${reason} ${message}`) };
}

async function server(t: Test, handler: http.RequestListener): Promise<number> {
  const s = http.createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => s.close(() => resolve())));
  return (s.address() as AddressInfo).port;
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'u1' }, spec: {} };

t.test('exec: exit 0 success, else failure with the output; timeout; truncation', async (t) => {
  t.same(await execProbe(fakeRuntime(reply(0, 'ok\n')), 'c1', ['true'], 1), { result: 'success', output: 'ok\n' });
  t.same(await execProbe(fakeRuntime(reply(1, 'out ', 'err')), 'c1', ['false'], 1), { result: 'failure', output: 'out err' });
  const runtime = fakeRuntime(async () => {
    throw new CriError('RuntimeService/ExecSync', GrpcStatus.DEADLINE_EXCEEDED, 'timeout 2s exceeded: context deadline exceeded');
  });
  t.same(await execProbe(runtime, 'c1', ['sleep', '5'], 2), { result: 'failure', output: 'command "sleep 5" timed out' });
  t.same(runtime.calls, [{ id: 'c1', cmd: ['sleep', '5'], timeout: 2 }], 'ExecSync gets the probe timeout');
  const big = await execProbe(fakeRuntime(reply(1, 'x'.repeat(20_000))), 'c1', ['x'], 1);
  t.equal(big.output.length, MAX_PROBE_OUTPUT_BYTES, 'output kept to 10 KiB');
  await t.rejects(execProbe(fakeRuntime(async () => Promise.reject(new Error('container not running'))), 'c1', ['x'], 1), { message: 'container not running' });
});

t.test('exec commands expand $(VAR) from static env values only', async (t) => {
  const container: ContainerSpec = { name: 'c', env: [{ name: 'A', value: 'one' }, { name: 'B', valueFrom: { fieldRef: { fieldPath: 'x' } } }] };
  t.same(expandStatic(['echo', '$(A)', '$(B)', '$$(A)', '$(C)'], container), ['echo', 'one', '$(B)', '$(A)', '$(C)']);
});

t.test('ports by number or name', async (t) => {
  const container: ContainerSpec = { name: 'c', ports: [{ name: 'http', containerPort: 8080 }] };
  t.equal(probePort(80, container), 80);
  t.equal(probePort('http', container), 8080);
  t.equal(probePort('9090', container), 9090);
  t.throws(() => probePort('grpc', container), /couldn't find port: grpc/);
  t.throws(() => probePort(70000, container), /invalid port number: 70000/);
});

t.test('httpGet: status codes, headers, redirects, timeouts, refused', async (t) => {
  const seen: http.IncomingHttpHeaders[] = [];
  const port = await server(t, (req, res) => {
    seen.push(req.headers);
    if (req.url === '/ok') res.end('fine');
    else if (req.url === '/bad') res.writeHead(500).end('broken');
    else if (req.url === '/moved') res.writeHead(302, { location: '/ok' }).end();
    else if (req.url === '/away') res.writeHead(302, { location: 'http://elsewhere.invalid/' }).end('going away');
    else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else if (req.url === '/slow') setTimeout(() => res.end('late'), 2000);
    else if (req.url === '/big') res.end('y'.repeat(50_000));
    else res.writeHead(404).end();
  });
  const url = (path: string) => new URL(`http://127.0.0.1:${port}${path}`);
  t.same(await httpProbe(url('/ok'), {}, 1000), { result: 'success', output: 'fine' });
  t.equal(seen[0]?.['user-agent'], 'kube-probe/1.20');
  t.equal(seen[0]?.accept, '*/*');
  await httpProbe(url('/ok'), { 'X-Custom': 'v', 'User-Agent': 'mine' }, 1000);
  t.equal(seen[1]?.['x-custom'], 'v');
  t.equal(seen[1]?.['user-agent'], 'mine', 'a given User-Agent wins');
  t.same(await httpProbe(url('/bad'), {}, 1000), { result: 'failure', output: 'HTTP probe failed with statuscode: 500' });
  t.same(await httpProbe(url('/moved'), {}, 1000), { result: 'success', output: 'fine' }, 'a redirect on the same host is followed');
  t.same(await httpProbe(url('/away'), {}, 1000), { result: 'warning', output: 'going away' }, 'a redirect to another host: success with a warning');
  t.match(await httpProbe(url('/loop'), {}, 1000), { result: 'failure', output: /stopped after 10 redirects/ });
  t.same(await httpProbe(url('/slow'), {}, 200), { result: 'failure', output: `Get "${url('/slow').href}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` });
  t.equal((await httpProbe(url('/big'), {}, 1000)).output.length, MAX_PROBE_OUTPUT_BYTES, 'the body read is limited');
  const closed = await closedPort();
  t.same(await httpProbe(new URL(`http://127.0.0.1:${closed}/`), {}, 1000), { result: 'failure', output: `Get "http://127.0.0.1:${closed}/": dial tcp 127.0.0.1:${closed}: connect: connection refused` });
});

t.test('tcpSocket: connect, refused', async (t) => {
  const port = await server(t, (_req, res) => res.end());
  t.same(await tcpProbe('127.0.0.1', port, 1000), { result: 'success', output: '' });
  const closed = await closedPort();
  t.same(await tcpProbe('127.0.0.1', closed, 1000), { result: 'failure', output: `dial tcp 127.0.0.1:${closed}: connect: connection refused` });
});

t.test('probe(): events and messages as kubelet', async (t) => {
  const port = await server(t, (req, res) => {
    if (req.url === '/away') res.writeHead(301, { location: 'http://other.invalid/x' }).end('moved');
    else res.writeHead(500).end();
  });
  const container: ContainerSpec = {
    name: 'app',
    ports: [{ name: 'web', containerPort: port }],
    livenessProbe: { exec: { command: ['cat', '/tmp/healthy'] } },
    readinessProbe: { httpGet: { port: 'web', path: '/ready' } },
    startupProbe: { tcpSocket: { port: await closedPort() } },
  };
  const events = recorder();
  const runtime = fakeRuntime(reply(1, "cat: can't open '/tmp/healthy': No such file or directory\n"));
  const target = { pod, container, containerId: 'process://abc', podIP: '127.0.0.1' };
  t.equal(await probe(runtime, events, 'liveness', target), 'failure');
  t.equal(runtime.calls[0]?.id, 'abc', 'ExecSync gets the bare container id');
  t.equal(await probe(runtime, events, 'readiness', target), 'failure');
  t.equal(await probe(runtime, events, 'startup', target), 'failure');
  t.same(events.events.slice(0, 2), [
    "Warning Unhealthy Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
    'Warning Unhealthy Readiness probe failed: HTTP probe failed with statuscode: 500',
  ]);
  t.match(events.events[2], /^Warning Unhealthy Startup probe failed: dial tcp 127\.0\.0\.1:\d+: connect: connection refused$/);

  const redirecting = { ...target, container: { ...container, readinessProbe: { httpGet: { port, path: '/away' } } } };
  t.equal(await probe(runtime, events, 'readiness', redirecting), 'success');
  t.equal(events.events[3], 'Warning ProbeWarning Readiness probe warning: moved');

  const erroring = fakeRuntime(async () => Promise.reject(new Error('container is in CONTAINER_EXITED state')));
  await t.rejects(probe(erroring, events, 'liveness', target));
  t.equal(erroring.calls.length, 3, 'retried three times');
  t.equal(events.events[4], 'Warning Unhealthy Liveness probe errored: container is in CONTAINER_EXITED state');
  t.equal(await probe(runtime, events, 'liveness', { ...target, container: { name: 'plain' } }), 'success', 'no probe: success');
});
