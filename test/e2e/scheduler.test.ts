/**
 * The real `ballast scheduler` process against a real API server, driven with kubectl 1.32: a
 * Deployment's pods bound (controllers in the test process), `kubectl describe pod` of a pod that
 * fits nowhere showing kube's FailedScheduling message, a second profile from --config, the
 * plain-HTTP health and metrics port, leader election between two schedulers with take-over after
 * kill -9, --write-config-to, and one-line errors for a bad configuration file.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startControllers } from '../helpers/controllers';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir, waitFor, type ApiServerProcess } from './harness';

const LEADER_FLAGS = ['--leader-elect-lease-duration=4s', '--leader-elect-renew-deadline=3s', '--leader-elect-retry-period=1s'];

/** with --config, kube takes the kubeconfig from the file only (--kubeconfig is one of the deprecated flags it ignores) */
const config = (kubeconfig: string) => `apiVersion: kubescheduler.config.k8s.io/v1beta1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: ${kubeconfig}
leaderElection:
  leaderElect: true
  leaseDuration: 4s
  renewDeadline: 3s
  retryPeriod: 1s
profiles:
- schedulerName: default-scheduler
- schedulerName: bin-packer
  plugins:
    score:
      disabled:
      - name: NodeResourcesLeastAllocated
      enabled:
      - name: NodeResourcesMostAllocated
        weight: 5
`;

interface SchedulerProcess {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

async function startScheduler(t: Test, server: ApiServerProcess, extra: string[]): Promise<SchedulerProcess> {
  const port = await freePort();
  const kubeconfig = path.join(server.dataDir, 'scheduler.kubeconfig');
  const child = spawn(process.execPath, [MAIN_JS, 'scheduler', '--kubeconfig', kubeconfig, '--secure-port', '0', '--address', '127.0.0.1', '--port', String(port), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
  await waitFor(`scheduler on ${port}`, async () => {
    if (child.exitCode !== null) throw new Error(`the scheduler exited:\n${out}`);
    return (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status).catch(() => 0)) === 200;
  });
  return { child, port, output: () => out, exited };
}

function node(name: string, cpu: string, taints?: unknown[]): KubeObject {
  const allocatable = { cpu, memory: '16Gi', pods: '110' };
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: taints ? { taints } : {}, status: { capacity: allocatable, allocatable, conditions: [{ type: 'Ready', status: 'True' }] } };
}

t.test('ballast scheduler with kubectl 1.32', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const dir = tempDir(t, 'ballast-scheduler-');
  const configFile = path.join(dir, 'config.yaml');
  fs.writeFileSync(configFile, config(path.join(server.dataDir, 'scheduler.kubeconfig')));
  const { client: admin } = startControllers(t, server, ['deployment', 'replicaset']);
  const kubectl = kubectlFor(t, '1.32', server);
  for (const n of [node('n1', '4'), node('n2', '4'), node('n3', '16', [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }])]) {
    await admin.create(RESOURCES.nodes, undefined, n);
    // the API server taints new nodes not-ready; the node lifecycle controller would lift it from a Ready node
    await admin.patch(RESOURCES.nodes, undefined, n.metadata!.name!, 'merge', { spec: { taints: (n.spec as { taints?: unknown[] }).taints ?? null } });
  }
  const first = await startScheduler(t, server, ['--config', configFile]);
  const holder = async () => String(((await admin.get(RESOURCES.leases, 'kube-system', 'kube-scheduler')).spec as { holderIdentity?: string }).holderIdentity ?? '');
  const firstHolder = await waitFor('a lease holder', async () => (await holder().catch(() => '')) || undefined);

  await t.test('a Deployment\'s pods are bound, each with a Scheduled event', async (t) => {
    await kubectl.ok(['create', 'deployment', 'web', '--image=busybox', '--replicas=3']);
    const lines = await waitFor('3 pods bound', async () => {
      const out = await kubectl.ok(['get', 'pods', '-l', 'app=web', '-o', 'custom-columns=NAME:.metadata.name,NODE:.spec.nodeName', '--no-headers']);
      const rows = out.trim().split('\n').filter((l) => l.trim());
      return rows.length === 3 && rows.every((r) => /\sn[123]$/.test(r)) ? rows : undefined;
    });
    t.ok(lines.every((l) => !l.endsWith('n3')), `no pod on the tainted node: ${lines.join('; ')}`);
    const events = await kubectl.ok(['get', 'events', '--field-selector', 'reason=Scheduled', '-o', 'custom-columns=MSG:.message,FROM:.source.component', '--no-headers']);
    t.match(events, /Successfully assigned default\/web-[a-z0-9]+-[a-z0-9]{5} to n[12]\s+default-scheduler/);
  });

  await t.test('kubectl describe shows kube\'s FailedScheduling message', async (t) => {
    await kubectl.ok(['run', 'huge', '--image=busybox', '--overrides', JSON.stringify({ spec: { containers: [{ name: 'huge', image: 'busybox', resources: { requests: { cpu: '8' } } }] } })]);
    const described = await waitFor('FailedScheduling in describe', async () => {
      const out = await kubectl.ok(['describe', 'pod', 'huge']);
      return out.includes('FailedScheduling') ? out : undefined;
    });
    t.match(described, /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/3 nodes are available: 1 node\(s\) had taint \{dedicated: infra\}, that the pod didn't tolerate, 2 Insufficient cpu\./);
    t.match(described, /PodScheduled\s+False/);
    const status = await kubectl.ok(['get', 'pod', 'huge', '-o', 'jsonpath={.status.conditions[0].reason}']);
    t.equal(status, 'Unschedulable');
    // tolerating the taint lets it fit on n3: an update of the pod is not allowed, so a new pod
    await kubectl.ok(['run', 'huge-ok', '--image=busybox', '--overrides', JSON.stringify({ spec: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'infra', effect: 'NoSchedule' }], containers: [{ name: 'huge-ok', image: 'busybox', resources: { requests: { cpu: '8' } } }] } })]);
    await waitFor('bound to n3', async () => (await kubectl.ok(['get', 'pod', 'huge-ok', '-o', 'jsonpath={.spec.nodeName}'])) === 'n3');
  });

  await t.test('the second profile of --config serves its scheduler name', async (t) => {
    await kubectl.ok(['run', 'packed', '--image=busybox', '--overrides', JSON.stringify({ spec: { schedulerName: 'bin-packer' } })]);
    await waitFor('bound', async () => (await kubectl.ok(['get', 'pod', 'packed', '-o', 'jsonpath={.spec.nodeName}'])) !== '');
    const from = await kubectl.ok(['get', 'events', '--field-selector', 'involvedObject.name=packed,reason=Scheduled', '-o', 'jsonpath={.items[0].source.component}']);
    t.equal(from, 'bin-packer');
  });

  await t.test('the plain-HTTP port serves /healthz and /metrics', async (t) => {
    t.equal(await (await fetch(`http://127.0.0.1:${first.port}/healthz`)).text(), 'ok');
    const metrics = await (await fetch(`http://127.0.0.1:${first.port}/metrics`)).text();
    t.match(metrics, /scheduler_schedule_attempts_total\{result="scheduled",profile="default-scheduler"\} [1-9]/);
    t.match(metrics, /scheduler_schedule_attempts_total\{result="unschedulable",profile="default-scheduler"\} [1-9]/);
    t.match(metrics, /scheduler_pending_pods\{queue="unschedulable"\} 1/);
    t.match(metrics, /leader_election_master_status\{name="kube-scheduler"\} 1/);
  });

  await t.test('a second scheduler waits, then takes over when the leader is killed', async (t) => {
    const second = await startScheduler(t, server, ['--config', configFile]);
    await waitFor('the second campaigns', async () => second.output().includes('attempting to acquire leader lease'));
    t.equal(await holder(), firstHolder, 'the first still leads');
    first.child.kill('SIGKILL');
    const next = await waitFor('a new holder', async () => {
      const h = await holder();
      return h !== firstHolder && h !== '' ? h : undefined;
    }, 20_000);
    t.equal(next, /attempting to acquire leader lease .*identity=(\S+)/.exec(second.output())?.[1], 'the second scheduler holds the lease');
    await kubectl.ok(['run', 'after-failover', '--image=busybox']);
    await waitFor('bound by the new leader', async () => (await kubectl.ok(['get', 'pod', 'after-failover', '-o', 'jsonpath={.spec.nodeName}'])) !== '', 20_000);
    second.child.kill('SIGTERM');
    t.equal(await second.exited, 0, 'SIGTERM stops cleanly');
  });
});

t.test('--write-config-to writes the effective configuration and exits', async (t) => {
  const dir = tempDir(t, 'ballast-scheduler-write-');
  const out = path.join(dir, 'written.yaml');
  const r = spawnSync(process.execPath, [MAIN_JS, 'scheduler', '--write-config-to', out, '--scheduler-name', 'mine'], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr);
  const text = fs.readFileSync(out, 'utf8');
  t.match(text, /^apiVersion: kubescheduler\.config\.k8s\.io\/v1beta1$/m);
  t.match(text, /^kind: KubeSchedulerConfiguration$/m);
  t.match(text, /schedulerName: mine/);
});

t.test('a bad configuration file stops start-up with one line naming the file and the field', async (t) => {
  const dir = tempDir(t, 'ballast-scheduler-bad-');
  const file = path.join(dir, 'bad.yaml');
  fs.writeFileSync(file, 'apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 120\n');
  const r = spawnSync(process.execPath, [MAIN_JS, 'scheduler', '--config', file], { encoding: 'utf8' });
  t.equal(r.status, 1);
  const first = r.stderr.split('\n')[0];
  t.match(first, file);
  t.match(first, /percentageOfNodesToScore/);
  const server = await startApiServer(t);
  fs.writeFileSync(file, `apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: KubeSchedulerConfiguration\nclientConnection:\n  kubeconfig: ${server.kubeconfig}\nprofiles:\n- schedulerName: x\n  plugins:\n    filter:\n      enabled:\n      - name: NoSuchPlugin\n`);
  const r2 = spawnSync(process.execPath, [MAIN_JS, 'scheduler', '--config', file, '--kubeconfig', server.kubeconfig, '--secure-port', '0', '--port', '0', '--leader-elect=false'], { encoding: 'utf8', timeout: 30_000 });
  t.equal(r2.status, 1);
  t.match(r2.stderr, /plugin "NoSuchPlugin" does not exist/);
});
