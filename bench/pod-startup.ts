/**
 * Pod start-up (issue 13): the real API server, the real `ballast scheduler` and one `ballast
 * nodeagent`, each in its own process on loopback. The agent is `--container-runtime simulated
 * --simulated-nodes N`, or (--runtime containerd) one real node running each pod's sandbox and a
 * container of the offline sleep image in a containerd of the run's own, on a CNI bridge. Once the N nodes are Ready (the bench lifts the not-ready taint the
 * API server puts on new nodes, as the node lifecycle controller would), P pods are created 32 at a
 * time and a watch records when each is first seen Running:
 *   - latency per pod: its create sent -> Running seen on the watch (p50, p90, p99, max), against
 *     kube's pod start-up SLO (p99 <= 5 s for stateless pods, image pulls excluded: there are none);
 *   - the time from the first create to the last pod Running;
 *   - the API server's RSS (peak, sampled every second) and the CPU seconds of each process.
 * With --create-qps N the creates are paced at N per second (kube's density tests create at a steady
 * rate; the default, 0, sends them all at once). With --deployments D the pods come from D
 * Deployments of P/D replicas each through the real `ballast controller-manager` (its deployment and
 * replicaset controllers); a pod's latency is then from its Deployment's create sent.
 *   node dist/bench/pod-startup.js [--runtime simulated|containerd] [--nodes 100] [--pods 100] [--create-qps 0] [--out file.json]
 *     [--deployments 0] [--agent-args="..."] [--scheduler-args="--kube-api-qps=5000 --kube-api-burst=5000"]
 *     [--cm-args="--kube-api-qps=5000 --kube-api-burst=5000"] [--cpu-prof DIR (the API server's profile)]
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { removeAllPodSandboxes, startManagedContainerd, sweepContainerdDir } from '../src/all/containerd';
import { RuntimeServiceClient } from '../src/nodeagent/cri/runtime-service-client';
import { OFFLINE_PAUSE_IMAGE, importImages, offlineImagesUnavailable } from '../src/all/images';
import { managedContainerdUnavailable } from '../src/all/runtime';
import { cniNames } from '../src/nodeagent/network/cni-config';
import { SharedInformer } from '../src/client/informer';
import { loadClientConfig } from '../src/client/kubeconfig';
import { RESOURCES } from '../src/client/resources';
import { RestClient } from '../src/client/rest-client';
import type { KubeObject } from '../src/client/types';
import { BallastServer } from './lib/ballast-server';
import { Progress } from './lib/progress';
import { cpuSecondsOf, freePort, rssMiB, sleep } from './lib/processes';
import { writeRunRecord } from './lib/run-record';
import { nowMs, quantile, round } from './lib/stats';

const MAIN_JS = path.join(__dirname, '..', 'src', 'cli', 'main.js');
/** kube's pod start-up SLO: p99 of create -> Running, stateless pods, no image pulls */
export const POD_STARTUP_SLO_P99_MS = 5_000;

export interface PodStartupRun {
  nodes: number;
  pods: number;
  /** the pods came from this many Deployments (0: created one by one) */
  deployments: number;
  /** every node registered and Ready, from the agent's start */
  nodesReadyMs: number;
  /** nodes Ready (and untainted) against seconds from the agent's start, every half second */
  readyOverTime: { s: number; ready: number }[];
  /** first create -> last create acknowledged */
  createMs: number;
  /** first create -> last pod Running seen */
  allRunningMs: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  sloMet: boolean;
  /** the latency split: create sent -> bound seen (the scheduler), bound seen -> Running seen (the agent) */
  phasesMs: { createToBound: { p50: number; p99: number }; boundToRunning: { p50: number; p99: number } };
  /** CPU seconds from the first create to the last Running */
  cpuSeconds: { apiserver: number; scheduler: number; agent: number; controllerManager?: number };
  /** pods seen (created), bound and Running against seconds from the first create (every second, and at the end) */
  runningOverTime: { s: number; created: number; bound: number; running: number }[];
  /** the agent's CPU use while idle with its nodes (leases and statuses only), in % of one core */
  agentIdleCpuPercent: number;
  apiserverRssMiB: { before: number; peak: number; after: number };
  agentRssMiB: number;
}

function startProcess(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [MAIN_JS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-50_000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-50_000)));
  return { child, output: () => out };
}

async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i]);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

function podSpec(image: string): Record<string, unknown> {
  return {
    // no kube-api-access volume: no controller publishes kube-root-ca.crt in this set-up
    automountServiceAccountToken: false,
    terminationGracePeriodSeconds: 0,
    containers: [{ name: 'main', image, imagePullPolicy: 'IfNotPresent', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
  };
}

function pod(name: string, image: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'bench' } }, spec: podSpec(image) };
}

/** a Deployment whose pods carry `deployment: <name>` (how the watch finds a pod's Deployment) */
function deployment(name: string, replicas: number, image: string): KubeObject {
  const labels = { app: 'bench', deployment: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec(image) } },
  };
}

export type BenchRuntime = 'simulated' | 'containerd';

/** the pod network of the containerd run: one /24 of its own */
const CONTAINERD_POD_CIDR = '10.199.0.0/24';

/** a containerd of the run's own (as `ballast all` starts one) with the offline images; its node agent's flags */
async function containerdRuntime(dataDir: string): Promise<{ agentArgs: string[]; image: string; stop(): Promise<void> }> {
  const why = managedContainerdUnavailable() ?? offlineImagesUnavailable();
  if (why) throw new Error(`--runtime containerd: ${why}`);
  const logger = pino({ level: 'warn' });
  // host-local's leases of this run's network: a run killed before its clean-up leaves its 100 addresses
  // taken, and the next run finds the /24 full
  fs.rmSync(path.join('/var/lib/cni/networks', cniNames(CONTAINERD_POD_CIDR).network), { recursive: true, force: true });
  const dir = path.join(dataDir, 'containerd');
  const containerd = await startManagedContainerd({ dir, sandboxImage: OFFLINE_PAUSE_IMAGE, logger });
  await importImages({ socket: containerd.socket, snapshotter: containerd.snapshotter, airGapDir: path.join(dataDir, 'images'), offline: true, logger });
  const config = path.join(dataDir, 'agent-config.yaml');
  fs.writeFileSync(config, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\npodLogsDir: ${path.join(dataDir, 'pod-logs')}\n`);
  return {
    image: OFFLINE_PAUSE_IMAGE,
    agentArgs: [
      '--container-runtime', 'remote',
      '--container-runtime-endpoint', containerd.endpoint,
      '--cni-conf-dir', containerd.cniConfDir,
      '--pod-cidr', CONTAINERD_POD_CIDR,
      '--pod-infra-container-image', OFFLINE_PAUSE_IMAGE,
      '--config', config,
      '--fail-swap-on=false', '--cgroups-per-qos=false', '--enforce-node-allocatable=',
      '--port', String(await freePort()), '--healthz-port', '0', '--read-only-port', '0',
    ],
    stop: async () => {
      // the pods' network teardown first (CNI DEL): without it each run leaves 100 masquerade chains in
      // the nat table, and every later CNI ADD is slower for them
      const runtime = new RuntimeServiceClient({ endpoint: containerd.endpoint, timeoutMs: 30_000 });
      await removeAllPodSandboxes(runtime);
      runtime.close();
      await containerd.stop();
      await sweepContainerdDir(dir);
      try {
        execFileSync('ip', ['link', 'delete', cniNames(CONTAINERD_POD_CIDR).bridge], { stdio: 'ignore' });
      } catch {
        // no bridge was made
      }
    },
  };
}

interface RunSettings {
  runtime: BenchRuntime;
  nodes: number;
  pods: number;
  /** 0: pods created one by one */
  deployments: number;
  agentArgs: string[];
  schedulerArgs: string[];
  controllerManagerArgs: string[];
  createQps: number;
  /** a CPU profile of the API server (node --cpu-prof) goes into this folder */
  cpuProfDir?: string;
}

async function oneRun(o: RunSettings): Promise<PodStartupRun> {
  const { runtime, nodes: nodeCount, pods: podCount, agentArgs, schedulerArgs, createQps } = o;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-podstart-'));
  const server = new BallastServer({ mainJs: MAIN_JS, dataDir, cpuProfDir: o.cpuProfDir });
  await server.start();
  const kubeconfig = path.join(dataDir, 'admin.kubeconfig');
  const client = new RestClient(loadClientConfig(kubeconfig), { qps: -1, contentType: 'application/vnd.kubernetes.protobuf' });
  const scheduler = startProcess(['scheduler', '--kubeconfig', kubeconfig, '--leader-elect=false', '--secure-port', '0', '--port', '0', ...schedulerArgs]);
  const controllerManager =
    o.deployments > 0
      ? startProcess(['controller-manager', '--kubeconfig', kubeconfig, '--leader-elect=false', '--secure-port', '0', '--controllers', 'deployment,replicaset', ...o.controllerManagerArgs])
      : undefined;
  const real = runtime === 'containerd' ? await containerdRuntime(dataDir) : undefined;
  const image = real?.image ?? 'k8s.gcr.io/pause:3.2';
  const agentStart = nowMs();
  const agent = startProcess([
    'nodeagent',
    '--kubeconfig',
    kubeconfig,
    ...(real ? real.agentArgs : ['--container-runtime', 'simulated', '--simulated-nodes', String(nodeCount)]),
    '--hostname-override',
    real ? 'bench-node' : 'sim',
    '--root-dir',
    path.join(dataDir, 'agent'),
    ...agentArgs,
  ]);
  const abort = new AbortController();
  const progress = new Progress({ quiet: process.env.BALLAST_BENCH_QUIET === '1' });
  let rssPeak = 0;
  const sampler = setInterval(() => {
    const rss = rssMiB(server.pid);
    if (rss > rssPeak) rssPeak = rss;
  }, 1000);
  try {
    // the nodes: Ready, and the not-ready taint lifted as the node lifecycle controller would. A
    // watch, not lists: listing 1,000 Nodes twice a second was most of the API server's work
    type NodeView = KubeObject & { spec?: { taints?: unknown[] }; status?: { conditions?: { type: string; status: string }[] } };
    const nodeWatch = new SharedInformer<NodeView>(client, RESOURCES.nodes);
    const ready = new Set<string>();
    const lifting = new Set<string>();
    const check = (n: NodeView) => {
      const name = n.metadata?.name ?? '';
      if (!n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return;
      if (!n.spec?.taints?.length) {
        ready.add(name);
        return;
      }
      if (lifting.has(name)) return;
      lifting.add(name);
      client
        .patch(RESOURCES.nodes, undefined, name, 'merge', { spec: { taints: null } })
        .catch(() => undefined)
        .finally(() => lifting.delete(name));
    };
    nodeWatch.addEventHandler({ add: check, update: (_o, n) => check(n) });
    const nodeAbort = new AbortController();
    const watchingNodes = nodeWatch.run(nodeAbort.signal);
    const readyOverTime: { s: number; ready: number }[] = [];
    progress.start(`${nodeCount} ${real ? 'node' : 'simulated nodes'} Ready`, nodeCount);
    while (ready.size < nodeCount) {
      progress.update(ready.size);
      if (agent.child.exitCode !== null) throw new Error(`the agent exited:\n${agent.output().slice(-3000)}`);
      if (nowMs() - agentStart > 1_200_000) throw new Error(`only ${ready.size}/${nodeCount} nodes Ready in 20 minutes`);
      readyOverTime.push({ s: round((nowMs() - agentStart) / 1000, 1), ready: ready.size });
      await sleep(500);
    }
    readyOverTime.push({ s: round((nowMs() - agentStart) / 1000, 1), ready: ready.size });
    progress.update(ready.size);
    progress.stop();
    nodeAbort.abort();
    await watchingNodes;
    const nodesReadyMs = nowMs() - agentStart;
    // the agent alone with its nodes for 20 s: what leases and statuses cost it
    const idle0 = cpuSecondsOf(agent.child.pid);
    await sleep(20_000);
    const agentIdleCpuPercent = round(((cpuSecondsOf(agent.child.pid) - idle0) / 20) * 100, 1);

    const ns = 'bench';
    await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    /** create sent: of each pod, or (Deployments) of each Deployment */
    const sent = new Map<string, number>();
    const running = new Map<string, number>();
    const bound = new Map<string, number>();
    /** Deployments: the Deployment of each pod seen */
    const ownerOf = new Map<string, string>();
    const createdSeen = new Set<string>();
    let allRunning: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (allRunning = resolve));
    const watch = new SharedInformer(client, RESOURCES.pods, { namespace: ns });
    const seen = (p: KubeObject) => {
      const name = p.metadata?.name ?? '';
      createdSeen.add(name);
      if (o.deployments > 0 && !ownerOf.has(name)) ownerOf.set(name, p.metadata?.labels?.deployment ?? '');
      if (!bound.has(name) && (p.spec as { nodeName?: string } | undefined)?.nodeName) bound.set(name, nowMs());
      if (running.has(name) || (p.status as { phase?: string } | undefined)?.phase !== 'Running') return;
      running.set(name, nowMs());
      if (running.size === podCount) allRunning();
    };
    watch.addEventHandler({ add: seen, update: (_o, p) => seen(p) });
    const watching = watch.run(abort.signal);
    await watch.waitForSync(abort.signal);

    const created = o.deployments > 0 ? Array.from({ length: o.deployments }, (_, i) => `deploy-${String(i).padStart(4, '0')}`) : Array.from({ length: podCount }, (_, i) => `pod-${String(i).padStart(5, '0')}`);
    const rssBefore = rssMiB(server.pid);
    const cmPid = controllerManager?.child.pid;
    const cpu0 = { apiserver: cpuSecondsOf(server.pid), scheduler: cpuSecondsOf(scheduler.child.pid), agent: cpuSecondsOf(agent.child.pid), cm: cpuSecondsOf(cmPid) };
    const t0 = nowMs();
    const runningOverTime: PodStartupRun['runningOverTime'] = [{ s: 0, created: 0, bound: 0, running: 0 }];
    progress.start(`${podCount} pods Running${o.deployments ? ` from ${o.deployments} Deployments` : ''}`, podCount);
    const count = () => {
      runningOverTime.push({ s: round((nowMs() - t0) / 1000, 1), created: createdSeen.size, bound: bound.size, running: running.size });
      progress.update(running.size);
    };
    const counter = setInterval(count, 1000);
    let slot = 0;
    await inParallel(created, 32, async (n) => {
      // paced: object i is sent no earlier than i / createQps seconds after the first
      if (createQps > 0) {
        const due = t0 + (slot++ * 1000) / createQps;
        if (due > nowMs()) await sleep(due - nowMs());
      }
      sent.set(n, nowMs());
      if (o.deployments > 0) {
        // the first Deployments get one replica more when the pods do not divide evenly
        const i = Number(n.slice('deploy-'.length));
        const replicas = Math.floor(podCount / o.deployments) + (i < podCount % o.deployments ? 1 : 0);
        await client.create(RESOURCES.deployments, ns, deployment(n, replicas, image));
      } else {
        await client.create(RESOURCES.pods, ns, pod(n, image));
      }
    });
    const tCreated = nowMs();
    const timeout = setTimeout(() => allRunning(), 1_200_000);
    await done;
    clearTimeout(timeout);
    clearInterval(counter);
    progress.stop();
    if (running.size < podCount) throw new Error(`only ${running.size}/${podCount} pods Running in 20 minutes`);
    const tEnd = Math.max(...running.values());
    count();
    const cpuSeconds = {
      apiserver: round(cpuSecondsOf(server.pid) - cpu0.apiserver, 2),
      scheduler: round(cpuSecondsOf(scheduler.child.pid) - cpu0.scheduler, 2),
      agent: round(cpuSecondsOf(agent.child.pid) - cpu0.agent, 2),
      ...(cmPid ? { controllerManager: round(cpuSecondsOf(cmPid) - cpu0.cm, 2) } : {}),
    };
    const podNames = [...running.keys()];
    const sentOf = (name: string) => sent.get(o.deployments > 0 ? (ownerOf.get(name) ?? '') : name) ?? t0;
    const latencies = podNames.map((n) => (running.get(n) ?? 0) - sentOf(n)).sort((a, b) => a - b);
    const p99 = quantile(latencies, 0.99);
    const split = (from: (name: string) => number, to: Map<string, number>) => {
      const xs = podNames.map((n) => (to.get(n) ?? 0) - from(n)).sort((a, b) => a - b);
      return { p50: round(quantile(xs, 0.5), 1), p99: round(quantile(xs, 0.99), 1) };
    };
    abort.abort();
    await watching;
    return {
      nodes: nodeCount,
      pods: podCount,
      deployments: o.deployments,
      nodesReadyMs: round(nodesReadyMs, 0),
      readyOverTime,
      createMs: round(tCreated - t0, 1),
      allRunningMs: round(tEnd - t0, 1),
      latencyMs: { p50: round(quantile(latencies, 0.5), 1), p90: round(quantile(latencies, 0.9), 1), p99: round(p99, 1), max: round(latencies.at(-1) ?? 0, 1) },
      sloMet: p99 <= POD_STARTUP_SLO_P99_MS,
      phasesMs: { createToBound: split(sentOf, bound), boundToRunning: split((n) => bound.get(n) ?? 0, running) },
      cpuSeconds,
      runningOverTime,
      agentIdleCpuPercent,
      apiserverRssMiB: { before: round(rssBefore, 1), peak: round(Math.max(rssPeak, rssMiB(server.pid)), 1), after: round(rssMiB(server.pid), 1) },
      agentRssMiB: round(rssMiB(agent.child.pid ?? 0), 1),
    };
  } finally {
    progress.stop();
    clearInterval(sampler);
    abort.abort();
    if (process.env.BENCH_AGENT_LOG) fs.writeFileSync(process.env.BENCH_AGENT_LOG, agent.output());
    client.close();
    if (real) {
      // the containers go first (their sandboxes), then the agent and containerd
      await client.delete(RESOURCES.namespaces, undefined, 'bench').catch(() => undefined);
    }
    agent.child.kill('SIGTERM');
    scheduler.child.kill('SIGTERM');
    controllerManager?.child.kill('SIGTERM');
    await new Promise((resolve) => (agent.child.exitCode !== null ? resolve(undefined) : agent.child.once('exit', resolve)));
    await real?.stop();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runtime: { type: 'string', default: 'simulated' },
      nodes: { type: 'string', default: '100' },
      pods: { type: 'string', default: '100' },
      out: { type: 'string' },
      'agent-args': { type: 'string', default: '' },
      'scheduler-args': { type: 'string', default: '--kube-api-qps=5000 --kube-api-burst=5000' },
      'create-qps': { type: 'string', default: '0' },
      deployments: { type: 'string', default: '0' },
      'cm-args': { type: 'string', default: '--kube-api-qps=5000 --kube-api-burst=5000' },
      'cpu-prof': { type: 'string' },
    },
  });
  const split = (s: string | undefined) => (s ?? '').split(' ').filter((a) => a !== '');
  const runtime = values.runtime as BenchRuntime;
  if (runtime !== 'simulated' && runtime !== 'containerd') throw new Error(`--runtime ${runtime}: simulated or containerd`);
  // containerd: one real node (this machine)
  const nodes = runtime === 'containerd' ? 1 : Number(values.nodes);
  const r = await oneRun({
    runtime,
    nodes,
    pods: Number(values.pods),
    deployments: Number(values.deployments),
    agentArgs: split(values['agent-args']),
    schedulerArgs: split(values['scheduler-args']),
    controllerManagerArgs: split(values['cm-args']),
    createQps: Number(values['create-qps']),
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : path.resolve(values['cpu-prof']),
  });
  console.log(
    `${r.pods} pods${r.deployments ? ` from ${r.deployments} Deployments` : ''} on ${r.nodes} ${runtime === 'containerd' ? 'containerd node' : 'simulated nodes'} (nodes Ready after ${r.nodesReadyMs} ms): create -> Running p50 ${r.latencyMs.p50} ms, ` +
      `p90 ${r.latencyMs.p90} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms (SLO p99 <= 5 s: ${r.sloMet ? 'met' : 'missed'}); ` +
      `create -> bound p50/p99 ${r.phasesMs.createToBound.p50}/${r.phasesMs.createToBound.p99} ms, bound -> Running ${r.phasesMs.boundToRunning.p50}/${r.phasesMs.boundToRunning.p99} ms; ` +
      `all Running after ${r.allRunningMs} ms (creates took ${r.createMs} ms); CPU s: apiserver ${r.cpuSeconds.apiserver}, scheduler ${r.cpuSeconds.scheduler}, ` +
      `agent ${r.cpuSeconds.agent}${r.cpuSeconds.controllerManager !== undefined ? `, controller manager ${r.cpuSeconds.controllerManager}` : ''}; agent idle ${r.agentIdleCpuPercent}% of a core; apiserver RSS ${r.apiserverRssMiB.before} -> peak ${r.apiserverRssMiB.peak} MiB; agent RSS ${r.agentRssMiB} MiB`,
  );
  writeRunRecord(values.out, 'pod-startup.js', { runtime, run: r });
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
