/**
 * `ballast nodeagent --container-runtime simulated` as processes against the real API server, with
 * the controllers (in this process) and the scheduler (a process) of a cluster: one agent standing
 * for 100 nodes and a second one for a single node. The 101 nodes register and turn Ready with
 * their leases; a DaemonSet runs a pod on every node, a Deployment's pods run, a Job completes;
 * then the single node's agent stops: its Ready turns Unknown, the node lifecycle controller taints
 * it unreachable (NoExecute), and its taint manager evicts a pod that tolerates that taint for one
 * second only, while the 100 others stay Ready.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RESOURCES } from '../../src/client/resources';
import { RestClient } from '../../src/client/rest-client';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../src/controllers/settings';
import { startControllers } from '../helpers/controllers';
import { MAIN_JS, freePort, startApiServer, tempDir, waitFor, type ApiServerProcess } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FLEET = 100;
/** leases renewed every 3 s; a node silent for 10 s is lost */
const LEASE_SECONDS = 12;
const GRACE_MS = 10_000;

interface Proc {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function spawnTracked(t: Test, what: string, args: string[]): Proc {
  const child = spawn(process.execPath, [MAIN_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    if (process.env.BALLAST_TEST_LOG || !t.passing()) t.comment(`${what} output:\n${out.slice(-4000)}`);
  });
  return { child, output: () => out, exited };
}

async function startAgent(t: Test, server: ApiServerProcess, name: string, nodes: number): Promise<Proc> {
  const root = tempDir(t, `sim-${name}`);
  // the lease's duration has no flag of its own in kubelet 1.20: a KubeletConfiguration sets it
  const config = path.join(root, 'config.yaml');
  fs.writeFileSync(config, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nnodeLeaseDurationSeconds: ${LEASE_SECONDS}\n`);
  const args = [
    'nodeagent',
    '--kubeconfig',
    server.kubeconfig,
    '--container-runtime',
    'simulated',
    '--hostname-override',
    name,
    '--root-dir',
    root,
    '--config',
    config,
    '--port',
    String(await freePort()),
  ];
  if (nodes > 1) args.push('--simulated-nodes', String(nodes));
  return spawnTracked(t, `agent ${name}`, args);
}

const readyOf = (n: Obj): string | undefined => (n.status?.conditions ?? []).find((c: Obj) => c.type === 'Ready')?.status;

const skip = fs.existsSync(MAIN_JS) ? undefined : 'run make build first';

t.test('simulated nodes: 100 from one process, a DaemonSet on each, node loss evicts', { skip }, async (t) => {
  const server = await startApiServer(t);
  const { client: admin } = startControllers(t, server, ['daemonset', 'deployment', 'replicaset', 'job', 'nodelifecycle'], {
    nodeLifecycle: { ...DEFAULT_CONTROLLER_SETTINGS.nodeLifecycle, monitorPeriodMs: 1000, monitorGracePeriodMs: GRACE_MS, startupGracePeriodMs: 30_000 },
  });
  const client = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test' }), { qps: -1 });
  t.teardown(() => client.close());
  const schedulerPort = await freePort();
  const scheduler = spawnTracked(t, 'scheduler', [
    'scheduler',
    '--kubeconfig',
    path.join(server.dataDir, 'scheduler.kubeconfig'),
    '--secure-port',
    '0',
    '--port',
    String(schedulerPort),
    '--leader-elect=false',
    '--kube-api-qps',
    '500',
    '--kube-api-burst',
    '500',
  ]);
  const fleet = await startAgent(t, server, 'sim', FLEET);
  const lone = await startAgent(t, server, 'lone', 1);

  const listNodes = async () => ((await client.list(RESOURCES.nodes, undefined)) as { items: Obj[] }).items;
  const listPods = async (selector: string) => ((await client.list(RESOURCES.pods, 'default', { labelSelector: selector })) as { items: Obj[] }).items;
  t.teardown(async () => {
    if (t.passing()) return;
    const nodes = await listNodes().catch(() => []);
    t.comment(`nodes: ${nodes.length}, Ready: ${nodes.filter((n) => readyOf(n) === 'True').length}`);
    const pods = ((await client.list(RESOURCES.pods, 'default').catch(() => ({ items: [] }))) as { items: Obj[] }).items;
    const phases: Record<string, number> = {};
    for (const p of pods) phases[p.status?.phase ?? 'none'] = (phases[p.status?.phase ?? 'none'] ?? 0) + 1;
    t.comment(`pods by phase: ${JSON.stringify(phases)}; scheduler exit ${scheduler.child.exitCode}`);
  });

  await t.test(`${FLEET + 1} nodes register and turn Ready, with their leases`, async (t) => {
    const nodes = await waitFor(
      'every node Ready',
      async () => {
        if (fleet.child.exitCode !== null || lone.child.exitCode !== null) return 'exited';
        const all = await listNodes();
        const ready = all.filter((n) => readyOf(n) === 'True' && !(n.spec?.taints ?? []).some((x: Obj) => x.key === 'node.kubernetes.io/not-ready'));
        return ready.length === FLEET + 1 ? all : undefined;
      },
      45_000,
    );
    if (nodes === 'exited') return void t.fail('an agent exited');
    const names = nodes.map((n) => n.metadata.name).sort();
    t.ok(names.includes('sim-0') && names.includes(`sim-${FLEET - 1}`) && names.includes('lone'), 'named <name>-0 ... -(N-1), and <name> for one node');
    const sim = nodes.find((n) => n.metadata.name === 'sim-7')!;
    t.match(sim.status.nodeInfo.containerRuntimeVersion, /^simulated:\/\//);
    t.match(sim.status.nodeInfo.kubeletVersion, /^v1\./);
    t.equal(sim.status.capacity.cpu, '32');
    t.equal(sim.status.capacity.pods, '110');
    t.equal(sim.metadata.labels['kubernetes.io/hostname'], 'sim-7');
    t.same(sim.status.addresses.map((a: Obj) => a.type), ['InternalIP', 'Hostname']);
    t.equal(new Set(nodes.map((n) => n.status.addresses[0].address)).size, FLEET + 1, 'every node has an address of its own');
    // a node's lease is created after its registration, on its own timer (kubelet's lease controller):
    // it may follow the Ready condition by a moment when the machine is busy
    const listLeases = async () => ((await client.list(RESOURCES.leases, 'kube-node-lease')) as { items: Obj[] }).items;
    const leases = await waitFor('a lease per node', async () => {
      const items = await listLeases();
      return items.length >= FLEET + 1 ? items : undefined;
    }, 15_000).catch(listLeases);
    t.equal(leases.length, FLEET + 1, 'a lease per node');
    t.equal(leases.find((l) => l.metadata.name === 'sim-7')?.spec.holderIdentity, 'sim-7');
  });

  if (!t.passing()) return;
  await t.test('a DaemonSet runs one pod on every node', async (t) => {
    await client.create(RESOURCES.daemonSets, 'default', {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'agent', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'agent' } },
        template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'busybox' }] } },
      },
    });
    const pods = await waitFor(
      `${FLEET + 1} DaemonSet pods Running`,
      async () => {
        const all = await listPods('app=agent');
        const running = all.filter((p) => p.status?.phase === 'Running');
        return running.length === FLEET + 1 ? running : undefined;
      },
      40_000,
    );
    t.equal(new Set(pods.map((p) => p.spec.nodeName)).size, FLEET + 1, 'one per node');
    const p = pods[0];
    const s = p.status.containerStatuses[0];
    t.ok(s.ready && s.started && s.state.running?.startedAt, 'the container runs and is ready');
    t.equal(s.restartCount, 0);
    t.match(s.containerID, /^simulated:\/\/[0-9a-f]{64}$/);
    t.same(
      p.status.conditions.filter((c: Obj) => c.status === 'True').map((c: Obj) => c.type).sort(),
      ['ContainersReady', 'Initialized', 'PodScheduled', 'Ready'],
    );
    t.ok(p.status.podIP && p.status.hostIP && p.status.podIP !== p.status.hostIP, `a pod address of its own (${p.status.podIP} on ${p.status.hostIP})`);
    t.equal(new Set(pods.map((x) => x.status.podIP)).size, FLEET + 1, 'no two pods share an address');
    const ds = await waitFor('the DaemonSet status', async () => {
      const d = (await client.get(RESOURCES.daemonSets, 'default', 'agent')) as Obj;
      return d.status?.numberReady === FLEET + 1 ? d : undefined;
    });
    t.equal(ds.status.desiredNumberScheduled, FLEET + 1);
  });

  if (!t.passing()) return;
  await t.test("a Deployment's pods run and a Job completes", async (t) => {
    await client.create(RESOURCES.deployments, 'default', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx', readinessProbe: { httpGet: { path: '/', port: 80 } } }] },
        },
      },
    });
    await client.create(RESOURCES.jobs, 'default', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'once', namespace: 'default' },
      spec: {
        completions: 2,
        parallelism: 2,
        template: { spec: { restartPolicy: 'Never', initContainers: [{ name: 'setup', image: 'busybox' }], containers: [{ name: 'work', image: 'busybox' }] } },
      },
    });
    const deployment = await waitFor('the Deployment available', async () => {
      const d = (await client.get(RESOURCES.deployments, 'default', 'web')) as Obj;
      return d.status?.readyReplicas === 3 && d.status?.availableReplicas === 3 ? d : undefined;
    });
    t.equal(deployment.status.readyReplicas, 3, 'readiness probes pass');
    const job = await waitFor('the Job complete', async () => {
      const j = (await client.get(RESOURCES.jobs, 'default', 'once')) as Obj;
      return (j.status?.conditions ?? []).some((c: Obj) => c.type === 'Complete' && c.status === 'True') ? j : undefined;
    });
    t.equal(job.status.succeeded, 2);
    const pods = (await listPods('job-name=once')).filter((p) => p.status?.phase === 'Succeeded');
    t.equal(pods.length, 2, 'both pods Succeeded');
    const term = pods[0].status.containerStatuses[0].state.terminated;
    t.equal(term.reason, 'Completed');
    t.equal(term.exitCode, 0);
    t.equal(pods[0].status.initContainerStatuses[0].state.terminated.reason, 'Completed');
  });

  if (!t.passing()) return;
  await t.test('node loss: Unknown, the unreachable taint, eviction', async (t) => {
    await client.create(RESOURCES.pods, 'default', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'short', namespace: 'default' },
      spec: {
        nodeName: 'lone',
        containers: [{ name: 'main', image: 'busybox' }],
        tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 1 }],
      },
    });
    await waitFor('pod short Running', async () => ((await client.get(RESOURCES.pods, 'default', 'short')) as Obj).status?.phase === 'Running');
    lone.child.kill('SIGTERM');
    t.equal(await lone.exited, 0, 'the single-node agent stops cleanly');
    const lost = await waitFor(
      'node lone Unknown and tainted unreachable',
      async () => {
        const n = (await client.get(RESOURCES.nodes, undefined, 'lone')) as Obj;
        const tainted = (n.spec?.taints ?? []).some((x: Obj) => x.key === 'node.kubernetes.io/unreachable' && x.effect === 'NoExecute');
        return readyOf(n) === 'Unknown' && tainted ? n : undefined;
      },
      GRACE_MS + 20_000,
    );
    t.match((lost.status.conditions as Obj[]).find((c) => c.type === 'Ready'), { reason: 'NodeStatusUnknown' });
    const evicted = await waitFor(
      'pod short evicted',
      async () => {
        const p = (await client.get(RESOURCES.pods, 'default', 'short').catch(() => undefined)) as Obj | undefined;
        return !p || p.metadata.deletionTimestamp ? (p ?? { gone: true }) : undefined;
      },
      20_000,
    );
    t.ok(evicted, 'the taint manager deleted the pod');
    const nodes = await listNodes();
    t.equal(nodes.filter((n) => n.metadata.name.startsWith('sim-') && readyOf(n) === 'True').length, FLEET, 'the other nodes stay Ready');
    const dsPod = (await listPods('app=agent')).find((p) => p.spec.nodeName === 'lone');
    t.notOk(dsPod?.metadata.deletionTimestamp, "the DaemonSet's pod tolerates the taint and stays");
  });

  await t.test('the agent standing for 100 nodes stops on SIGTERM', async (t) => {
    fleet.child.kill('SIGTERM');
    t.equal(await fleet.exited, 0);
  });
});
