/**
 * Many watchers under a steady write rate (issue 15): N watches of one collection (one connection
 * each, as N node agents would hold; HTTP/1.1, the bench client's protocol) on the real API server,
 * while ConfigMaps are created at R per second for S seconds. For every event at every watcher: the
 * time from sending the write to the event's arrival. Target: p99 <= 50 ms with 1,000 watchers at
 * 500 writes/s.
 *
 * With --per-node each watcher is a node agent's pod watch (`fieldSelector=spec.nodeName=node-<w>`)
 * and the writes are Pods bound to node-<i mod N>: every event goes to the one watcher of its node,
 * as in a cluster of N nodes. Without it every watcher sees every write (N informers of one
 * collection): N times the events, the harder case.
 *
 *   node dist/bench/watchers.js [--watchers 1000] [--rate 500] [--seconds 10] [--per-node] [--out file.json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { BallastServer } from './lib/ballast-server';
import { cmPath, configMap } from './lib/context';
import { HttpClient } from './lib/http-client';
import { cpuSecondsOf, sleep } from './lib/processes';
import { Progress } from './lib/progress';
import { writeRunRecord } from './lib/run-record';
import { nowMs, quantile, round } from './lib/stats';

const MAIN_JS = path.resolve(__dirname, '..', 'src', 'cli', 'main.js');
const NS = 'bench-watchers';
export const WATCHER_P99_TARGET_MS = 50;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      watchers: { type: 'string', default: '1000' },
      rate: { type: 'string', default: '500' },
      seconds: { type: 'string', default: '10' },
      'per-node': { type: 'boolean', default: false },
      out: { type: 'string' },
    },
  });
  const perNode = values['per-node'] === true;
  const watchers = Number(values.watchers);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bench-watchers-'));
  const server = new BallastServer({ mainJs: MAIN_JS, dataDir, args: ['--logging-format', 'json'] });
  const progress = new Progress({ quiet: process.env.BALLAST_BENCH_QUIET === '1' });
  await server.start();
  try {
    const http = server.client(64);
    const ns = await http.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }));
    if (ns.status !== 201) throw new Error(`namespace: ${ns.status}`);
    // pods need their service account (no controller manager runs here to make it)
    if (perNode) await http.json('POST', `/api/v1/namespaces/${NS}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } }, [201, 409]);
    const collection = perNode ? `/api/v1/namespaces/${NS}/pods` : cmPath(NS);
    const rv = (await http.json<{ metadata: { resourceVersion: string } }>('GET', `${collection}?limit=1`)).metadata.resourceVersion;

    const total = rate * seconds;
    const expected = perNode ? total : total * watchers;
    const sent = new Float64Array(total).fill(NaN);
    const latencies = new Float64Array(expected);
    let seen = 0;
    const watchClient = server.client(1);
    const streams: { close(): void }[] = [];
    let opened = 0;
    progress.start(`open ${watchers} watches`, watchers);
    for (let w = 0; w < watchers; w++) {
      const selector = perNode ? `&fieldSelector=${encodeURIComponent(`spec.nodeName=node-${w}`)}` : '';
      const opening = new Promise<void>((resolve) => {
        streams.push(
          watchClient.stream('GET', `${collection}?watch=1&resourceVersion=${rv}&timeoutSeconds=600${selector}`, undefined, (line, at) => {
            const m = /"name":"w-(\d+)"/.exec(line);
            if (!m || !line.startsWith('{"type":"ADDED"')) return;
            const i = Number(m[1]);
            if (seen < latencies.length) latencies[seen++] = at - sent[i];
          }, () => (opened++, progress.tick(), resolve())),
        );
      });
      // open in small batches: a thousand TLS handshakes at once only measure the handshakes
      if (w % 20 === 19) await opening;
    }
    while (opened < watchers) await sleep(20);
    progress.stop();

    // writes at a steady rate: every 10 ms, the writes due by then
    const cpu0 = cpuSecondsOf(server.pid);
    const rss0 = server.rssMiB();
    let rssPeak = rss0;
    progress.start(`${rate} writes/s to ${watchers} watchers`, total);
    const start = nowMs();
    let next = 0;
    const inFlight: Promise<unknown>[] = [];
    let failed = 0;
    while (next < total) {
      const due = Math.min(total, Math.floor(((nowMs() - start) / 1000) * rate) + 1);
      for (; next < due; next++) {
        const i = next;
        sent[i] = nowMs();
        inFlight.push(
          http.request('POST', collection, JSON.stringify(perNode ? boundPod(`w-${i}`, `node-${i % watchers}`) : configMap(`w-${i}`, NS, 1024))).then((r) => {
            if (r.status !== 201) failed++;
            progress.tick();
          }),
        );
      }
      rssPeak = Math.max(rssPeak, server.rssMiB());
      await sleep(10);
    }
    await Promise.all(inFlight);
    const writeSeconds = (nowMs() - start) / 1000;
    // let the last events arrive
    for (let waited = 0; seen < expected && waited < 10_000; waited += 50) await sleep(50);
    progress.stop();
    const cpuSeconds = cpuSecondsOf(server.pid) - cpu0;
    streams.forEach((s) => s.close());
    http.close();
    watchClient.close();

    const sorted = Array.from(latencies.subarray(0, seen)).sort((a, b) => a - b);
    const run = {
      watchers,
      perNode,
      writesPerSecond: rate,
      seconds,
      writes: total,
      writeFailures: failed,
      achievedWritesPerSecond: round(total / writeSeconds, 1),
      events: seen,
      eventsMissed: expected - seen,
      sentToEventMs: { p50: round(quantile(sorted, 0.5), 1), p90: round(quantile(sorted, 0.9), 1), p99: round(quantile(sorted, 0.99), 1), max: round(sorted[sorted.length - 1] ?? NaN, 1) },
      apiserverCpuPercentOfACore: round((cpuSeconds / writeSeconds) * 100, 1),
      apiserverRssMiB: { before: round(rss0, 1), peak: round(rssPeak, 1) },
      targetP99Ms: WATCHER_P99_TARGET_MS,
      met: quantile(sorted, 0.99) <= WATCHER_P99_TARGET_MS && seen === expected,
    };
    console.log(
      `${watchers} ${perNode ? 'per-node pod watchers' : 'watchers'}, ${rate} writes/s for ${seconds} s (achieved ${run.achievedWritesPerSecond}/s, ${failed} failed): write sent -> event p50 ${run.sentToEventMs.p50} ms, ` +
        `p90 ${run.sentToEventMs.p90} ms, p99 ${run.sentToEventMs.p99} ms, max ${run.sentToEventMs.max} ms over ${seen} events (${run.eventsMissed} missed; target p99 <= ${WATCHER_P99_TARGET_MS} ms: ${run.met ? 'met' : 'missed'}); ` +
        `API server ${run.apiserverCpuPercentOfACore}% of a core, RSS ${run.apiserverRssMiB.before} -> ${run.apiserverRssMiB.peak} MiB`,
    );
    writeRunRecord(values.out, 'watchers.js', { run });
  } finally {
    progress.stop();
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** a Pod already bound to `node` (as the scheduler leaves it), of about 1 KiB as stored */
function boundPod(name: string, node: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, labels: { app: 'bench' }, annotations: { padding: 'x'.repeat(200) } },
    spec: { nodeName: node, automountServiceAccountToken: false, containers: [{ name: 'main', image: 'k8s.gcr.io/pause:3.2' }] },
  };
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
