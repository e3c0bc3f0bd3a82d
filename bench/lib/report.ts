/**
 * From results to what a user reads: the targets of issue #4 as ratios to etcd with PASS/MISS, a
 * plain-text table for the terminal, a Markdown summary, SVG plots, and the JSON itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { BenchResults, ReadResult, TargetRow } from './results';
import { round } from './stats';
import { lineChart } from './svg';

const find = <T>(xs: T[], pred: (x: T) => boolean): T | undefined => xs.find(pred);

function read(r: BenchResults, system: string, op: string, mode: string, size: number, underLoad = false): ReadResult | undefined {
  return find(r.reads, (x) => x.system === system && x.op === op && x.mode === mode && x.size === size && x.underLoad === underLoad);
}

/** the issue's targets, at the sizes this run has (the quick run uses smaller ones) */
export function computeTargets(r: BenchResults, sizes: number[]): TargetRow[] {
  const rows: TargetRow[] = [];
  const add = (target: string, ours: number | undefined, reference: number | undefined, goal: string, ok: (ratio: number) => boolean, ratioOf?: (o: number, ref: number) => number, note?: string) => {
    if (ours === undefined || (reference === undefined && ratioOf === undefined)) {
      rows.push({ target, ours: ours ?? NaN, reference: reference ?? NaN, ratio: NaN, goal, pass: null, note: note ?? 'not measured in this run' });
      return;
    }
    const ratio = ratioOf ? ratioOf(ours, reference ?? NaN) : ours / (reference as number);
    rows.push({ target, ours: round(ours, 2), reference: round(reference ?? NaN, 2), ratio: round(ratio, 2), goal, pass: Number.isFinite(ratio) ? ok(ratio) : null, note });
  };
  const maxClients = Math.max(...r.writes.map((w) => w.clients), 1);
  const w = (system: string, op: string, clients: number) => find(r.writes, (x) => x.system === system && x.op === op && x.clients === clients);
  add(`creates/s at ${maxClients} clients vs etcd puts/s`, w('ballast', 'create', maxClients)?.opsPerSec, w('etcd', 'put', maxClients)?.opsPerSec, '>= 1.0x', (x) => x >= 1);
  add('single-client create p50 vs etcd put p50 (ms)', w('ballast', 'create', 1)?.latency.p50, w('etcd', 'put', 1)?.latency.p50, '<= 2.0x', (x) => x <= 2);
  const mid = sizes.filter((s) => s <= 10000).pop() ?? sizes[0];
  const big = sizes[sizes.length - 1];
  add(`full list of ${mid} (rv unset) vs etcd range p50 (ms)`, read(r, 'ballast', 'list', 'mostRecent', mid)?.latency.p50, read(r, 'etcd', 'list', 'linearizable', mid)?.latency.p50, '<= 1.5x', (x) => x <= 1.5);
  if (big !== mid) {
    add(`per-page cost at ${big} vs at ${mid} (p50 ms, limit 500)`, read(r, 'ballast', 'page', 'mostRecent', big)?.latency.p50, read(r, 'ballast', 'page', 'mostRecent', mid)?.latency.p50, '<= 1.3x', (x) => x <= 1.3, undefined, `etcd: ${read(r, 'etcd', 'page', 'linearizable', big)?.latency.p50 ?? '?'} vs ${read(r, 'etcd', 'page', 'linearizable', mid)?.latency.p50 ?? '?'} ms`);
  }
  for (const [n, limit] of [[100, 2], [1000, 20]] as const) {
    const wr = find(r.watch, (x) => x.system === 'ballast' && x.watchers === n);
    const er = find(r.watch, (x) => x.system === 'etcd' && x.watchers === n);
    const note = [
      er ? `etcd ack->event p99 ${er.latency.p99} ms` : '',
      wr ? `sent->event p99: ours ${wr.fromSend.p99} ms${er ? `, etcd ${er.fromSend.p99} ms` : ''}` : '',
      wr && wr.latency.p99 === 0 ? 'our events leave before the write response, so ack->event is 0' : '',
    ].filter(Boolean).join('; ');
    add(`watch p99 at ${n} watchers, ack->event (ms)`, wr?.latency.p99, er?.latency.p99, `<= ${limit} ms`, (x) => x <= limit, (o) => o, note || undefined);
  }
  const fb = find([...r.footprint].reverse(), (x) => x.system === 'ballast');
  const fe = fb && find(r.footprint, (x) => x.system === 'etcd' && x.objects === fb.objects);
  add(`RSS at ${fb?.objects ?? '?'} objects vs etcd (MiB)`, fb?.rssMiB, fe?.rssMiB, '<= 1.0x', (x) => x <= 1, undefined, fb?.rssWithCacheMiB ? `with the watch cache of the collection loaded: ${round(fb.rssWithCacheMiB, 1)} MiB` : undefined);
  const st = find([...r.startup].reverse(), (x) => x.system === 'ballast');
  add(`start to /readyz 200 with ${st?.objects ?? '?'} objects (ms)`, st?.readyMs, undefined, '<= 2000 ms', (x) => x <= 2000, (o) => o);
  const mr = read(r, 'ballast', 'list', 'mostRecent', mid)?.latency.p50;
  const any = read(r, 'ballast', 'list', 'any', mid)?.latency.p50;
  add(`rv=0 list of ${mid} from memory: speed-up over rv unset`, any, mr, '>= 5x', (x) => x >= 5, (o, ref) => ref / o, 'ratio = Most Recent p50 / Any p50');
  return rows;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const verdict = (p: boolean | null) => (p === null ? 'n/a' : p ? 'PASS' : 'MISS');

function table(headers: string[], rows: (string | number)[][]): string[] {
  const cells = rows.map((r) => r.map(String));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]?.length ?? 0)));
  const line = (r: string[]) => '| ' + r.map((c, i) => pad(c, widths[i])).join(' | ') + ' |';
  return [line(headers), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...cells.map(line)];
}

export function targetsTable(r: BenchResults): string[] {
  return table(
    ['target', 'ours', 'etcd / ref', 'ratio', 'goal', 'result', 'note'],
    r.targets.map((t) => [t.target, t.ours, Number.isNaN(t.reference) ? '' : t.reference, t.ratio, t.goal, verdict(t.pass), t.note ?? '']),
  );
}

/**
 * The headline figures of each system in one table: Ballast on SQLite, on PostgreSQL with one API
 * server and with two (writes spread over both, reads and watches on the second), and etcd
 */
export function sideBySide(r: BenchResults): string[] {
  const systems = ['ballast', 'postgres', 'postgres-2', 'etcd'].filter((s) => r.writes.some((w) => w.system === s));
  if (!systems.includes('postgres')) return [];
  const maxClients = Math.max(...r.writes.map((w) => w.clients), 1);
  const sizes = [...new Set(r.reads.map((x) => x.size))].sort((a, b) => a - b);
  const mid = sizes.filter((s) => s <= 10000).pop() ?? sizes[0];
  const maxWatchers = Math.max(...r.watch.map((w) => w.watchers), 1);
  const create = (s: string) => (s === 'etcd' ? 'put' : 'create');
  const mode = (s: string) => (s === 'etcd' ? 'linearizable' : 'mostRecent');
  const row = (what: string, f: (s: string) => number | undefined): (string | number)[] => [what, ...systems.map((s) => f(s) ?? '')];
  const wr = (s: string, clients: number) => find(r.writes, (x) => x.system === s && x.op === create(s) && x.clients === clients);
  const wa = (s: string) => find(r.watch, (x) => x.system === s && x.watchers === maxWatchers);
  return table(
    ['figure', ...systems.map((s) => (s === 'ballast' ? 'SQLite' : s === 'postgres' ? 'PostgreSQL' : s === 'postgres-2' ? 'PostgreSQL, 2 servers' : 'etcd'))],
    [
      row(`creates/s at ${maxClients} clients (etcd: puts)`, (s) => wr(s, maxClients)?.opsPerSec),
      row('create p50 ms, 1 client', (s) => wr(s, 1)?.latency.p50),
      row(`create p99 ms, ${maxClients} clients`, (s) => wr(s, maxClients)?.latency.p99),
      row(`list of ${mid} p50 ms (rv unset / linearizable)`, (s) => read(r, s, 'list', mode(s), mid)?.latency.p50),
      row(`page of 500 at ${mid} p50 ms`, (s) => read(r, s, 'page', mode(s), mid)?.latency.p50),
      row(`get p50 ms at ${mid}`, (s) => read(r, s, 'get', mode(s), mid)?.latency.p50),
      row(`watch sent->event p50 ms, ${maxWatchers} watchers`, (s) => wa(s)?.fromSend.p50),
      row(`watch sent->event p99 ms, ${maxWatchers} watchers`, (s) => wa(s)?.fromSend.p99),
    ],
  );
}

export function markdown(r: BenchResults): string {
  const m = r.meta;
  const out: string[] = [];
  out.push(`# Ballast benchmark results (${m.date})`, '');
  out.push(`Command: \`${m.command}\`  `);
  out.push(`Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memGiB} GiB RAM, Node ${m.node}, etcd ${m.etcdVersion ?? 'not run'}, PostgreSQL ${m.postgresVersion ?? 'not run'}; load average at start ${m.loadAverage.map((x) => x.toFixed(2)).join(' ')}  `);
  out.push(`Commit: ${m.ballastCommit ?? 'unknown'}  `);
  out.push(
    m.config.secured === false
      ? 'Server: its own defaults (anonymous requests, AlwaysAllow), clients without credentials (`--no-auth`)'
      : "Server: `make run`'s flags (Node,RBAC authorization, NodeRestriction and the default admission plugins); the clients are a service account with a bearer token, allowed by a ClusterRoleBinding",
    '',
  );
  if (m.notes.length) out.push(...m.notes.map((n) => `- ${n}`), '');
  out.push('## Targets (issue #4)', '', ...targetsTable(r), '');
  const systems = sideBySide(r);
  if (systems.length) out.push('## SQLite, PostgreSQL (one API server, two) and etcd side by side', '', ...systems, '');
  out.push('## Writes', '', ...table(['system', 'op', 'clients', 'count', 'ops/s', 'p50 ms', 'p99 ms', 'server CPU ms/op'], r.writes.map((w) => [w.system, w.op, w.clients, w.count, w.opsPerSec, w.latency.p50, w.latency.p99, w.serverCpuMsPerOp ?? ''])), '');
  out.push('## Reads', '', 'Modes: ballast mostRecent = rv unset (database), any = rv=0 (watch cache), notOlderThan = a recent rv (watch cache), exact = an older rv (revision log); etcd linearizable / serializable / at an older revision.', '');
  out.push(...table(['system', 'size', 'op', 'mode', 'under load', 'items', 'p50 ms', 'p99 ms', 'note'], r.reads.map((x) => [x.system, x.size, x.op, x.mode, x.underLoad ? 'yes' : '', x.items, x.latency.p50, x.latency.p99, x.note ?? ''])), '');
  out.push('## Watch', '', ...table(['system', 'watchers', 'events', 'ack->event p50 ms', 'p99 ms', 'max ms', 'sent->event p50 ms', 'p99 ms', 'missed'], r.watch.map((w) => [w.system, w.watchers, w.events, w.latency.p50, w.latency.p99, w.latency.max, w.fromSend.p50, w.fromSend.p99, w.missed])), '');
  out.push(...table(['system', 'mode', 'events', 'events/s'], r.watchThroughput.map((w) => [w.system, w.mode, w.events, w.eventsPerSec])), '');
  out.push('## Footprint', '', ...table(['system', 'objects', 'RSS MiB', 'RSS with cache MiB', 'db MiB', 'WAL MiB'], r.footprint.map((f) => [f.system, f.objects, round(f.rssMiB, 1), f.rssWithCacheMiB === undefined ? '' : round(f.rssWithCacheMiB, 1), round(f.dbMiB, 1), round(f.walMiB, 1)])), '');
  out.push(...table(['system', 'objects', 'start to ready ms'], r.startup.map((s) => [s.system, s.objects, s.readyMs])), '');
  if (r.churn) {
    const c = r.churn;
    out.push(`## Churn: ${c.leases} Leases renewed every ${c.periodSec} s for ${c.durationSec} s (compaction every ${c.compactionInterval})`, '');
    out.push(`Renewals: ${c.latency.count}, errors ${c.errors}, p50 ${c.latency.p50} ms, p99 ${c.latency.p99} ms, max ${c.latency.max} ms. Compactions: ${c.compactions.map((x) => `${x.removed} rows in ${x.ms} ms`).join('; ') || 'none logged'}.`, '');
    out.push(...table(['t s', 'writes', 'p50 ms', 'p99 ms', 'max ms', 'db MiB', 'WAL MiB', 'RSS MiB'], c.samples.map((s) => [s.atSec, s.writes, s.p50, s.p99, s.max, s.dbMiB, s.walMiB, s.rssMiB])), '');
  }
  out.push('## Plots', '', '![write latency](write-latency.svg) ![list cost](list-cost.svg) ![watch latency](watch-latency.svg)' + (r.churn ? ' ![churn](churn.svg)' : ''), '');
  return out.join('\n');
}

export function plots(r: BenchResults): Record<string, string> {
  const wl = (system: string, op: string, q: 'p50' | 'p99') => ({
    name: `${system} ${op} ${q}`,
    points: r.writes.filter((w) => w.system === system && w.op === op).map((w) => [w.clients, w.latency[q]] as [number, number]),
    dashed: q === 'p99',
  });
  const out: Record<string, string> = {
    'write-latency.svg': lineChart({
      title: 'Write latency vs concurrency',
      xLabel: 'concurrent clients',
      yLabel: 'latency (ms)',
      xLog: true,
      series: [wl('ballast', 'create', 'p50'), wl('ballast', 'create', 'p99'), wl('ballast', 'update', 'p50'), wl('etcd', 'put', 'p50'), wl('etcd', 'put', 'p99')],
    }),
  };
  const lc = (system: string, op: string, mode: string) => ({
    name: `${system} ${op} ${mode}`,
    points: r.reads.filter((x) => x.system === system && x.op === op && x.mode === mode && !x.underLoad).map((x) => [x.size, x.latency.p50] as [number, number]),
    dashed: op === 'page',
  });
  out['list-cost.svg'] = lineChart({
    title: 'List cost vs collection size (p50)',
    xLabel: 'objects in the collection',
    yLabel: 'ms per request',
    xLog: true,
    yLog: true,
    series: [lc('ballast', 'list', 'mostRecent'), lc('ballast', 'list', 'any'), lc('ballast', 'list', 'exact'), lc('etcd', 'list', 'linearizable'), lc('ballast', 'page', 'mostRecent'), lc('etcd', 'page', 'linearizable')],
  });
  const wq = (system: string, q: 'p50' | 'p99') => ({
    name: `${system} ${q}`,
    points: r.watch.filter((w) => w.system === system).map((w) => [w.watchers, w.latency[q]] as [number, number]),
    dashed: q === 'p99',
  });
  out['watch-latency.svg'] = lineChart({ title: 'Watch latency (ack -> event) vs watchers', xLabel: 'watchers', yLabel: 'ms', xLog: true, series: [wq('ballast', 'p50'), wq('ballast', 'p99'), wq('etcd', 'p50'), wq('etcd', 'p99')] });
  if (r.churn) {
    const c = r.churn;
    out['churn.svg'] = lineChart({
      title: 'Churn: 500 Leases every 2 s',
      xLabel: 'seconds',
      yLabel: 'ms / MiB',
      series: [
        { name: 'write p99 ms', points: c.samples.map((s) => [s.atSec, s.p99]) },
        { name: 'db MiB', points: c.samples.map((s) => [s.atSec, s.dbMiB]), dashed: true },
        { name: 'WAL MiB', points: c.samples.map((s) => [s.atSec, s.walMiB]), dashed: true },
      ],
    });
  }
  return out;
}

/** write <dir>/<name>.json, <name>.md and the plots; returns the files written */
export function writeReport(r: BenchResults, dir: string, name: string): string[] {
  fs.mkdirSync(dir, { recursive: true });
  const files = [path.join(dir, `${name}.json`), path.join(dir, `${name}.md`)];
  fs.writeFileSync(files[0], JSON.stringify(r, null, 2) + '\n');
  fs.writeFileSync(files[1], markdown(r));
  for (const [file, svg] of Object.entries(plots(r))) {
    fs.writeFileSync(path.join(dir, file), svg);
    files.push(path.join(dir, file));
  }
  return files;
}
