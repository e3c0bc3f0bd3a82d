import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { drawPlots } from '../../bench/plots';

t.test('plots are drawn from the recorded runs of the standalone benches', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-plots-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const put = (folder: string, file: string, doc: unknown) => {
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    fs.writeFileSync(path.join(dir, folder, file), JSON.stringify(doc));
  };
  put('pod-startup', 'a.json', { run: { nodes: 50, pods: 10, readyOverTime: [{ s: 0, ready: 0 }, { s: 1, ready: 50 }], runningOverTime: [{ s: 0, running: 0 }, { s: 2, running: 10 }] } });
  put('pod-startup', 'old.json', { run: { nodes: 5, pods: 5 } });
  put('watchers', 'w1.json', { run: { watchers: 10, writesPerSecond: 50, sentToEventMs: { p50: 3, p99: 9 } } });
  put('watchers', 'w2.json', { run: { watchers: 100, perNode: true, writesPerSecond: 50, sentToEventMs: { p50: 4, p99: 12 } } });
  put('scheduler', 's.json', { runs: [{ nodes: 1000, pods: 10, podsPerSecond: 200 }, { nodes: 100, pods: 10, podsPerSecond: 250 }] });
  const written = drawPlots(dir).map((f) => path.relative(dir, f)).sort();
  t.same(written, ['pod-startup/nodes-ready.svg', 'pod-startup/pods-running.svg', 'scheduler/throughput.svg', 'watchers/latency.svg']);
  const watchers = fs.readFileSync(path.join(dir, 'watchers', 'latency.svg'), 'utf8');
  t.match(watchers, /all see all, 50\/s p99/);
  t.match(watchers, /per-node, 50\/s p50/);
  t.equal((fs.readFileSync(path.join(dir, 'pod-startup', 'pods-running.svg'), 'utf8').match(/<polyline/g) ?? []).length, 1, 'a run without the series draws no line');
});
