/**
 * Idle footprint of `ballast all` (issue 15): the single-node cluster `make run` starts (the same
 * flags: loopback, Node and RBAC authorization, NodeRestriction), with one node and no workload.
 * After the node is Ready, RSS and CPU are sampled every second for --seconds: the Ballast process
 * itself, and apart from it the processes it started (containerd and its shims with
 * --runtime containerd). k3s documents its server idling near 500 MB; the target is <= 250 MiB.
 *
 *   node dist/bench/idle.js [--runtime simulated|containerd] [--seconds 120] [--out file.json]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadClientConfig } from '../src/client/kubeconfig';
import { RESOURCES } from '../src/client/resources';
import { RestClient } from '../src/client/rest-client';
import { cpuSecondsOf, descendantsOf, freePort, rssMiB, sleep } from './lib/processes';
import { Progress } from './lib/progress';
import { writeRunRecord } from './lib/run-record';
import { quantile, round } from './lib/stats';

const MAIN_JS = path.resolve(__dirname, '..', 'src', 'cli', 'main.js');
export const IDLE_RSS_TARGET_MIB = 250;

/** the flags `make run` gives `ballast all` (Makefile RUN_FLAGS) */
const RUN_FLAGS = ['--bind-address', '127.0.0.1', '--authorization-mode', 'Node,RBAC', '--enable-admission-plugins', 'NodeRestriction'];

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runtime: { type: 'string', default: 'simulated' }, seconds: { type: 'string', default: '120' }, out: { type: 'string' } } });
  const runtime = values.runtime as string;
  if (runtime !== 'simulated' && runtime !== 'containerd') throw new Error(`--runtime ${runtime}: simulated or containerd`);
  const seconds = Number(values.seconds);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-idle-'));
  const port = await freePort();
  const extra = runtime === 'containerd' ? ['--container-runtime', 'containerd', '--offline-images'] : ['--container-runtime', 'simulated'];
  const child = spawn(process.execPath, [MAIN_JS, 'all', ...RUN_FLAGS, '--data-dir', dataDir, '--secure-port', String(port), ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  const pid = child.pid!;
  const started = Date.now();
  try {
    // ready: the node reports Ready (the whole cluster is up)
    const kubeconfig = path.join(dataDir, 'admin.kubeconfig');
    let readyMs = 0;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`ballast all exited:\n${output}`);
      if (Date.now() - started > 180_000) throw new Error(`no Ready node after 3 minutes:\n${output}`);
      if (fs.existsSync(kubeconfig)) {
        try {
          const client = new RestClient(loadClientConfig(kubeconfig), { qps: -1 });
          const nodes = await client.list(RESOURCES.nodes, undefined);
          const ready = nodes.items.some((n) => (n.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
          if (ready) {
            readyMs = Date.now() - started;
            break;
          }
        } catch {
          // not serving yet
        }
      }
      await sleep(500);
    }
    const ballast: number[] = [];
    const others: number[] = [];
    const cpu0 = cpuSecondsOf(pid);
    const progress = new Progress({ quiet: process.env.BALLAST_BENCH_QUIET === '1' });
    progress.start(`idle ${runtime}, RSS sampled every second`, seconds);
    for (let i = 0; i < seconds; i++) {
      await sleep(1000);
      ballast.push(rssMiB(pid));
      others.push(descendantsOf(pid).reduce((sum, p) => sum + (rssMiB(p) || 0), 0));
      progress.tick();
    }
    progress.stop();
    const cpuPercent = ((cpuSecondsOf(pid) - cpu0) / seconds) * 100;
    const sorted = [...ballast].sort((a, b) => a - b);
    const run = {
      runtime,
      readyMs,
      idleSeconds: seconds,
      ballastRssMiB: { p50: round(quantile(sorted, 0.5), 1), max: round(sorted[sorted.length - 1], 1), last: round(ballast[ballast.length - 1], 1) },
      startedProcessesRssMiB: round(Math.max(...others), 1),
      ballastCpuPercentOfACore: round(cpuPercent, 2),
      targetMiB: IDLE_RSS_TARGET_MIB,
      met: sorted[sorted.length - 1] <= IDLE_RSS_TARGET_MIB,
    };
    console.log(
      `ballast all (${runtime}), one node Ready after ${readyMs} ms, then ${seconds} s idle: RSS p50 ${run.ballastRssMiB.p50} MiB, max ${run.ballastRssMiB.max} MiB ` +
        `(target <= ${IDLE_RSS_TARGET_MIB} MiB: ${run.met ? 'met' : 'missed'}); processes it started: ${run.startedProcessesRssMiB} MiB; CPU ${run.ballastCpuPercentOfACore}% of a core`,
    );
    writeRunRecord(values.out, 'idle.js', { run });
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
