/**
 * Watch: write acknowledged -> event received, with 1, 100 and 1,000 watchers of one collection
 * (one connection each); one write at a time, the next once every watcher has the event (so the
 * figure is delivery latency, not queueing). Throughput to one watcher: a watch replaying the
 * history of the 10k-object collection (ballast: from an old resourceVersion; etcd: from an old
 * revision) and, for ballast, a watch starting with the current state from the cache (rv=0).
 */
import { ballastClient, cmPath, configMap, ensureNamespace, etcdClient, etcdValue, readerClient } from '../lib/context';
import type { System } from '../lib/results';
import type { BenchContext } from '../lib/context';
import { nowMs, summarize, round } from '../lib/stats';

const NS = 'bench-watch';

interface Tracker {
  acks: Map<string, number>;
  sends: Map<string, number>;
  fromSend: number[];
  latencies: number[];
  pending: Map<string, number>;
  waiters: Map<string, () => void>;
}

function newTracker(): Tracker {
  return { acks: new Map(), sends: new Map(), fromSend: [], latencies: [], pending: new Map(), waiters: new Map() };
}

/** a watcher saw `name` at `at` */
function seen(tr: Tracker, name: string, at: number, watchers: number): void {
  const left = (tr.pending.get(name) ?? watchers) - 1;
  tr.pending.set(name, left);
  const sent = tr.sends.get(name);
  if (sent !== undefined) tr.fromSend.push(at - sent);
  const ack = tr.acks.get(name);
  // the event may be read before the write's response: that is a latency of 0 after the ack
  if (ack !== undefined) tr.latencies.push(Math.max(0, at - ack));
  else tr.latencies.push(-1);
  if (left === 0) tr.waiters.get(name)?.();
}

async function measure(ctx: BenchContext, system: System, watchers: number, openAll: (onEvent: (name: string, at: number) => void) => Promise<() => void>, write: (name: string) => Promise<void>): Promise<void> {
  const tr = newTracker();
  const close = await openAll((name, at) => seen(tr, name, at, watchers));
  const events = ctx.cfg.watchEvents;
  ctx.progress.start(`${system} watch latency, ${watchers} watchers`, events);
  let missed = 0;
  for (let i = 0; i < events; i++) {
    const name = `${system}-w${watchers}-${i}`;
    tr.pending.set(name, watchers);
    const all = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 5000);
      tr.waiters.set(name, () => (clearTimeout(timer), resolve(true)));
    });
    tr.sends.set(name, nowMs());
    await write(name);
    tr.acks.set(name, nowMs());
    if (!(await all)) missed += tr.pending.get(name) ?? 0;
    ctx.progress.tick();
    await new Promise((r) => setTimeout(r, 10));
  }
  ctx.progress.stop();
  close();
  // samples recorded before their ack count as 0 (the event arrived before the response)
  const lat = tr.latencies.map((l) => (l < 0 ? 0 : l));
  ctx.results.watch.push({ system, watchers, events, latency: summarize(lat), fromSend: summarize(tr.fromSend), missed });
}

async function ballastWatchers(ctx: BenchContext, watchers: number): Promise<void> {
  // with two servers, the writes go to one and the watches to the other
  const http = ballastClient(ctx, 1);
  const watching = readerClient(ctx, 1);
  const rv = (await http.json<{ metadata: { resourceVersion: string } }>('GET', `${cmPath(NS)}?limit=1`)).metadata.resourceVersion;
  await measure(
    ctx,
    ctx.system,
    watchers,
    async (onEvent) => {
      let opened = 0;
      const streams: { close(): void }[] = [];
      ctx.progress.start(`${ctx.system} open ${watchers} watches`, watchers);
      for (let w = 0; w < watchers; w++) {
        const opening = new Promise<void>((resolve) => {
          streams.push(
            watching.stream('GET', `${cmPath(NS)}?watch=1&resourceVersion=${rv}&timeoutSeconds=600`, undefined, (line, at) => {
              const ev = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
              if (ev.type === 'ADDED') onEvent(ev.object.metadata.name, at);
            }, () => (opened++, ctx.progress.tick(), resolve())),
          );
        });
        // open in small batches: a thousand TLS handshakes at once only measure the handshakes
        if (w % 20 === 19) await opening;
      }
      while (opened < watchers) await new Promise((r) => setTimeout(r, 20));
      ctx.progress.stop();
      return () => streams.forEach((s) => s.close());
    },
    async (name) => {
      await http.json('POST', cmPath(NS), configMap(name, NS, ctx.cfg.objectBytes));
    },
  );
  http.close();
  watching.close();
}

async function etcdWatchers(ctx: BenchContext, watchers: number): Promise<void> {
  const etcd = etcdClient(ctx, 1);
  if (!etcd) return;
  await measure(
    ctx,
    'etcd',
    watchers,
    async (onEvent) => {
      let created = 0;
      const ws: { close(): void }[] = [];
      for (let w = 0; w < watchers; w++) {
        ws.push(etcd.watch('/bench/watch/', (key, _rev, at) => onEvent(key.slice('/bench/watch/'.length), at), () => created++));
        if (w % 20 === 19) while (created < w + 1) await new Promise((r) => setTimeout(r, 5));
      }
      while (created < watchers) await new Promise((r) => setTimeout(r, 20));
      return () => ws.forEach((x) => x.close());
    },
    async (name) => {
      await etcd.put(`/bench/watch/${name}`, etcdValue(name, ctx.cfg.objectBytes));
    },
  );
  etcd.close();
}

/** events/s to one watcher: replaying `count` events of history, or the initial state from the cache */
async function throughput(ctx: BenchContext, fromRv: string, count: number, etcdFrom: number | undefined): Promise<void> {
  const http = readerClient(ctx, 1);
  for (const [mode, query] of [
    ['replay', `resourceVersion=${fromRv}`],
    ['initial (rv=0, cache)', 'resourceVersion=0'],
  ] as const) {
    let got = 0;
    let first = 0;
    let last = 0;
    const t0 = nowMs();
    await new Promise<void>((resolve) => {
      const s = http.stream('GET', `/api/v1/namespaces/bench-reads/configmaps?watch=1&${query}&timeoutSeconds=600`, undefined, (line, at) => {
        if (!line.startsWith('{"type":"ADDED"')) return;
        if (got === 0) first = at;
        last = at;
        if (++got >= count) {
          s.close();
          resolve();
        }
      });
      void s.done.then(() => resolve());
    });
    const secs = (last - Math.min(first, t0)) / 1000;
    ctx.results.watchThroughput.push({ system: ctx.system, mode, events: got, eventsPerSec: round(got / secs, 0) });
  }
  http.close();
  const etcd = etcdClient(ctx, 1);
  if (!etcd || etcdFrom === undefined) return;
  let got = 0;
  let last = 0;
  const t0 = nowMs();
  await new Promise<void>((resolve) => {
    const body = JSON.stringify({ create_request: { key: Buffer.from('/bench/reads/').toString('base64'), range_end: Buffer.from('/bench/reads0').toString('base64'), start_revision: String(etcdFrom) } });
    const s = etcd.http.stream('POST', '/v3/watch', body, (line, at) => {
      const msg = JSON.parse(line) as { result?: { events?: unknown[] } };
      got += msg.result?.events?.length ?? 0;
      last = at;
      if (got >= count) {
        s.close();
        resolve();
      }
    });
    void s.done.then(() => resolve());
  });
  ctx.results.watchThroughput.push({ system: 'etcd', mode: 'replay', events: got, eventsPerSec: round(got / ((last - t0) / 1000), 0) });
  etcd.close();
}

export async function watchScenario(ctx: BenchContext, replay: { ballastRv: string; etcdRev?: number; count: number } | undefined): Promise<void> {
  const http = ballastClient(ctx, 1);
  await ensureNamespace(http, NS);
  http.close();
  for (const w of ctx.cfg.watchers) {
    await ballastWatchers(ctx, w);
    await etcdWatchers(ctx, w);
  }
  if (replay) await throughput(ctx, replay.ballastRv, replay.count, replay.etcdRev);
}
