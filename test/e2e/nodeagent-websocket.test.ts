/**
 * kubectl 1.32 over WebSocket (v5.channel.k8s.io for exec and attach, SPDY tunnelled in WebSocket
 * for port-forward) through the real API server, a `ballast nodeagent` process and a private
 * containerd. Each kubectl runs at -v=4 so its log shows the negotiated protocol and would show
 * a fall back to SPDY; both client features are switched on explicitly. A raw WebSocket client
 * checks v5's close signal and that the older v4 protocol still reaches containerd as it is.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { RESOURCES } from '../../src/client/resources';
import { BUSYBOX_IMAGE } from '../../src/nodeagent/cri/busybox-images';
import { containerdSkipReason, startContainerd } from '../helpers/containerd';
import { startControllers } from '../helpers/controllers';
import { recordingClient } from '../http/connect-websocket-clients';
import { ownPodLogs } from '../helpers/nodeagent-config';
import { MAIN_JS, freePort, kubectlPath, missingKubectl, startApiServer, tempDir, waitFor } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const skip = containerdSkipReason() ?? missingKubectl('1.32') ?? (fs.existsSync(MAIN_JS) ? undefined : 'run make build first');

/** kubectl 1.32 with both WebSocket client features on and a log of what it negotiated */
function kubectl(t: Test, kubeconfig: string, args: string[]): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const home = tempDir(t, 'ballast-ws-kubectl-');
  const child = spawn(kubectlPath('1.32')!, ['--kubeconfig', kubeconfig, '-v=4', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'true', KUBECTL_PORT_FORWARD_WEBSOCKETS: 'true' },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return { child, out: () => out, err: () => err, exited };
}

async function run(t: Test, kubeconfig: string, args: string[], input?: string) {
  const k = kubectl(t, kubeconfig, args);
  k.child.stdin!.end(input);
  const timer = setTimeout(() => k.child.kill('SIGKILL'), 30_000);
  const code = await k.exited;
  clearTimeout(timer);
  return { code, stdout: k.out(), log: k.err() };
}

/** kubectl's own log lines (klog: a level letter and a date) apart from what the command wrote */
const ownOutput = (log: string) => log.split('\n').filter((l) => !/^[IWE]\d{4} /.test(l)).join('\n');

t.test('kubectl 1.32 exec, attach and port-forward over WebSocket', { skip }, async (t) => {
  const server = await startApiServer(t);
  startControllers(t, server, ['root-ca-cert-publisher']);
  const containerd = await startContainerd();
  t.teardown(() => containerd.stop());
  const config = loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test' });
  const client = new RestClient(config, { qps: -1 });
  const nodeName = os.hostname().toLowerCase();
  let output = '';
  // a configuration file's defaults are webhook authentication and authorization, as kubeadm sets a node up: the API
  // server's kubelet client certificate is of the cluster CA, its SubjectAccessReviews are allowed
  const agent = spawn(
    process.execPath,
    [
      MAIN_JS, 'nodeagent', '--kubeconfig', server.kubeconfig, '--container-runtime-endpoint', containerd.endpoint,
      '--root-dir', tempDir(t, 'ballast-ws-agent-root-'), '--config', ownPodLogs(t, ['authentication:', '  x509:', `    clientCAFile: ${path.join(server.dataDir, 'pki', 'ca.crt')}`]), '--fail-swap-on=false', '--cni-conf-dir', containerd.cniConfDir,
      '--cgroups-per-qos=false', '--enforce-node-allocatable=', '--port', String(await freePort()), '--read-only-port', '0',
      '--healthz-port', '0', '--node-status-update-frequency', '2s', '--sync-frequency', '5s',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  agent.stdout.on('data', (d: Buffer) => (output += d.toString()));
  agent.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => agent.on('exit', resolve));
  t.teardown(async () => {
    if (agent.exitCode === null) agent.kill('SIGTERM');
    await exited;
    if (process.env.BALLAST_TEST_LOG || !t.passing()) t.comment(`node agent output:\n${output.slice(-6000)}`);
  });
  await waitFor(`node ${nodeName} Ready`, async () => {
    if (agent.exitCode !== null) throw new Error(`the node agent exited with ${agent.exitCode}: ${output}`);
    const n = (await client.get(RESOURCES.nodes, undefined, nodeName).catch(() => undefined)) as Obj | undefined;
    return (n?.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');
  }, 60_000);
  await waitFor('kube-root-ca.crt in default', () => client.get(RESOURCES.configMaps, 'default', 'kube-root-ca.crt').catch(() => undefined));

  const httpPort = await freePort();
  const container = (command: string, extra: Obj = {}) => ({ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', command], ...extra });
  const pod = (name: string, c: Obj): Obj => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName, hostNetwork: true, terminationGracePeriodSeconds: 1, containers: [c] },
  });
  await client.create(RESOURCES.pods, 'default', pod('web', container('exec sleep 3600', { env: [{ name: 'GREETING', value: 'hello' }] })));
  await client.create(RESOURCES.pods, 'default', pod('talk', container('while read l; do echo got $l; done', { stdin: true })));
  await client.create(RESOURCES.pods, 'default', pod('http', container(`mkdir -p /www && echo served > /www/index.html && exec httpd -f -p ${httpPort} -h /www`)));
  for (const name of ['web', 'talk', 'http']) {
    await waitFor(`pod ${name} Running`, async () => {
      const p = (await client.get(RESOURCES.pods, 'default', name)) as Obj;
      return p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready;
    }, 60_000);
  }

  t.test('exec: stdout, stderr and the exit code over v5, no SPDY fall back', async (t) => {
    const r = await run(t, server.kubeconfig, ['exec', 'web', '--', 'sh', '-c', 'echo from $GREETING; echo oops >&2; exit 3']);
    t.equal(r.stdout, 'from hello\n', `stdout (log: ${r.log})`);
    t.match(ownOutput(r.log), /oops/, 'stderr');
    t.equal(r.code, 3, "the command's exit code is kubectl's");
    t.match(r.log, /The subprotocol is v5\.channel\.k8s\.io/);
    t.notMatch(r.log, /RemoteCommand fallback/);
  });

  t.test('exec -i: stdin reaches the command and its end ends cat', async (t) => {
    const r = await run(t, server.kubeconfig, ['exec', '-i', 'web', '--', 'cat'], 'hi\nthere\n');
    t.equal(r.stdout, 'hi\nthere\n', `cat echoed stdin (log: ${r.log})`);
    t.equal(r.code, 0);
    t.match(r.log, /The subprotocol is v5\.channel\.k8s\.io/);
    t.notMatch(r.log, /RemoteCommand fallback/);
  });

  t.test('attach -i: input in, output out', async (t) => {
    const k = kubectl(t, server.kubeconfig, ['attach', '-i', 'talk']);
    await waitFor('the attach is up', () => /The subprotocol is v5\.channel\.k8s\.io/.test(k.err()), 20_000);
    k.child.stdin!.write('hello\n');
    await waitFor(`"got hello" through attach (log: ${k.err()})`, () => k.out().includes('got hello'), 20_000);
    t.pass('the container read our line and its answer came back');
    t.notMatch(k.err(), /RemoteCommand fallback/);
    k.child.kill('SIGTERM');
    await k.exited;
  });

  t.test('port-forward: SPDY tunnelled in WebSocket to busybox httpd', async (t) => {
    const local = await freePort();
    const k = kubectl(t, server.kubeconfig, ['port-forward', 'pod/http', `${local}:${httpPort}`]);
    await waitFor('forwarding', () => k.out().includes('Forwarding from 127.0.0.1'), 20_000);
    const body = await waitFor('an answer through the forward', async () => {
      const res = await fetch(`http://127.0.0.1:${local}/index.html`).catch(() => undefined);
      return res?.ok ? res.text() : undefined;
    }, 20_000);
    t.equal(body, 'served\n');
    t.equal(await (await fetch(`http://127.0.0.1:${local}/index.html`)).text(), 'served\n', 'a second connection through the same tunnel');
    t.match(k.err(), /negotiated protocol: portforward\.k8s\.io/);
    t.notMatch(k.err(), /fallback to secondary dialer/);
    k.child.kill('SIGTERM');
    await k.exited;
  });

  const wsOptions = { ca: config.ca, cert: config.cert, key: config.key, headers: config.token ? { authorization: `Bearer ${config.token}` } : {} };
  const wsBase = `${config.server.replace(/^https/, 'wss')}/api/v1/namespaces/default/pods`;

  t.test("a raw v5 client: the close signal ends the command's stdin", async (t) => {
    const c = recordingClient(`${wsBase}/web/exec?command=cat&stdin=true&stdout=true&stderr=true`, ['v5.channel.k8s.io'], wsOptions);
    await c.opened;
    t.equal(c.ws.protocol, 'v5.channel.k8s.io');
    t.same(await c.next(), Buffer.from([1]), 'the empty stdout message');
    c.ws.send(Buffer.from('\x00abc'));
    t.same(await c.next(), Buffer.from('\x01abc'));
    c.ws.send(Buffer.from([255, 0]));
    const { hit } = await c.until(3);
    t.same(JSON.parse(hit.subarray(1).toString()), { metadata: {}, status: 'Success' }, 'cat ended on EOF and exited 0');
    t.equal(await c.closed, 1000);
  });

  t.test('a raw v5 client with a TTY: a resize reaches the terminal', async (t) => {
    const c = recordingClient(`${wsBase}/web/exec?command=sh&command=-c&command=sleep%201%3B%20stty%20size&stdout=true&tty=true`, ['v5.channel.k8s.io'], wsOptions);
    await c.opened;
    c.ws.send(Buffer.concat([Buffer.from([4]), Buffer.from('{"Width":100,"Height":30}')]));
    const { seen, hit } = await c.until(3);
    t.match(Buffer.concat(seen.map((m) => m.subarray(1))).toString(), /^30 100\r?\n$/, 'stty sees the size the client sent');
    t.same(JSON.parse(hit.subarray(1).toString()), { metadata: {}, status: 'Success' });
    await c.closed;
  });

  t.test("a raw v4 client is relayed to containerd's WebSocket server", async (t) => {
    const c = recordingClient(`${wsBase}/web/exec?command=sh&command=-c&command=echo%20v4;exit%205&stdout=true`, ['v4.channel.k8s.io'], wsOptions);
    await c.opened;
    t.equal(c.ws.protocol, 'v4.channel.k8s.io');
    const { seen, hit } = await c.until(3);
    t.same(Buffer.concat(seen.map((m) => m.subarray(1))).toString(), 'v4\n');
    t.match(JSON.parse(hit.subarray(1).toString()), { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '5' }] } });
    c.ws.close();
    await c.closed;
  });
});
