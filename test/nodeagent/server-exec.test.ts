/**
 * /exec proxied to containerd's streaming server: a WebSocket client speaking v4.channel.k8s.io
 * runs `echo hello` in a busybox container started over CRI.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import t from 'tap';
import { BUSYBOX_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { startAgentServer } from '../../src/nodeagent/server/agent-server';
import type { RunningPod } from '../../src/nodeagent/types';
import { containerdSkipReason, startContainerd } from '../helpers/containerd';

// the ws package ships no types: the little of its client used here
interface WsClient {
  on(event: 'message', fn: (data: Buffer) => void): void;
  on(event: 'unexpected-response', fn: (req: unknown, res: import('node:http').IncomingMessage) => void): void;
  on(event: 'error', fn: (err: Error) => void): void;
  on(event: 'close', fn: () => void): void;
}
const WebSocket = createRequire(__filename)('ws') as new (url: string, protocols: string[], opts: { rejectUnauthorized: boolean }) => WsClient;

function execOverWebSocket(url: string): Promise<{ stdout: string; stderr: string; error: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['v4.channel.k8s.io'], { rejectUnauthorized: false });
    const out = { stdout: '', stderr: '', error: '' };
    ws.on('message', (data: Buffer) => {
      const channel = data[0];
      const text = data.subarray(1).toString('utf8');
      if (channel === 1) out.stdout += text;
      else if (channel === 2) out.stderr += text;
      else if (channel === 3) out.error += text;
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(new Error(`${res.statusCode}: ${body}`)));
    });
    ws.on('error', reject);
    ws.on('close', () => resolve(out));
  });
}

t.test('exec through the agent to containerd', { skip: containerdSkipReason() ?? false }, async (t) => {
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  const { runtime } = containerd;
  const uid = crypto.randomUUID();
  const sandboxConfig = {
    metadata: { name: 'web', namespace: 'default', uid, attempt: 0 },
    logDirectory: path.join(containerd.podLogRoot, `default_web_${uid}`),
    linux: { securityContext: { namespaceOptions: { network: 'NODE' as const, pid: 'CONTAINER' as const, ipc: 'POD' as const } } },
  };
  const sandboxId = await runtime.runPodSandbox(sandboxConfig);
  fs.mkdirSync(path.join(sandboxConfig.logDirectory, 'app'), { recursive: true });
  const containerId = await runtime.createContainer(sandboxId, { metadata: { name: 'app', attempt: 0 }, image: { image: BUSYBOX_IMAGE }, command: ['sleep', '3600'], logPath: 'app/0.log' }, sandboxConfig);
  await runtime.startContainer(containerId);
  const running: RunningPod[] = [{ uid, name: 'web', namespace: 'default', sandboxIds: [sandboxId], containers: [{ id: `containerd://${containerId}`, name: 'app', image: BUSYBOX_IMAGE, hash: '', state: 'running' }] }];

  const server = await startAgentServer({
    address: '127.0.0.1',
    port: 0,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 0,
    tls: { certDir: path.join(containerd.dir, 'agent-pki'), hostname: 'localhost' },
    authentication: { anonymous: true, webhook: { enabled: false, cacheTtlMs: 0 } },
    authorization: { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 } },
    nodeName: 'node-a',
    pods: { list: () => [], get: () => undefined },
    runningPods: async () => running,
    runtime,
    registry: new Registry(),
    checks: new Map(),
    logger: pino({ level: 'silent' }),
  });
  t.teardown(() => server.close());

  const base = `wss://127.0.0.1:${server.port}`;
  const hello = await execOverWebSocket(`${base}/exec/default/web/app?command=echo&command=hello&output=1&error=1`);
  t.equal(hello.stdout, 'hello\n');
  t.match(hello.error, /"status":"Success"/);
  const failing = await execOverWebSocket(`${base}/exec/default/web/${uid}/app?command=sh&command=-c&command=echo%20oops%20%3E%262%3B%20exit%203&output=1&error=1`);
  t.equal(failing.stderr, 'oops\n');
  t.match(failing.error, /"reason":"NonZeroExitCode"/);
  await t.rejects(execOverWebSocket(`${base}/exec/default/gone/app?command=true&output=1`), { message: /^404: .*pod does not exist/ });

  const run = await fetchRun(server.port, `/run/default/web/app?cmd=echo%20ran`);
  t.equal(run, 'ran\n', '/run answers ExecSync output');
});

async function fetchRun(port: number, p: string): Promise<string> {
  const https = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: p, method: 'POST', rejectUnauthorized: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
}
