import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import t, { type Test } from 'tap';
import { AgentMetrics } from '../../src/nodeagent/server/agent-metrics';
import { startAgentServer, type AgentServerOptions } from '../../src/nodeagent/server/agent-server';
import { generateSelfSignedCertKey } from '../../src/nodeagent/server/serving-cert';
import type { Summary } from '../../src/nodeagent/server/stats';
import type { Pod, RunningPod } from '../../src/nodeagent/types';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function request(port: number, p: string, opts: { method?: string; body?: string; headers?: Record<string, string>; tls?: boolean } = {}): Promise<Answer> {
  const lib = opts.tls === false ? http : https;
  return new Promise((resolve, reject) => {
    const req = lib.request({ host: '127.0.0.1', port, path: p, method: opts.method ?? 'GET', headers: opts.headers, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const POD: Pod = {
  metadata: { name: 'web', namespace: 'ns', uid: 'uid-1' },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
  status: { containerStatuses: [{ name: 'app', containerID: 'containerd://c1', state: { running: {} }, restartCount: 0 }] },
} as Pod;

const RUNNING: RunningPod[] = [{ uid: 'uid-1', name: 'web', namespace: 'ns', sandboxIds: ['s1'], containers: [{ id: 'containerd://c1', name: 'app', image: 'busybox', hash: 'h', state: 'running' }] }];

const SUMMARY: Summary = {
  node: {
    nodeName: 'node-a',
    startTime: '2024-01-01T00:00:00Z',
    cpu: { time: '2024-01-01T00:01:00Z', usageNanoCores: 1000, usageCoreNanoSeconds: 5_000_000_000 },
    memory: { time: '2024-01-01T00:01:00Z', workingSetBytes: 1024, availableBytes: 4096 },
    fs: { time: '2024-01-01T00:01:00Z', capacityBytes: 100, usedBytes: 10 },
  },
  pods: [
    {
      podRef: { name: 'web', namespace: 'ns', uid: 'uid-1' },
      startTime: '2024-01-01T00:00:10Z',
      cpu: { time: '2024-01-01T00:01:00Z', usageCoreNanoSeconds: 2_000_000_000 },
      memory: { time: '2024-01-01T00:01:00Z', workingSetBytes: 512 },
      volume: [{ name: 'data', time: '2024-01-01T00:01:00Z', usedBytes: 1 }],
      containers: [{ name: 'app', startTime: '2024-01-01T00:00:11Z', cpu: { time: '2024-01-01T00:01:00Z', usageCoreNanoSeconds: 1_500_000_000 }, memory: { time: '2024-01-01T00:01:00Z', workingSetBytes: 256 }, rootfs: { time: '2024-01-01T00:01:00Z', usedBytes: 3 } }],
    },
  ],
};

// one serving pair for the tests that do not look at it (RSA keys are slow to make)
const shared = generateSelfSignedCertKey('node-a', ['127.0.0.1'], []);

async function start(t: Test, over: Partial<AgentServerOptions> = {}, ownCertificate = false) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-server-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const certFile = path.join(dir, 'shared.crt');
  const keyFile = path.join(dir, 'shared.key');
  fs.writeFileSync(certFile, shared.cert);
  fs.writeFileSync(keyFile, shared.key);
  const tlsFiles = ownCertificate ? {} : { certFile, privateKeyFile: keyFile };
  const logFile = path.join(dir, '0.log');
  fs.writeFileSync(logFile, '2024-01-01T00:00:00Z stdout F hello\n2024-01-01T00:00:01Z stderr F world\n');
  const registry = new Registry();
  const metrics = new AgentMetrics(registry);
  metrics.runningPods.set(1);
  metrics.runningContainers.set({ container_state: 'running' }, 1);
  let syncloop: string | undefined;
  const execs: { id: string; cmd: string[] }[] = [];
  const server = await startAgentServer({
    address: '127.0.0.1',
    port: 0,
    readOnlyPort: -1,
    healthzBindAddress: '127.0.0.1',
    healthzPort: -1,
    tls: { certDir: path.join(dir, 'pki'), hostname: 'node-a', nodeIps: ['127.0.0.1'], ...tlsFiles },
    authentication: { anonymous: true, webhook: { enabled: false, cacheTtlMs: 0 } },
    authorization: { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 } },
    nodeName: 'node-a',
    pods: { list: () => [POD], get: (ns, name) => (ns === 'ns' && name === 'web' ? POD : undefined) },
    runningPods: async () => RUNNING,
    runtime: {
      exec: async () => 'http://127.0.0.1:1/exec/x',
      attach: async () => 'http://127.0.0.1:1/attach/x',
      portForward: async () => 'http://127.0.0.1:1/portforward/x',
      execSync: async (id: string, cmd: string[]) => {
        execs.push({ id, cmd });
        return { stdout: Buffer.from('out\n'), stderr: Buffer.from('err\n'), exitCode: 0 };
      },
      containerStatus: async () => ({ status: null }) as never,
    },
    logs: { containerLog: async (id) => (id === 'c1' ? { path: logFile, running: false } : undefined) },
    stats: { summary: async () => SUMMARY },
    registry,
    checks: new Map([['syncloop', () => syncloop]]),
    logger: pino({ level: 'silent' }),
    ...over,
  });
  t.teardown(() => server.close());
  return { server, dir, execs, setSyncloop: (v: string | undefined) => (syncloop = v) };
}

t.test('a generated serving certificate: kubelet.crt and kubelet.key for the host name and node IPs', async (t) => {
  const { server, dir } = await start(t, {}, true);
  const pem = fs.readFileSync(path.join(dir, 'pki', 'kubelet.crt'), 'utf8');
  t.ok(fs.existsSync(path.join(dir, 'pki', 'kubelet.key')));
  t.equal(pem, server.certificate);
  const leaf = new crypto.X509Certificate(pem);
  t.match(leaf.subject, /^CN=node-a@\d+$/);
  t.match(leaf.issuer, /^CN=node-a-ca@\d+$/);
  t.match(leaf.subjectAltName, /IP Address:127\.0\.0\.1/);
  t.match(leaf.subjectAltName, /DNS:node-a/);
});

t.test('health: the main port with syncloop, the healthz port with ping only', async (t) => {
  const { server, setSyncloop } = await start(t);
  t.same(await request(server.port, '/healthz').then((a) => [a.status, a.body]), [200, 'ok']);
  t.same(await request(server.port, '/healthz/ping').then((a) => [a.status, a.body]), [200, 'ok']);
  t.same(await request(server.port, '/healthz/syncloop').then((a) => [a.status, a.body]), [200, 'ok']);
  setSyncloop('sync loop took too long');
  const failing = await request(server.port, '/healthz');
  t.equal(failing.status, 500);
  t.equal(failing.body, '[+]ping ok\n[+]log ok\n[-]syncloop failed: reason withheld\nhealthz check failed\n');
  t.equal((await request(server.port, '/healthz/syncloop')).status, 500);
  const port = await request(server.healthzPort, '/healthz', { tls: false });
  t.same([port.status, port.body], [200, 'ok'], 'the healthz port does not run the syncloop check');
  t.equal((await request(server.healthzPort, '/healthz/syncloop', { tls: false })).status, 404);
});

t.test('/pods and /runningpods/', async (t) => {
  const { server } = await start(t);
  const pods = JSON.parse((await request(server.port, '/pods')).body);
  t.equal(pods.kind, 'PodList');
  t.equal(pods.apiVersion, 'v1');
  t.same(pods.items.map((p: Pod) => p.metadata?.name), ['web']);
  const running = JSON.parse((await request(server.port, '/runningpods/')).body);
  t.same(running.items[0].metadata, { name: 'web', namespace: 'ns', uid: 'uid-1', creationTimestamp: null });
  t.same(running.items[0].spec.containers, [{ name: 'app', image: 'busybox', resources: {} }]);
});

t.test('/containerLogs over HTTP', async (t) => {
  const { server } = await start(t);
  const logs = await request(server.port, '/containerLogs/ns/web/app?timestamps=true&tailLines=1');
  t.same([logs.status, logs.body], [200, '2024-01-01T00:00:01Z world\n']);
  const missing = await request(server.port, '/containerLogs/ns/nope/app');
  t.same([missing.status, missing.body], [404, 'pod "nope" does not exist']);
  const previous = await request(server.port, '/containerLogs/ns/web/app?previous=true');
  t.same([previous.status, previous.body], [400, 'previous terminated container "app" in pod "web" not found']);
});

t.test('/run: ExecSync with the combined output', async (t) => {
  const { server, execs } = await start(t);
  const run = await request(server.port, '/run/ns/web/app?cmd=ls%20-l%20/', { method: 'POST' });
  t.same([run.status, run.body], [200, 'out\nerr\n']);
  t.same(execs, [{ id: 'c1', cmd: ['ls', '-l', '/'] }]);
  const form = await request(server.port, '/run/ns/web/uid-1/app', { method: 'POST', body: 'cmd=echo+hi', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  t.equal(form.status, 200);
  t.same(execs[1].cmd, ['echo', 'hi']);
  t.equal((await request(server.port, '/run/ns/gone/app', { method: 'POST' })).status, 404);
});

t.test('/exec without an upgrade: kube Status errors', async (t) => {
  const { server } = await start(t);
  const noStreams = await request(server.port, '/exec/ns/web/app?command=ls');
  t.equal(noStreams.status, 400);
  t.match(JSON.parse(noStreams.body), { kind: 'Status', message: 'you must specify at least 1 of stdin, stdout, stderr', code: 400 });
  const noPod = await request(server.port, '/exec/ns/gone/app?command=ls&output=1');
  t.match(JSON.parse(noPod.body), { kind: 'Status', code: 404, reason: 'NotFound', message: 'pod does not exist' });
  const noContainer = await request(server.port, '/exec/ns/web/other?command=ls&output=1');
  t.match(JSON.parse(noContainer.body), { code: 404, message: 'container not found ("other")' });
  const noUpgrade = await request(server.port, '/exec/ns/web/app?command=ls&output=1');
  t.match(JSON.parse(noUpgrade.body), { code: 400, message: 'Upgrade request required' });
});

t.test('/stats/summary and only_cpu_and_memory', async (t) => {
  const { server } = await start(t);
  const full = JSON.parse((await request(server.port, '/stats/summary')).body);
  t.same(full, SUMMARY);
  const slim = JSON.parse((await request(server.port, '/stats/summary?only_cpu_and_memory=true')).body);
  t.equal(slim.node.fs, undefined);
  t.equal(slim.pods[0].volume, undefined);
  t.equal(slim.pods[0].containers[0].rootfs, undefined);
  t.same(slim.pods[0].containers[0].memory, { time: '2024-01-01T00:01:00Z', workingSetBytes: 256 });
  const posted = JSON.parse((await request(server.port, '/stats/summary', { method: 'POST', body: '{"only_cpu_and_memory":true}' })).body);
  t.equal(posted.node.fs, undefined);
});

t.test('/metrics and /metrics/resource', async (t) => {
  const { server } = await start(t);
  const metrics = (await request(server.port, '/metrics')).body;
  t.match(metrics, /^kubelet_running_pods 1$/m);
  t.match(metrics, /^kubelet_running_containers\{container_state="running"\} 1$/m);
  t.match(metrics, /# TYPE kubelet_pod_worker_duration_seconds histogram/);
  const resource = (await request(server.port, '/metrics/resource')).body;
  const at = Date.parse('2024-01-01T00:01:00Z');
  t.match(resource, new RegExp(`^node_cpu_usage_seconds_total 5 ${at}$`, 'm'));
  t.match(resource, new RegExp(`^node_memory_working_set_bytes 1024 ${at}$`, 'm'));
  t.match(resource, new RegExp(`^container_cpu_usage_seconds_total\\{container="app",namespace="ns",pod="web"\\} 1.5 ${at}$`, 'm'));
  t.match(resource, new RegExp(`^container_memory_working_set_bytes\\{container="app",namespace="ns",pod="web"\\} 256 ${at}$`, 'm'));
  t.match(resource, new RegExp(`^pod_cpu_usage_seconds_total\\{namespace="ns",pod="web"\\} 2 ${at}$`, 'm'));
  t.match(resource, new RegExp(`^pod_memory_working_set_bytes\\{namespace="ns",pod="web"\\} 512 ${at}$`, 'm'));
  t.match(resource, /^scrape_error 0$/m);
});

t.test('/metrics/resource says scrape_error 1 when stats fail', async (t) => {
  const { server } = await start(t, { stats: { summary: async () => Promise.reject(new Error('no stats')) } });
  t.match((await request(server.port, '/metrics/resource')).body, /^scrape_error 1$/m);
});

t.test('the read-only port: default handlers, no auth, GET only', async (t) => {
  const { server } = await start(t, { authentication: { anonymous: false, webhook: { enabled: false, cacheTtlMs: 0 } } });
  t.equal((await request(server.port, '/pods')).status, 401, 'the main port refuses anonymous');
  t.equal((await request(server.port, '/pods')).body, 'Unauthorized');
  const pods = await request(server.readOnlyPort, '/pods', { tls: false });
  t.equal(pods.status, 200);
  t.equal(JSON.parse(pods.body).items.length, 1);
  t.equal((await request(server.readOnlyPort, '/healthz', { tls: false })).body, 'ok');
  t.equal((await request(server.readOnlyPort, '/containerLogs/ns/web/app', { tls: false })).status, 404, 'no debugging handlers');
  t.equal((await request(server.readOnlyPort, '/pods', { tls: false, method: 'POST' })).status, 405);
});
