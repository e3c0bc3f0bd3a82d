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
import { postgresSkipReason, postgresVersion, startPostgres } from './lib/postgres';
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
        postgres: true,
        secured: true,
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
        postgres: true,
        secured: true,
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
  const ballast = new BallastServer({ mainJs: o.mainJs, dataDir: path.join(work, 'ballast'), args: ['--etcd-compaction-interval', '0', '--logging-format', 'json', ...(cfg.serverArgs ?? [])], cpuProfDir: cfg.cpuProfDir, secured: cfg.secured });
  const ctx: BenchContext = { cfg, system: 'ballast', ballast, etcd, progress, results, log };
  try {
    // the first start creates the PKI; the second is the start-to-ready of an empty database
    await ballast.start();
    await ballast.stop();
    results.startup.push({ system: 'ballast', objects: 0, readyMs: round(await ballast.start(), 0) });
    if (etcd) results.startup.push({ system: 'etcd', objects: 0, readyMs: round(await etcd.start(), 0) });
    log(`ballast ${ballast.url} (pid ${ballast.pid})${etcd ? `, etcd ${etcd.url} (pid ${etcd.pid})` : ''}; work dir ${work}`);

    await stateScenarios(ctx, {
      footprint: async (size) => {
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
      },
      afterReads: async () => {
        const n = cfg.sizes[cfg.sizes.length - 1];
        await ballast.stop();
        results.startup.push({ system: 'ballast', objects: n, readyMs: round(await ballast.start(), 0) });
        if (etcd) {
          await etcd.stop();
          results.startup.push({ system: 'etcd', objects: n, readyMs: round(await etcd.start(), 0) });
        }
      },
    });
  } finally {
    progress.stop();
    await ballast.stop();
    await etcd?.stop();
  }

  if (cfg.postgres && ['writes', 'reads', 'watch'].some((x) => cfg.scenarios.has(x))) await postgresPasses({ ...ctx, etcd: undefined }, o, work, notes);

  if (cfg.scenarios.has('churn') && cfg.churnSeconds > 0) {
    const churnServer = new BallastServer({ mainJs: o.mainJs, dataDir: path.join(work, 'churn'), args: ['--etcd-compaction-interval', cfg.churnCompaction, '--logging-format', 'json', ...(cfg.serverArgs ?? [])], secured: cfg.secured });
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

/**
 * writes, reads and watch on the systems of ctx; footprint (with its sizes) and afterReads (the
 * restart with the full collection) only where given
 */
async function stateScenarios(ctx: BenchContext, hooks: { footprint?: (size: number) => Promise<void>; afterReads?: () => Promise<void> }): Promise<void> {
  const { cfg, etcd } = ctx;
  if (cfg.scenarios.has('writes')) await writeScenario(ctx);
  let replay: { ballastRv: string; etcdRev?: number; count: number } | undefined;
  const footprint = cfg.scenarios.has('footprint') ? hooks.footprint : undefined;
  if (cfg.scenarios.has('reads') || footprint || cfg.scenarios.has('watch')) {
    const http = ballastClient(ctx, 1);
    const before = (await http.json<{ metadata: { resourceVersion: string } }>('GET', '/api/v1/namespaces?limit=1')).metadata.resourceVersion;
    http.close();
    const etcdRev = etcd ? (await new EtcdClient(etcd.url, 1).range('/none/', {})).revision : undefined;
    const footprintAt = new Set(cfg.quick ? [cfg.sizes[cfg.sizes.length - 1]] : cfg.sizes.filter((s) => s >= 10000));
    await readScenario(ctx, async (size) => {
      if (!footprint || !footprintAt.has(size)) return;
      await new Promise((r) => setTimeout(r, 2000));
      await footprint(size);
    });
    replay = { ballastRv: before, etcdRev: etcdRev === undefined ? undefined : etcdRev + 1, count: Math.min(cfg.sizes[cfg.sizes.length - 1], 10000) };
    if (footprint) await hooks.afterReads?.();
  }
  if (cfg.scenarios.has('watch')) await watchScenario(ctx, replay);
}

/**
 * The same writes, reads and watch on PostgreSQL (a private cluster, durable commits as SQLite's):
 * one API server, then two on one database, the second started with the first one's CA and
 * service-account keys as a second server of a cluster would be
 */
async function postgresPasses(base: BenchContext, o: RunOptions, work: string, notes: string[]): Promise<void> {
  const why = postgresSkipReason();
  if (why) {
    notes.push(`PostgreSQL not run: ${why}`);
    base.log(`PostgreSQL not run: ${why}`);
    return;
  }
  const pg = await startPostgres();
  base.results.meta.postgresVersion = postgresVersion();
  try {
    for (const [system, count] of [['postgres', 1], ['postgres-2', 2]] as const) {
      const url = await pg.database(`bench_${system.replace('-', '_')}`);
      const servers: BallastServer[] = [];
      try {
        for (let i = 0; i < count; i++) {
          const dataDir = path.join(work, `${system}-${i}`);
          if (i > 0) {
            fs.mkdirSync(path.join(dataDir, 'pki'), { recursive: true });
            for (const f of ['ca.crt', 'ca.key', 'sa.key', 'sa.pub']) fs.copyFileSync(path.join(work, `${system}-0`, 'pki', f), path.join(dataDir, 'pki', f));
          }
          const server = new BallastServer({ mainJs: o.mainJs, dataDir, args: ['--etcd-servers', url, '--etcd-compaction-interval', '0', '--logging-format', 'json', ...(base.cfg.serverArgs ?? [])], secured: base.cfg.secured });
          servers.push(server);
          base.results.startup.push({ system, objects: 0, readyMs: round(await server.start(), 0) });
        }
        base.log(`${system}: ${servers.map((s) => `${s.url} (pid ${s.pid})`).join(', ')} on ${url}`);
        await stateScenarios({ ...base, system, ballast: servers[0], peer: servers[1] }, {});
      } finally {
        for (const s of servers) await s.stop();
      }
    }
  } finally {
    await pg.stop();
  }
}
