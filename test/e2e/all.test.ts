/**
 * `ballast all` as `make run` starts it (the Makefile's RUN_FLAGS and ALL_FLAGS), with the
 * containerd Ballast starts itself and the offline images: the README's walk-through with real
 * kubectl (a Deployment scheduled and Running with pod IPs, logs, exec, exec -it, port-forward),
 * each component acting under its own identity; then a second `ballast all` with only a node agent
 * (--disable-apiserver and the others, the process runtime) joins the first as another node; both
 * stop on SIGTERM with exit code 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { offlineBusyboxImage } from '../../src/all/images';
import { containerdSkipReason, sweepContainerdDir } from '../helpers/containerd';
import { ownPodLogs } from '../helpers/nodeagent-config';
import { MAIN_JS, REPO_ROOT, freePort, kubectlFor, kubectlPath, missingKubectl, waitFor, type ApiServerProcess } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const skip = containerdSkipReason() ?? missingKubectl('1.32') ?? missingKubectl('1.20') ?? (fs.existsSync(MAIN_JS) ? undefined : 'run make build first');

/** the flags `make run` gives `ballast all` */
function makeRunFlags(): string[] {
  const makefile = fs.readFileSync(path.join(REPO_ROOT, 'Makefile'), 'utf8');
  const flags = (name: string) => (new RegExp(`^${name} := (.*)$`, 'm').exec(makefile)?.[1] ?? '').trim().split(/\s+/).filter(Boolean);
  return [...flags('RUN_FLAGS'), ...flags('ALL_FLAGS')];
}

interface Started {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function startAll(t: Test, args: string[]): Started {
  let output = '';
  const child = spawn(process.execPath, [MAIN_JS, 'all', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    if (process.env.BALLAST_TEST_LOG || !t.passing()) t.comment(`ballast all ${args.join(' ')}:\n${output.slice(-8000)}`);
  });
  return { child, output: () => output, exited };
}

function httpGet(port: number, urlPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: urlPath }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

/** kubectl under a pseudo-terminal (util-linux `script`), for `exec -it` */
function underTerminal(kubectl: string, kubeconfig: string, args: string[]): Promise<string> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [kubectl, '--kubeconfig', kubeconfig, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    let out = '';
    const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, HOME: os.tmpdir() } });
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

t.test('ballast all runs a single-node cluster that kubectl drives', { skip }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-e2e-all-'));
  // last: after both processes stopped (teardowns run in reverse order of registration)
  t.teardown(async () => {
    await sweepContainerdDir(path.join(dataDir, 'containerd'));
    killProcessesUnder(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const port = await freePort();
  const nodeName = os.hostname().toLowerCase();
  const cluster = startAll(t, [
    ...makeRunFlags(),
    '--data-dir', dataDir,
    '--secure-port', String(port),
    '--container-runtime', 'containerd',
    `--nodeagent-arg=--config=${ownPodLogs(t)}`,
    `--nodeagent-arg=--port=${await freePort()}`,
    '--nodeagent-arg=--healthz-port=0',
    '--nodeagent-arg=--node-status-update-frequency=2s',
    '--nodeagent-arg=--sync-frequency=5s',
    '--controller-manager-arg=--secure-port=0',
    '--scheduler-arg=--secure-port=0',
  ]);
  const kubeconfig = path.join(dataDir, 'admin.kubeconfig');
  const server = { kubeconfig, dataDir } as ApiServerProcess;
  const k = kubectlFor(t, '1.32', server);
  const k20 = kubectlFor(t, '1.20', server);
  const alive = (): void => {
    if (cluster.child.exitCode !== null) throw new Error(`ballast all exited with ${cluster.child.exitCode}: ${cluster.output().slice(-4000)}`);
  };
  t.teardown(async () => {
    if (t.passing()) return;
    t.comment((await k.run(['get', 'pods,nodes,events', '-A', '-o', 'wide'])).stdout);
  });

  const node = await waitFor(
    `node ${nodeName} Ready`,
    async () => {
      alive();
      if (!fs.existsSync(kubeconfig)) return undefined;
      const n = JSON.parse((await k.run(['get', 'node', nodeName, '-o', 'json'])).stdout || '{}') as Obj;
      return (n.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True') && !(n.spec?.taints ?? []).length ? n : undefined;
    },
    90_000,
  );
  t.match(node.spec.podCIDR, /^10\.42\.\d+\.0\/24$/, 'the controller manager gave the node a part of the cluster CIDR');
  t.match(node.status.nodeInfo.containerRuntimeVersion, /^containerd:\/\//, 'the containerd Ballast started runs the containers');
  t.ok(fs.existsSync(path.join(dataDir, 'containerd', 'containerd.sock')), 'its state is in the data dir');

  const image = offlineBusyboxImage();
  await t.test('the walk-through: a Deployment Running, logs, exec, exec -it, port-forward', async (t) => {
    await k.ok(['create', 'deployment', 'web', `--image=${image}`, '--replicas=2', '--', 'sh', '-c', 'echo serving; echo hello from $(hostname) > /tmp/index.html; exec httpd -f -p 8080 -h /tmp']);
    await k.ok(['rollout', 'status', 'deployment/web', '--timeout=120s']);
    const pods = JSON.parse(await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as { items: Obj[] };
    t.equal(pods.items.length, 2);
    for (const p of pods.items) {
      t.equal(p.status.phase, 'Running', `${p.metadata.name} Running`);
      t.equal(p.spec.nodeName, nodeName, 'scheduled to the node by the scheduler');
      t.match(p.status.podIP, /^10\.42\./, 'a pod IP from the node\'s CIDR');
    }
    const name = pods.items[0].metadata.name as string;
    const scheduled = JSON.parse(await k.ok(['get', 'events', '--field-selector', `involvedObject.name=${name},reason=Scheduled`, '-o', 'json'])) as { items: Obj[] };
    t.equal(scheduled.items[0]?.source?.component, 'default-scheduler');

    await waitFor('the log line', async () => (await k.ok(['logs', name])).includes('serving'));
    t.match(await k20.ok(['logs', name]), 'serving', 'kubectl 1.20 logs');
    t.match(await k.ok(['exec', name, '--', 'cat', '/tmp/index.html']), `hello from ${name}`);
    t.match(await k20.ok(['exec', name, '--', 'cat', '/tmp/index.html']), `hello from ${name}`, 'kubectl 1.20 exec');
    const failed = await k.run(['exec', name, '--', 'sh', '-c', 'exit 3']);
    t.equal(failed.code, 3, 'the exit code passes through');
    const tty = await underTerminal(kubectlPath('1.32')!, kubeconfig, ['exec', '-it', name, '--', 'sh', '-c', 'tty; echo cols=$(stty size)']);
    t.match(tty, /\/dev\/pts\/\d+/, 'exec -it has a terminal');

    const localPort = await freePort();
    const forward = k.stream(['port-forward', `pod/${name}`, `${localPort}:8080`]);
    t.teardown(() => forward.kill());
    await forward.waitForLine(/Forwarding from 127\.0\.0\.1/);
    t.match(await httpGet(localPort, '/index.html'), `hello from ${name}`, 'port-forward reaches the pod');
    await forward.kill();

    // httpd as PID 1 ignores SIGTERM: the pods go with a short grace period rather than the template's 30 s
    await k.ok(['delete', 'deployment', 'web', '--cascade=orphan']);
    await k.ok(['delete', 'replicasets', '-l', 'app=web', '--cascade=orphan']);
    await k.ok(['delete', 'pods', '-l', 'app=web', '--grace-period=1', '--wait=true', '--timeout=60s']);
  });

  await t.test('each component acts under its own identity', async (t) => {
    const lease = JSON.parse(await k.ok(['get', 'lease', '-n', 'kube-node-lease', nodeName, '-o', 'json'])) as Obj;
    t.equal(lease.spec.holderIdentity, nodeName);
    // NodeRestriction holds for the agent: its kubeconfig is system:node:<name>, which may not create ordinary pods
    const kubelet = kubectlFor(t, '1.32', { kubeconfig: path.join(dataDir, 'kubelet.kubeconfig') } as ApiServerProcess);
    t.equal(await kubelet.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']), `system:node:${nodeName}`);
    const accounts = await k.ok(['get', 'serviceaccounts', '-n', 'kube-system', '-o', 'name']);
    for (const sa of ['deployment-controller', 'replicaset-controller', 'node-controller']) t.match(accounts, `serviceaccount/${sa}`, `the controllers act as ${sa}`);
  });

  await t.test('a second ballast all with only a node agent joins as another node (process runtime)', async (t) => {
    const second = startAll(t, [
      '--data-dir', dataDir,
      '--disable-apiserver', '--disable-controller-manager', '--disable-scheduler',
      '--node-name', 'process-node',
      '--container-runtime', 'process',
      `--nodeagent-arg=--config=${ownPodLogs(t)}`,
      `--nodeagent-arg=--port=${await freePort()}`,
      '--nodeagent-arg=--healthz-port=0',
      `--nodeagent-arg=--root-dir=${path.join(dataDir, 'nodeagent-process-node')}`,
      '--nodeagent-arg=--node-status-update-frequency=2s',
    ]);
    await waitFor(
      'node process-node Ready',
      async () => {
        if (second.child.exitCode !== null) throw new Error(`the second ballast all exited with ${second.child.exitCode}: ${second.output().slice(-4000)}`);
        const n = JSON.parse((await k.run(['get', 'node', 'process-node', '-o', 'json'])).stdout || '{}') as Obj;
        return (n.status?.conditions ?? []).some((c: Obj) => c.type === 'Ready' && c.status === 'True');
      },
      60_000,
    );
    const kubelet = kubectlFor(t, '1.32', { kubeconfig: path.join(dataDir, 'kubelet-process-node.kubeconfig') } as ApiServerProcess);
    t.equal(await kubelet.ok(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']), 'system:node:process-node', 'its own node identity');
    await k.ok(['run', 'on-process', `--image=${image}`, '--restart=Never', '--overrides', JSON.stringify({ spec: { nodeName: 'process-node' } }), '--', 'sh', '-c', 'echo from a host process; sleep 3600']);
    await waitFor('pod on-process Running', async () => (await k.ok(['get', 'pod', 'on-process', '-o', 'jsonpath={.status.phase}'])) === 'Running', 60_000);
    await waitFor('its log', async () => (await k.ok(['logs', 'on-process'])).includes('from a host process'));
    await k.ok(['delete', 'pod', 'on-process', '--grace-period=1', '--timeout=60s']);
    second.child.kill('SIGTERM');
    t.equal(await second.exited, 0, 'the second stops on SIGTERM with 0');
  });

  cluster.child.kill('SIGTERM');
  t.equal(await cluster.exited, 0, 'ballast all stops on SIGTERM with 0');
  t.notOk(fs.existsSync(path.join(dataDir, 'containerd', 'containerd.sock')) && (await socketAnswers(path.join(dataDir, 'containerd', 'containerd.sock'))), 'its containerd stopped with it');
});

/** the process runtime's shims and containers outlive their agent by design: kill those started under `dir` */
function killProcessesUnder(dir: string): void {
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone, or not ours to read
    }
  }
}

function socketAnswers(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(socket);
    c.on('connect', () => (c.destroy(), resolve(true)));
    c.on('error', () => resolve(false));
  });
}
