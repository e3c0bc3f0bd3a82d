/**
 * The benchmark suite: starts the real server (and etcd), runs the scenarios against both over
 * loopback from this process, prints the targets table and writes bench/results/. Used by
 * `ballast bench` and `make bench`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EtcdServer, ensureEtcd, etcdVersion, EtcdClient } from './etcd';
import { BallastServer } from './lib/ballast-server';
import { ballastClient } from './lib/context';
import type { BenchConfig, BenchContext } from './lib/context';
import { Progress } from './lib/progress';
import { computeTargets, targetsTable, writeReport } from './lib/report';
import type { BenchResults } from './lib/results';
import { round } from './lib/stats';
import { churnScenario } from './scenarios/churn';
import { readScenario } from './scenarios/reads';
import { watchScenario } from './scenarios/watch';
import { writeScenario } from './scenarios/writes';

export const ALL_SCENARIOS = ['writes', 'reads', 'watch', 'footprint', 'churn'];

export function defaultConfig(quick: boolean, outDir: string): BenchConfig {
  return quick
    ? {
        quick,
        sizes: [200, 1000],
        writeClients: [1, 16, 64],
        writeCounts: [30, 200],
        watchers: [1, 20],
        watchEvents: 10,
        churnSeconds: 10,
        churnCompaction: '5s',
        objectBytes: 1024,
        etcd: true,
        outDir,
        scenarios: new Set(ALL_SCENARIOS),
      }
    : {
        quick,
        sizes: [1000, 10000, 100000],
        writeClients: [1, 16, 64],
        writeCounts: [300, 3000],
        watchers: [1, 100, 1000],
        watchEvents: 50,
        churnSeconds: 600,
        churnCompaction: '1m',
        objectBytes: 1024,
        etcd: true,
        outDir,
        scenarios: new Set(ALL_SCENARIOS),
      };
}

export interface RunOptions {
  cfg: BenchConfig;
  /** dist/src/cli/main.js */
  mainJs: string;
  command: string;
  /** results file name (without extension) */
  name: string;
  log(line: string): void;
  quietProgress?: boolean;
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', cwd: path.resolve(__dirname, '..', '..') }).trim();
  } catch {
    return undefined;
  }
}

export async function runBench(o: RunOptions): Promise<{ results: BenchResults; files: string[] }> {
  const { cfg, log } = o;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-'));
  const notes: string[] = [];
  const results: BenchResults = {
    meta: {
      command: o.command,
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memGiB: round(os.totalmem() / 2 ** 30, 1),
      loadAverage: os.loadavg(),
      ballastCommit: gitCommit(),
      config: { ...cfg, scenarios: [...cfg.scenarios] },
      notes,
    },
    writes: [],
    reads: [],
    watch: [],
    watchThroughput: [],
    footprint: [],
    startup: [],
    targets: [],
  };
  const progress = new Progress({ quiet: o.quietProgress });
  let etcd: EtcdServer | undefined;
  if (cfg.etcd) {
    const why = ensureEtcd(log);
    if (why) {
      notes.push(`etcd not run: ${why}`);
      log(`etcd not run: ${why}`);
    } else {
      etcd = new EtcdServer(path.join(work, 'etcd'));
      results.meta.etcdVersion = etcdVersion();
    }
  }
  // history must survive the whole run (watch replays an old revision); churn runs its own server with compaction
  const ballast = new BallastServer({ mainJs: o.mainJs, dataDir: path.join(work, 'ballast'), args: ['--etcd-compaction-interval', '0', '--logging-format', 'json', ...(cfg.serverArgs ?? [])], cpuProfDir: cfg.cpuProfDir });
  const ctx: BenchContext = { cfg, ballast, etcd, progress, results, log };
  try {
    // the first start creates the PKI; the second is the start-to-ready of an empty database
    await ballast.start();
    await ballast.stop();
    results.startup.push({ system: 'ballast', objects: 0, readyMs: round(await ballast.start(), 0) });
    if (etcd) results.startup.push({ system: 'etcd', objects: 0, readyMs: round(await etcd.start(), 0) });
    log(`ballast ${ballast.url} (pid ${ballast.pid})${etcd ? `, etcd ${etcd.url} (pid ${etcd.pid})` : ''}; work dir ${work}`);

    if (cfg.scenarios.has('writes')) await writeScenario(ctx);

    let replay: { ballastRv: string; etcdRev?: number; count: number } | undefined;
    if (cfg.scenarios.has('reads') || cfg.scenarios.has('footprint') || cfg.scenarios.has('watch')) {
      const http = ballastClient(ctx, 1);
      const before = (await http.json<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces?limit=1')).metadata.resourceVersion;
      http.close();
      const etcdRev = etcd ? (await new EtcdClient(etcd.url, 1).range('/none/', {})).revision : undefined;
      const footprintAt = new Set(cfg.quick ? [cfg.sizes[cfg.sizes.length - 1]] : cfg.sizes.filter((s) => s >= 10000));
      await readScenario(ctx, async (size) => {
        if (!cfg.scenarios.has('footprint') || !footprintAt.has(size)) return;
        await new Promise((r) => setTimeout(r, 2000));
        const f = ballast.files();
        const row = { system: 'ballast' as const, objects: size, rssMiB: round(ballast.rssMiB(), 1), dbMiB: round(f.dbMiB, 2), walMiB: round(f.walMiB, 2) };
        // RSS again once the watch cache holds the collection
        const c = ballastClient(ctx, 1);
        await c.request('GET', '/api/v1/namespaces/bench-reads/configmaps?resourceVersion=0');
        c.close();
        await new Promise((r) => setTimeout(r, 1000));
        results.footprint.push({ ...row, rssWithCacheMiB: round(ballast.rssMiB(), 1) });
        if (etcd) {
          const e = etcd.files();
          results.footprint.push({ system: 'etcd', objects: size, rssMiB: round(etcd.rssMiB(), 1), dbMiB: round(e.dbMiB, 2), walMiB: round(e.walMiB, 2) });
        }
      });
      replay = { ballastRv: before, etcdRev: etcdRev === undefined ? undefined : etcdRev + 1, count: Math.min(cfg.sizes[cfg.sizes.length - 1], 10000) };
      if (cfg.scenarios.has('footprint')) {
        const n = cfg.sizes[cfg.sizes.length - 1];
        await ballast.stop();
        results.startup.push({ system: 'ballast', objects: n, readyMs: round(await ballast.start(), 0) });
        if (etcd) {
          await etcd.stop();
          results.startup.push({ system: 'etcd', objects: n, readyMs: round(await etcd.start(), 0) });
        }
      }
    }

    if (cfg.scenarios.has('watch')) await watchScenario(ctx, replay);
  } finally {
    progress.stop();
    await ballast.stop();
    await etcd?.stop();
  }

  if (cfg.scenarios.has('churn') && cfg.churnSeconds > 0) {
    const churnServer = new BallastServer({ mainJs: o.mainJs, dataDir: path.join(work, 'churn'), args: ['--etcd-compaction-interval', cfg.churnCompaction, '--logging-format', 'json', ...(cfg.serverArgs ?? [])] });
    try {
      await churnServer.start();
      await churnScenario(ctx, churnServer);
    } finally {
      await churnServer.stop();
    }
  }

  results.targets = computeTargets(results, cfg.sizes);
  const files = writeReport(results, cfg.outDir, o.name);
  log('');
  for (const line of targetsTable(results)) log(line);
  log('');
  log(`results: ${files.join(', ')}`);
  fs.rmSync(work, { recursive: true, force: true });
  return { results, files };
}
