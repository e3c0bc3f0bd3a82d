/**
 * Plots of the standalone benches' recorded runs (issue 15), drawn from the JSON files the benches
 * write with --out, so a new run is one more line on the same chart:
 *   - pod-startup/nodes-ready.svg: simulated nodes Ready against seconds from the agent's start
 *   - pod-startup/pods-running.svg: pods created, bound (dashed) and Running against seconds from the
 *     first create
 *   - watchers/latency.svg: write sent -> event (p50 dashed, p99 solid) against the watchers, one
 *     pair of lines per kind of watch and write rate
 *   - scheduler/throughput.svg: pods bound per second against the nodes, per client limit
 *
 *   node dist/bench/plots.js [bench/results]
 */
import fs from 'node:fs';
import path from 'node:path';
import { lineChart } from './lib/svg';
import type { Series } from './lib/svg';

interface Recorded<T> {
  file: string;
  command?: string;
  runs: T[];
}

/** every run recorded in dir's JSON files (`run` or `runs`), with the file it came from */
function recorded<T>(dir: string): Recorded<T>[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const doc = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { command?: string; run?: T; runs?: T[] };
      return { file: f.replace(/\.json$/, ''), command: doc.command, runs: doc.runs ?? (doc.run ? [doc.run] : []) };
    });
}

interface PodStartupRun {
  nodes: number;
  pods: number;
  deployments?: number;
  readyOverTime?: { s: number; ready: number }[];
  runningOverTime?: { s: number; created?: number; bound?: number; running: number }[];
}

interface WatchersRun {
  watchers: number;
  perNode?: boolean;
  writesPerSecond: number;
  sentToEventMs: { p50: number; p99: number };
}

interface SchedulerRun {
  nodes: number;
  pods: number;
  podsPerSecond: number;
}

function write(file: string, svg: string, written: string[]): void {
  fs.writeFileSync(file, svg);
  written.push(file);
}

export function drawPlots(results: string): string[] {
  const written: string[] = [];
  const podStartup = recorded<PodStartupRun>(path.join(results, 'pod-startup'));
  const ready = podStartup.flatMap((r) => r.runs.filter((x) => x.readyOverTime?.length).map((x) => ({ name: `${x.nodes} nodes`, points: x.readyOverTime!.map((p) => [p.s, p.ready] as [number, number]) })));
  if (ready.length) write(path.join(results, 'pod-startup', 'nodes-ready.svg'), lineChart({ title: 'Simulated nodes Ready', xLabel: 'seconds from the agent start', yLabel: 'nodes Ready', series: ready }), written);
  const running = podStartup.flatMap((r) =>
    r.runs
      .filter((x) => x.runningOverTime?.length)
      .flatMap((x) => {
        const run = `${x.pods}${x.deployments ? ` (Deploys)` : ''}/${x.nodes}`;
        const line = (what: 'created' | 'bound' | 'running', dashed: boolean): Series[] => {
          const points = x.runningOverTime!.filter((p) => p[what] !== undefined).map((p) => [p.s, p[what]!] as [number, number]);
          return points.length ? [{ name: `${run} ${what}`, points, dashed }] : [];
        };
        return [...line('created', true), ...line('bound', true), ...line('running', false)];
      }),
  );
  if (running.length) write(path.join(results, 'pod-startup', 'pods-running.svg'), lineChart({ title: 'Pods Running (simulated nodes)', xLabel: 'seconds from the first create', yLabel: 'pods Running', series: running }), written);

  const watcherRuns = recorded<WatchersRun>(path.join(results, 'watchers')).flatMap((r) => r.runs);
  const groups = new Map<string, WatchersRun[]>();
  for (const r of watcherRuns) {
    const key = `${r.perNode ? 'per-node' : 'all see all'}, ${r.writesPerSecond}/s`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const latency: Series[] = [];
  for (const [key, runs] of [...groups].sort()) {
    const sorted = runs.sort((a, b) => a.watchers - b.watchers);
    latency.push({ name: `${key} p99`, points: sorted.map((r) => [r.watchers, r.sentToEventMs.p99]) });
    latency.push({ name: `${key} p50`, points: sorted.map((r) => [r.watchers, r.sentToEventMs.p50]), dashed: true });
  }
  if (latency.length) write(path.join(results, 'watchers', 'latency.svg'), lineChart({ title: 'Write sent -> watch event', xLabel: 'watchers', yLabel: 'ms', xLog: true, yLog: true, series: latency }), written);

  const scheduler = recorded<SchedulerRun>(path.join(results, 'scheduler'));
  const throughput = scheduler
    .filter((r) => r.runs.length)
    .map((r) => ({ name: r.file, points: r.runs.map((x) => [x.nodes, x.podsPerSecond] as [number, number]).sort((a, b) => a[0] - b[0]) }));
  if (throughput.length) write(path.join(results, 'scheduler', 'throughput.svg'), lineChart({ title: 'Scheduler: pods bound per second', xLabel: 'nodes', yLabel: 'pods/s', xLog: true, series: throughput }), written);
  return written;
}

if (require.main === module) {
  const results = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', 'bench', 'results'));
  for (const f of drawPlots(results)) console.log(f);
}
