/**
 * The scheduler's benchmark (issue 12): the real API server and the real `ballast scheduler`, each
 * in its own process on loopback; nodes are API objects only (no agent). For each node count
 * (100 and 1,000 by default) a fresh server pair, the nodes, then N pods (5,000 by default)
 * created as fast as the bench can (32 at a time), and a watch that sees each bound:
 *   - throughput: pods bound per second, from the first create to the last binding seen;
 *   - latency per pod: its create acknowledged -> its binding seen on the watch (p50, p99, max;
 *     while pods arrive faster than they are scheduled this includes their wait in the queue,
 *     as kube's e2e scheduling latency does);
 *   - the scheduler's own scheduler_scheduling_algorithm_duration_seconds (mean).
 * The published figure it is set beside is in bench/results/scheduler/README.md.
 *   node dist/bench/scheduler.js [--nodes 100,1000] [--pods 5000] [--out file.json]
 *     [--scheduler-args="--kube-api-qps=5000 --kube-api-burst=5000"]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SharedInformer } from '../src/client/informer';
import { loadClientConfig } from '../src/client/kubeconfig';
import { RESOURCES } from '../src/client/resources';
import { RestClient } from '../src/client/rest-client';
import type { KubeObject } from '../src/client/types';
import { BallastServer } from './lib/ballast-server';
import { Progress } from './lib/progress';
import { cpuSecondsOf, freePort, sleep } from './lib/processes';
import { nowMs, round } from './lib/stats';

const MAIN_JS = path.join(__dirname, '..', 'src', 'cli', 'main.js');

export interface SchedulerRun {
  nodes: number;
  pods: number;
  /** first create -> last binding seen */
  totalMs: number;
  podsPerSecond: number;
  /** first create -> last create acknowledged */
  createMs: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** the scheduler's algorithm time per pod (mean, ms) */
  algorithmMeanMs?: number;
  /** CPU seconds each process used from the first create to the last binding */
  cpuSeconds: { apiserver: number; scheduler: number; bench: number };
  /** how many nodes got pods, and the most pods on one node */
  spread: { nodesUsed: number; maxPerNode: number };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

function node(name: string, zone: string): KubeObject {
  const allocatable = { cpu: '32', memory: '64Gi', pods: '110' };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
    status: { capacity: allocatable, allocatable, conditions: [{ type: 'Ready', status: 'True' }], images: [{ names: ['k8s.gcr.io/pause:3.2'], sizeBytes: 682696 }] },
  };
}

function pod(name: string): KubeObject {
  // scheduler_perf's default pod: one pause container requesting 100m CPU and 500Mi
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: 'bench' } },
    spec: { containers: [{ name: 'pause', image: 'k8s.gcr.io/pause:3.2', resources: { requests: { cpu: '100m', memory: '500Mi' }, limits: { cpu: '100m', memory: '500Mi' } } }] },
  };
}

async function inParallel<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i]);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

function startScheduler(kubeconfig: string, extra: string[]): { child: ChildProcess; output: () => string } {
  // BENCH_SCHEDULER_PROF=<dir>: a CPU profile of the scheduler process (bench/profile-summary.ts reads it)
  const prof = process.env.BENCH_SCHEDULER_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_SCHEDULER_PROF] : [];
  const child = spawn(process.execPath, [...prof, MAIN_JS, 'scheduler', '--kubeconfig', kubeconfig, '--leader-elect=false', '--secure-port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-100_000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-100_000)));
  return { child, output: () => out };
}

async function algorithmMean(metricsPort: number): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const sum = Number(/^scheduler_scheduling_algorithm_duration_seconds_sum (\S+)/m.exec(text)?.[1]);
    const count = Number(/^scheduler_scheduling_algorithm_duration_seconds_count (\S+)/m.exec(text)?.[1]);
    return count > 0 ? round((sum / count) * 1000, 3) : undefined;
  } catch {
    return undefined;
  }
}

async function oneRun(nodeCount: number, podCount: number, schedulerArgs: string[]): Promise<SchedulerRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-sched-'));
  const server = new BallastServer({ mainJs: MAIN_JS, dataDir });
  await server.start();
  const kubeconfig = path.join(dataDir, 'admin.kubeconfig');
  const metricsPort = await freePort();
  const scheduler = startScheduler(kubeconfig, ['--port', String(metricsPort), '--address', '127.0.0.1', ...schedulerArgs]);
  const client = new RestClient(loadClientConfig(kubeconfig), { qps: -1, contentType: 'application/vnd.kubernetes.protobuf' });
  const abort = new AbortController();
  const progress = new Progress({ quiet: process.env.BALLAST_BENCH_QUIET === '1' });
  try {
    const names = Array.from({ length: nodeCount }, (_, i) => `node-${String(i).padStart(4, '0')}`);
    await inParallel(names, 16, async (n) => {
      await client.create(RESOURCES.nodes, undefined, node(n, `zone-${names.indexOf(n) % 3}`));
      // the API server taints new nodes not-ready; these are Ready, as the node lifecycle controller would find
      await client.patch(RESOURCES.nodes, undefined, n, 'merge', { spec: { taints: null } });
    });
    // warm-up: one pod bound means the scheduler is up, synced and its code paths compiled
    await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'warmup' } });
    await client.create(RESOURCES.pods, 'warmup', pod('warmup'));
    const warmDeadline = nowMs() + 60_000;
    for (;;) {
      const p = await client.get(RESOURCES.pods, 'warmup', 'warmup');
      if ((p.spec as { nodeName?: string }).nodeName) break;
      if (nowMs() > warmDeadline) throw new Error(`the scheduler did not bind the warm-up pod:\n${scheduler.output().slice(-3000)}`);
      await sleep(50);
    }

    const ns = 'bench';
    await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const acked = new Map<string, number>();
    const bound = new Map<string, number>();
    const perNode = new Map<string, number>();
    let allBound: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (allBound = resolve));
    const watch = new SharedInformer(client, RESOURCES.pods, { namespace: ns });
    const seen = (p: KubeObject) => {
      const nodeName = (p.spec as { nodeName?: string }).nodeName;
      const name = p.metadata?.name ?? '';
      if (!nodeName || bound.has(name)) return;
      bound.set(name, nowMs());
      progress.tick();
      perNode.set(nodeName, (perNode.get(nodeName) ?? 0) + 1);
      if (bound.size === podCount) allBound();
    };
    watch.addEventHandler({ add: seen, update: (_o, p) => seen(p) });
    const watching = watch.run(abort.signal);
    await watch.waitForSync(abort.signal);

    const podNames = Array.from({ length: podCount }, (_, i) => `pod-${String(i).padStart(5, '0')}`);
    const cpu0 = { apiserver: cpuSecondsOf(server.pid), scheduler: cpuSecondsOf(scheduler.child.pid), bench: process.cpuUsage() };
    const t0 = nowMs();
    progress.start(`${podCount} pods bound over ${nodeCount} nodes`, podCount);
    await inParallel(podNames, 32, async (n) => {
      await client.create(RESOURCES.pods, ns, pod(n));
      acked.set(n, nowMs());
    });
    const tCreated = nowMs();
    const timeout = setTimeout(() => allBound(), 600_000);
    await done;
    clearTimeout(timeout);
    progress.stop();
    const tEnd = Math.max(...bound.values());
    const benchCpu = process.cpuUsage(cpu0.bench);
    const cpuSeconds = {
      apiserver: round(cpuSecondsOf(server.pid) - cpu0.apiserver, 2),
      scheduler: round(cpuSecondsOf(scheduler.child.pid) - cpu0.scheduler, 2),
      bench: round((benchCpu.user + benchCpu.system) / 1e6, 2),
    };
    if (bound.size < podCount) throw new Error(`only ${bound.size}/${podCount} pods bound in 10 minutes:\n${scheduler.output().slice(-3000)}`);
    const latencies = podNames.map((n) => (bound.get(n) ?? 0) - (acked.get(n) ?? 0)).sort((a, b) => a - b);
    const result: SchedulerRun = {
      nodes: nodeCount,
      pods: podCount,
      totalMs: round(tEnd - t0, 1),
      podsPerSecond: round((podCount * 1000) / (tEnd - t0), 1),
      createMs: round(tCreated - t0, 1),
      latencyMs: { p50: round(quantile(latencies, 0.5), 1), p90: round(quantile(latencies, 0.9), 1), p99: round(quantile(latencies, 0.99), 1), max: round(latencies.at(-1) ?? 0, 1) },
      algorithmMeanMs: await algorithmMean(metricsPort),
      cpuSeconds,
      spread: { nodesUsed: perNode.size, maxPerNode: Math.max(...perNode.values()) },
    };
    abort.abort();
    await watching;
    return result;
  } finally {
    progress.stop();
    abort.abort();
    if (process.env.BENCH_SCHEDULER_LOG) fs.writeFileSync(process.env.BENCH_SCHEDULER_LOG, scheduler.output());
    client.close();
    scheduler.child.kill('SIGTERM');
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      nodes: { type: 'string', default: '100,1000' },
      pods: { type: 'string', default: '5000' },
      out: { type: 'string' },
      'scheduler-args': { type: 'string', default: '--kube-api-qps=5000 --kube-api-burst=5000' },
    },
  });
  const schedulerArgs = (values['scheduler-args'] ?? '').split(' ').filter((a) => a !== '');
  const runs: SchedulerRun[] = [];
  for (const n of (values.nodes ?? '').split(',').map(Number)) {
    const r = await oneRun(n, Number(values.pods), schedulerArgs);
    runs.push(r);
    console.log(
      `${r.pods} pods over ${r.nodes} nodes: ${r.podsPerSecond} pods/s (${r.totalMs} ms; creates took ${r.createMs} ms); ` +
        `latency p50 ${r.latencyMs.p50} ms, p90 ${r.latencyMs.p90} ms, p99 ${r.latencyMs.p99} ms, max ${r.latencyMs.max} ms; ` +
        `algorithm ${r.algorithmMeanMs ?? '?'} ms/pod; CPU s: apiserver ${r.cpuSeconds.apiserver}, scheduler ${r.cpuSeconds.scheduler}, bench ${r.cpuSeconds.bench}; ` +
        `${r.spread.nodesUsed} nodes used, at most ${r.spread.maxPerNode} pods on one`,
    );
  }
  const report = { command: `node dist/bench/scheduler.js ${process.argv.slice(2).join(' ')}`, schedulerArgs, node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, runs };
  if (values.out) fs.writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
