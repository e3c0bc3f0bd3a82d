/**
 * Compaction under load (short form; make soak runs a longer churn): the same Lease churn with
 * compaction off and with a 1s --etcd-compaction-interval. With compaction running, write p99 does
 * not jump (loose: under 5x, with a 20 ms floor for a quiet machine), and the database + WAL stop
 * growing while without compaction they grow with every renewal.
 */
import fs from 'node:fs';
import t from 'tap';
import { formatChurnFigures, runChurn } from './churn-tool';
import { MAIN_JS } from './lib/server';
import { mib } from './lib/stats';

t.test('write latency and file sizes with compaction running', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const seconds = Number(process.env.CHURN_SECONDS ?? 8);
  const off = await runChurn({ seconds, compactionInterval: '0', leases: 100, clients: 16 });
  const on = await runChurn({ seconds, compactionInterval: '1s', leases: 100, clients: 16 });
  t.comment(formatChurnFigures(off));
  t.comment(formatChurnFigures(on));
  t.equal(off.errors + on.errors, 0, 'no write failed');
  t.ok(on.writes > 500 && off.writes > 500, `renewals ran (${off.writes} without, ${on.writes} with compaction)`);
  t.ok(on.p99Ms < Math.max(20, off.p99Ms * 5), `write p99 ${on.p99Ms.toFixed(1)} ms with compaction vs ${off.p99Ms.toFixed(1)} ms without`);
  // sizes: with compaction the database levels off; without, it grows with every renewal. The WAL
  // is bounded by what is written between two checkpoints (1s timer; 64 MiB journal_size_limit).
  const third = (f: typeof on, k: number) => {
    const n = Math.floor(f.sizes.length / 3);
    return Math.max(0, ...f.sizes.slice(k * n, (k + 1) * n).map((s) => s.db));
  };
  t.ok(third(on, 2) <= third(on, 1) * 1.6 + 256 * 1024, `with compaction the database levels off (${mib(third(on, 1))} -> ${mib(third(on, 2))})`);
  // growth per renewal: what the file held before the renewals (bootstrap objects, the leases) is
  // the same in both runs and says nothing about compaction
  const perRenewal = (f: typeof on) => Math.max(0, f.finalDb - f.startDb) / f.writes;
  t.ok(perRenewal(on) < perRenewal(off) / 2, `database growth per renewal: ${perRenewal(on).toFixed(0)} bytes with compaction, ${perRenewal(off).toFixed(0)} without`);
  t.ok(on.maxWal < 64 * 1024 * 1024, `WAL stays under its 64 MiB limit (max ${mib(on.maxWal)})`);
});
