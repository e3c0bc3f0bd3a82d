/**
 * Smoke test of the benchmark suite: `ballast bench --quick` with tiny sizes runs every scenario
 * against the real server (and etcd when installed) and writes its JSON, Markdown and plots.
 * Performance targets are never asserted here: only that the suite runs and reports.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';

const MAIN_JS = path.resolve(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

t.test('ballast bench --quick produces its results', { skip: fs.existsSync(MAIN_JS) ? false : `${MAIN_JS} is missing: run make build`, timeout: 180_000 }, async (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-test-'));
  t.teardown(() => fs.rmSync(out, { recursive: true, force: true }));
  const args = [MAIN_JS, 'bench', '--quick', '--sizes', '40,80', '--clients', '1,4', '--write-counts', '5,20', '--watchers', '1,3', '--watch-events', '3', '--churn-seconds', '5', '--churn-compaction', '2s', '--out', out];
  if (!fs.existsSync('/usr/bin/etcd')) args.push('--no-etcd');
  const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
    execFile(process.execPath, args, { env: { ...process.env, BALLAST_BENCH_QUIET: '1' }, timeout: 175_000, maxBuffer: 10 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stdout}\n${stderr}`)) : resolve({ stdout }),
    ),
  );
  t.match(stdout, /\| target +\| ours/, 'the targets table is printed');
  const r = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
  t.same(r.meta.config.sizes, [40, 80]);
  t.same([...new Set(r.writes.filter((w: { system: string }) => w.system === 'ballast').map((w: { op: string }) => w.op))], ['create', 'update', 'delete']);
  const modes = new Set(r.reads.filter((x: { system: string }) => x.system === 'ballast').map((x: { mode: string }) => x.mode));
  t.same([...modes].sort(), ['any', 'exact', 'mostRecent', 'notOlderThan']);
  t.ok(r.reads.some((x: { underLoad: boolean }) => x.underLoad), 'reads under write load');
  t.equal(r.reads.find((x: { system: string; op: string; mode: string; size: number }) => x.system === 'ballast' && x.op === 'list' && x.mode === 'mostRecent' && x.size === 80).items, 80);
  t.same(r.watch.filter((w: { system: string }) => w.system === 'ballast').map((w: { watchers: number; missed: number }) => [w.watchers, w.missed]), [[1, 0], [3, 0]]);
  t.ok(r.footprint.some((f: { system: string; objects: number; rssMiB: number }) => f.system === 'ballast' && f.objects === 80 && f.rssMiB > 0));
  t.ok(r.startup.some((s: { objects: number; readyMs: number }) => s.objects === 80 && s.readyMs > 0));
  t.ok(r.churn.samples.length >= 1, 'churn samples');
  t.ok(r.targets.length >= 6, 'targets computed');
  if (r.meta.postgresVersion) {
    for (const system of ['postgres', 'postgres-2']) {
      t.same([...new Set(r.writes.filter((w: { system: string }) => w.system === system).map((w: { op: string }) => w.op))], ['create', 'update', 'delete'], `${system} writes`);
      t.equal(r.reads.find((x: { system: string; op: string; mode: string; size: number }) => x.system === system && x.op === 'list' && x.mode === 'mostRecent' && x.size === 80).items, 80, `${system} reads`);
      t.same(r.watch.filter((w: { system: string }) => w.system === system).map((w: { watchers: number; missed: number }) => [w.watchers, w.missed]), [[1, 0], [3, 0]], `${system} watch`);
    }
    t.match(fs.readFileSync(path.join(out, 'results.md'), 'utf8'), /## SQLite, PostgreSQL \(one API server, two\) and etcd side by side/);
  }
  for (const f of ['results.md', 'write-latency.svg', 'list-cost.svg', 'watch-latency.svg', 'churn.svg']) t.ok(fs.existsSync(path.join(out, f)), f);
  t.match(fs.readFileSync(path.join(out, 'list-cost.svg'), 'utf8'), /^<svg[^>]*xmlns/);
});
