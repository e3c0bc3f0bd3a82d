/**
 * The controller manager's benchmark (issue 11): `kubectl apply` of a Deployment of N replicas
 * (100 by default) against the real API server and the real `ballast controller-manager` process,
 * each in its own process on loopback.
 *   1. apply -> N Pods created (the deployment and replicaset controllers' work);
 *   2. the bench plays the node: it marks every pod Running and Ready through the status
 *      subresource, 16 at a time; from the first mark to the Deployment's Available condition
 *      True with N available replicas.
 * For each phase, the requests the API server served (its apiserver_request_total, by verb and
 * resource) and their rate. Several runs (--runs) on one server pair, each with a fresh Deployment.
 *   node dist/bench/deployment.js [--replicas 100] [--runs 3] [--kubectl path] [--out file.json]
 *     [--cm-args="--kube-api-qps=100 ..."]   (extra controller-manager flags)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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
import { sleep } from './lib/processes';
import { nowMs, round } from './lib/stats';

const MAIN_JS = path.join(__dirname, '..', 'src', 'cli', 'main.js');

interface PhaseResult {
  ms: number;
  requests: number;
  requestsPerSecond: number;
  /** `<verb> <resource>[/<subresource>]` -> count, largest first */
  byVerb: Record<string, number>;
}

export interface DeploymentRun {
  replicas: number;
  /** apply -> N pods created */
  create: PhaseResult;
  /** how long kubectl apply itself took (start, discovery, the create) */
  applyMs: number;
  /** first pod marked ready -> Deployment Available with N available */
  ready: PhaseResult;
  /** last pod marked ready -> Available */
  lastReadyToAvailableMs: number;
}

/** kubectl 1.32 beside the dispatcher on PATH, or as given */
function findKubectl(given?: string): string {
  if (given) return given;
  const which = spawnSync('sh', ['-c', 'readlink -f "$(command -v kubectl)"'], { encoding: 'utf8' }).stdout.trim();
  const candidate = path.join(path.dirname(which), 'kubectl.1.32');
  if (!which || !fs.existsSync(candidate)) throw new Error('kubectl 1.32 not found beside kubectl on PATH; give --kubectl');
  return candidate;
}

/** apiserver_request_total summed by verb and resource */
async function requestCounts(client: RestClient): Promise<Map<string, number>> {
  const text = String(await client.request('GET', '/metrics'));
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const key = `${labels.verb} ${labels.resource || '(non-resource)'}${labels.subresource ? '/' + labels.subresource : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

function phase(ms: number, before: Map<string, number>, after: Map<string, number>): PhaseResult {
  const byVerb: Record<string, number> = {};
  let requests = 0;
  for (const [k, v] of [...after].sort((a, b) => b[1] - (before.get(b[0]) ?? 0) - (a[1] - (before.get(a[0]) ?? 0)))) {
    const d = v - (before.get(k) ?? 0);
    if (d <= 0) continue;
    byVerb[k] = d;
    requests += d;
  }
  return { ms: round(ms, 1), requests, requestsPerSecond: round((requests * 1000) / ms, 1), byVerb };
}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  // (checks the informers' stores: no requests)
  const deadline = nowMs() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (nowMs() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

function deploymentManifest(name: string, replicas: number): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'bench', run: name } },
      template: { metadata: { labels: { app: 'bench', run: name } }, spec: { containers: [{ name: 'web', image: 'busybox:1.36', command: ['sleep', '3600'] }] } },
    },
  });
}

function kubectlApply(kubectl: string, kubeconfig: string, ns: string, manifest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(kubectl, ['--kubeconfig', kubeconfig, '-n', ns, 'apply', '-f', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`kubectl apply failed: ${err}`))));
    child.stdin.end(manifest);
  });
}

async function markReady(client: RestClient, pods: KubeObject[]): Promise<void> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < pods.length; i = next++) {
      const p = pods[i];
      await client.patch(RESOURCES.pods, p.metadata?.namespace, p.metadata?.name ?? '', 'merge', {
        status: {
          phase: 'Running',
          startTime: now,
          conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
          containerStatuses: [{ name: 'web', image: 'busybox:1.36', imageID: '', ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } }],
        },
      }, { subresource: 'status' });
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

async function oneRun(client: RestClient, kubectl: string, kubeconfig: string, ns: string, name: string, replicas: number): Promise<DeploymentRun> {
  // the bench watches (one list and one watch each) rather than polls, so the request counts are
  // the controllers' own plus kubectl's apply and the simulated node's status patches
  const abort = new AbortController();
  const pods = new SharedInformer(client, RESOURCES.pods, { namespace: ns });
  const deployments = new SharedInformer(client, RESOURCES.deployments, { namespace: ns });
  const runs = [pods.run(abort.signal), deployments.run(abort.signal)];
  try {
    await Promise.all([pods.waitForSync(abort.signal), deployments.waitForSync(abort.signal)]);
    const before = await requestCounts(client);
    const t0 = nowMs();
    await kubectlApply(kubectl, kubeconfig, ns, deploymentManifest(name, replicas));
    const applied = nowMs();
    const created = await until(`${replicas} pods`, async () => {
      const mine = pods.store.list().filter((p) => p.metadata?.labels?.run === name);
      return mine.length >= replicas ? mine : undefined;
    });
    const t1 = nowMs();
    const afterCreate = await requestCounts(client);

    const t2 = nowMs();
    await markReady(client, created);
    const t3 = nowMs();
    await until('the Deployment Available', async () => {
      const d = deployments.store.list().find((x) => x.metadata?.name === name);
      const status = (d?.status ?? {}) as { availableReplicas?: number; conditions?: { type: string; status: string }[] };
      return status.availableReplicas === replicas && status.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ? true : undefined;
    });
    const t4 = nowMs();
    const afterReady = await requestCounts(client);
    return {
      replicas,
      create: phase(t1 - t0, before, afterCreate),
      applyMs: round(applied - t0, 1),
      ready: phase(t4 - t2, afterCreate, afterReady),
      lastReadyToAvailableMs: round(t4 - t3, 1),
    };
  } finally {
    abort.abort();
    await Promise.allSettled(runs);
  }
}

function startControllerManager(kubeconfig: string, extra: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [MAIN_JS, 'controller-manager', '--kubeconfig', kubeconfig, '--secure-port', '0', '--leader-elect=false', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-100_000)));
  child.stderr?.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-100_000)));
  return { child, output: () => out };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      replicas: { type: 'string', default: '100' },
      runs: { type: 'string', default: '3' },
      kubectl: { type: 'string' },
      out: { type: 'string' },
      'cm-args': { type: 'string', default: '' },
    },
  });
  const replicas = Number(values.replicas);
  const runs = Number(values.runs);
  const kubectl = findKubectl(values.kubectl);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-deploy-'));
  const server = new BallastServer({ mainJs: MAIN_JS, dataDir });
  const kubeconfig = path.join(dataDir, 'admin.kubeconfig');
  await server.start();
  const cmArgs = (values['cm-args'] ?? '').split(' ').filter((a) => a !== '');
  const cm = startControllerManager(kubeconfig, cmArgs);
  const client = new RestClient(loadClientConfig(kubeconfig), { qps: -1, contentType: 'application/json' });
  const results: DeploymentRun[] = [];
  try {
    // a warm-up Deployment of one replica: the controller manager is up and its code paths compiled
    await oneRun(client, kubectl, kubeconfig, 'default', 'warmup', 1).catch((err: unknown) => {
      throw new Error(`warm-up failed: ${(err as Error).message}\n${cm.output().slice(-3000)}`);
    });
    for (let i = 0; i < runs; i++) {
      const ns = `bench-${i}`;
      await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      const r = await oneRun(client, kubectl, kubeconfig, ns, 'web', replicas);
      results.push(r);
      const events = (await client.list(RESOURCES.events, ns)).items as Array<KubeObject & { reason?: string; message?: string; count?: number }>;
      const unusual = events.filter((e) => !['ScalingReplicaSet', 'SuccessfulCreate'].includes(e.reason ?? ''));
      for (const e of unusual) console.log(`  event ${e.reason} x${e.count ?? 1}: ${e.message}`);
      console.log(
        `run ${i + 1}: apply -> ${replicas} pods ${r.create.ms} ms (kubectl ${r.applyMs} ms; ${r.create.requests} requests, ${r.create.requestsPerSecond}/s); ` +
          `ready -> Available ${r.ready.ms} ms (${r.ready.requests} requests, ${r.ready.requestsPerSecond}/s; ${r.lastReadyToAvailableMs} ms after the last pod)`,
      );
    }
  } finally {
    if (process.env.BENCH_CM_LOG) fs.writeFileSync(process.env.BENCH_CM_LOG, cm.output());
    client.close();
    cm.child.kill('SIGTERM');
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const report = { command: `node dist/bench/deployment.js ${process.argv.slice(2).join(' ')}`, controllerManagerArgs: cmArgs, node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, kubectl: path.basename(kubectl), replicas, runs: results };
  if (values.out) fs.writeFileSync(values.out, JSON.stringify(report, null, 2) + '\n');
  console.log(JSON.stringify(results.at(-1)?.create.byVerb), JSON.stringify(results.at(-1)?.ready.byVerb));
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
