/**
 * Compaction under load: Lease-like churn (a fixed set of Leases renewed over and over with
 * resourceVersion preconditions, as leader election and node heartbeats do) against the real server,
 * measuring write latency and sampling the database and WAL sizes.
 *
 * Standalone: npx ts-node-transpile-only test/reliability/churn-tool.ts --seconds 120
 *   [--compaction-interval 5s] [--leases 200] [--clients 16]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BallastServer, sleep } from './lib/server';
import { mib, parseFlags, percentile } from './lib/stats';

export interface ChurnOptions {
  seconds: number;
  /** --etcd-compaction-interval value, e.g. '1s'; '0' turns compaction off */
  compactionInterval: string;
  leases?: number;
  clients?: number;
  log?: (line: string) => void;
}

export interface ChurnFigures {
  compactionInterval: string;
  writes: number;
  conflicts: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** database + WAL bytes: samples over time */
  sizes: { atMs: number; db: number; wal: number }[];
  maxDbPlusWal: number;
  finalDbPlusWal: number;
  maxDb: number;
  maxWal: number;
  finalDb: number;
  /** database bytes when the renewals start (bootstrap objects and the leases, checkpointed) */
  startDb: number;
}

const micro = () => new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export async function runChurn(o: ChurnOptions): Promise<ChurnFigures> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-churn-'));
  const server = await BallastServer.start({ dataDir, args: ['--etcd-compaction-interval', o.compactionInterval] });
  const nLeases = o.leases ?? 100;
  const nClients = o.clients ?? 16;
  const f: ChurnFigures = { compactionInterval: o.compactionInterval, writes: 0, conflicts: 0, errors: 0, p50Ms: 0, p99Ms: 0, sizes: [], maxDbPlusWal: 0, finalDbPlusWal: 0, maxDb: 0, maxWal: 0, finalDb: 0, startDb: 0 };
  try {
    const client = server.freshClient();
    const base = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const rvs: string[] = [];
    for (let i = 0; i < nLeases; i++) {
      const r = await client.json('POST', base, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: `lease-${i}` },
        spec: { holderIdentity: `holder-${i}`, leaseDurationSeconds: 40, renewTime: micro() },
      });
      if (r.status !== 201) throw new Error(`lease create: ${r.status} ${JSON.stringify(r.body)}`);
      rvs.push(r.body.metadata.resourceVersion);
    }
    const dbFile = path.join(dataDir, 'state.db');
    const size = (p: string) => {
      try {
        return fs.statSync(p).size;
      } catch {
        return 0;
      }
    };
    // the server checkpoints every second: let what start-up and the creates wrote reach the file
    await sleep(1500);
    f.startDb = size(dbFile);
    const started = Date.now();
    const sampler = setInterval(() => {
      const s = { atMs: Date.now() - started, db: size(dbFile), wal: size(`${dbFile}-wal`) };
      f.sizes.push(s);
    }, 250);
    const latencies: number[] = [];
    const deadline = started + o.seconds * 1000;
    const keepAlive = server.client();
    let turn = 0;
    await Promise.all(
      Array.from({ length: nClients }, async (_, c) => {
        // each client renews its own share of the leases, one after another
        while (Date.now() < deadline) {
          const i = (c + nClients * turn++) % nLeases;
          const body = {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name: `lease-${i}`, resourceVersion: rvs[i] },
            spec: { holderIdentity: `holder-${i}`, leaseDurationSeconds: 40, renewTime: micro() },
          };
          try {
            const r = await keepAlive.request('PUT', `${base}/lease-${i}`, { body: JSON.stringify(body) });
            if (r.status === 200) {
              latencies.push(r.ms);
              rvs[i] = JSON.parse(r.body).metadata.resourceVersion;
              f.writes++;
            } else if (r.status === 409) {
              // two clients renewed the same lease: re-read it, as a leader-election client does
              f.conflicts++;
              rvs[i] = (await keepAlive.json('GET', `${base}/lease-${i}`)).body.metadata.resourceVersion;
            } else {
              f.errors++;
            }
          } catch {
            f.errors++;
            await sleep(10);
          }
        }
      }),
    );
    clearInterval(sampler);
    f.p50Ms = percentile(latencies, 50);
    f.p99Ms = percentile(latencies, 99);
    f.maxDbPlusWal = Math.max(0, ...f.sizes.map((s) => s.db + s.wal));
    const last = f.sizes[f.sizes.length - 1];
    f.finalDbPlusWal = last ? last.db + last.wal : 0;
    f.finalDb = last?.db ?? 0;
    f.maxDb = Math.max(0, ...f.sizes.map((s) => s.db));
    f.maxWal = Math.max(0, ...f.sizes.map((s) => s.wal));
    o.log?.(formatChurnFigures(f));
    return f;
  } finally {
    await server.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatChurnFigures(f: ChurnFigures): string {
  const third = Math.floor(f.sizes.length / 3);
  const maxOf = (xs: typeof f.sizes, k: 'db' | 'wal') => Math.max(0, ...xs.map((s) => s[k]));
  const thirds = (k: 'db' | 'wal') => [f.sizes.slice(0, third), f.sizes.slice(third, 2 * third), f.sizes.slice(2 * third)].map((xs) => mib(maxOf(xs, k))).join(', ');
  return (
    `churn (compaction ${f.compactionInterval}): ${f.writes} lease renewals, ${f.conflicts} conflicts, ${f.errors} errors; ` +
    `write p50 ${f.p50Ms.toFixed(1)} ms, p99 ${f.p99Ms.toFixed(1)} ms; database max by thirds ${thirds('db')}, final ${mib(f.finalDb)}; ` +
    `WAL max by thirds ${thirds('wal')}`
  );
}

if (require.main === module) {
  const flags = parseFlags(process.argv.slice(2));
  runChurn({
    seconds: Number(flags.get('seconds') ?? 120),
    compactionInterval: flags.get('compaction-interval') ?? '5s',
    leases: Number(flags.get('leases') ?? 200),
    clients: Number(flags.get('clients') ?? 16),
    log: (l) => console.log(l),
  }).catch((err) => {
    console.error(err);
    process.exitCode = 2;
  });
}
