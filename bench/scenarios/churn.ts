/**
 * Churn: 500 Leases renewed every 2 s (each renewal a PUT with the Lease's resourceVersion, spread
 * over the period as node agents spread theirs), for cfg.churnSeconds, on a server whose compactor
 * runs every cfg.churnCompaction. Every 5 s: writes, p50/p99/max of the window, database and WAL
 * size, RSS. The server's own log gives each compaction's duration.
 */
import type { BenchContext } from '../lib/context';
import { ensureNamespace } from '../lib/context';
import { HttpClient } from '../lib/http-client';
import type { BallastServer } from '../lib/ballast-server';
import type { ChurnSample } from '../lib/results';
import { nowMs, summarize, round } from '../lib/stats';

const NS = 'bench-churn';
const LEASES = 500;
const PERIOD_MS = 2000;
const SAMPLE_MS = 5000;

const leasePath = (name?: string) => `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases${name ? '/' + name : ''}`;

function lease(name: string, rv?: string): Record<string, unknown> {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: NS, ...(rv ? { resourceVersion: rv } : {}) },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace('Z', '000Z') },
  };
}

export async function churnScenario(ctx: BenchContext, server: BallastServer): Promise<void> {
  const http = server.client(64);
  await ensureNamespace(http, NS);
  const rvs = new Array<string>(LEASES);
  for (let i = 0; i < LEASES; i++) {
    const o = await http.json<{ metadata: { resourceVersion: string } }>('POST', leasePath(), lease(`node-${i}`));
    rvs[i] = o.metadata.resourceVersion;
  }
  const durationMs = ctx.cfg.churnSeconds * 1000;
  const samples: ChurnSample[] = [];
  const all: number[] = [];
  let window: number[] = [];
  let errors = 0;
  let running = true;
  const start = nowMs();
  ctx.progress.start(`churn: ${LEASES} leases every ${PERIOD_MS / 1000} s for ${ctx.cfg.churnSeconds} s`, Math.ceil(durationMs / SAMPLE_MS));
  const renew = async (i: number) => {
    const t0 = nowMs();
    const res = await http.request('PUT', leasePath(`node-${i}`), JSON.stringify(lease(`node-${i}`, rvs[i])));
    const ms = nowMs() - t0;
    if (res.status === 200) {
      rvs[i] = (JSON.parse(res.body.toString()) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      window.push(ms);
      all.push(ms);
    } else errors++;
  };
  // each lease renews on its own 2 s schedule, offset so renewals spread over the period
  const lanes = Array.from({ length: LEASES }, async (_, i) => {
    await new Promise((r) => setTimeout(r, (i * PERIOD_MS) / LEASES));
    let next = nowMs();
    while (running) {
      await renew(i).catch(() => errors++);
      next += PERIOD_MS;
      const wait = next - nowMs();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  });
  while (nowMs() - start < durationMs) {
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    const s = summarize(window);
    const f = server.files();
    samples.push({ atSec: round((nowMs() - start) / 1000, 1), writes: window.length, p50: s.p50, p99: s.p99, max: s.max, dbMiB: round(f.dbMiB, 2), walMiB: round(f.walMiB, 2), rssMiB: round(server.rssMiB(), 1) });
    window = [];
    ctx.progress.tick();
  }
  running = false;
  await Promise.all(lanes);
  ctx.progress.stop();
  http.close();
  const compactions: { removed: number; ms: number }[] = [];
  for (const line of server.output.split('\n')) {
    if (!line.includes('compacted storage history')) continue;
    const removed = /"removed":(\d+)/.exec(line);
    const ms = /"ms":(\d+)/.exec(line);
    if (ms) compactions.push({ removed: Number(removed?.[1] ?? 0), ms: Number(ms[1]) });
  }
  ctx.results.churn = {
    leases: LEASES,
    periodSec: PERIOD_MS / 1000,
    durationSec: ctx.cfg.churnSeconds,
    compactionInterval: ctx.cfg.churnCompaction,
    samples,
    compactions,
    latency: summarize(all),
    errors,
  };
}
