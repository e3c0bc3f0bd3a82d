/**
 * Reads over one collection grown to each size (1k, 10k, 100k): get, the full list and pages of
 * 500 in each consistency mode -- resourceVersion unset (Most Recent: a consistent read from the
 * database), "0" (Any: the watch cache), NotOlderThan a recent version (the cache, after waiting
 * for it to be that fresh) and Exact at an older version (the revision log) -- and the same against
 * etcd (linearizable, serializable, at an older revision). At the size closest to 10k the lists
 * and gets are repeated while 64 writers update other objects. Footprint (RSS, database and WAL
 * sizes) is taken at 10k and 100k.
 */
import { ballastClient, cmPath, configMap, ensureNamespace, etcdClient, etcdValue, objName, readerClient } from '../lib/context';
import type { BenchContext } from '../lib/context';
import type { EtcdClient } from '../etcd';
import type { HttpClient } from '../lib/http-client';
import { nowMs, runConcurrent, summarize } from '../lib/stats';
import type { ReadResult } from '../lib/results';

const NS = 'bench-reads';
const PREFIX = '/bench/reads/';
const PAGE = 500;

interface ListBody {
  metadata: { resourceVersion: string; continue?: string };
  items: unknown[];
}

async function populate(ctx: BenchContext, from: number, to: number): Promise<void> {
  const http = ballastClient(ctx, 64);
  ctx.progress.start(`${ctx.system} populate ${to}`, to - from);
  await runConcurrent(to - from, 64, async (i) => {
    await http.json('POST', cmPath(NS), configMap(objName(from + i), NS, ctx.cfg.objectBytes));
  }, () => ctx.progress.tick());
  ctx.progress.stop();
  http.close();
  const etcd = etcdClient(ctx, 64);
  if (!etcd) return;
  ctx.progress.start(`etcd populate ${to}`, to - from);
  await runConcurrent(to - from, 64, async (i) => {
    await etcd.put(PREFIX + objName(from + i), etcdValue(objName(from + i), ctx.cfg.objectBytes));
  }, () => ctx.progress.tick());
  ctx.progress.stop();
  etcd.close();
}

function iterations(ctx: BenchContext, size: number): number {
  if (ctx.cfg.quick) return 3;
  return size <= 1000 ? 20 : size <= 10000 ? 8 : 3;
}

async function timed(n: number, fn: () => Promise<{ ms: number; items: number }>): Promise<{ samples: number[]; items: number }> {
  const samples: number[] = [];
  let items = 0;
  for (let i = 0; i < n; i++) {
    const r = await fn();
    samples.push(r.ms);
    items = r.items;
  }
  return { samples, items };
}

async function getList(http: HttpClient, query: string): Promise<ListBody> {
  return http.json<ListBody>('GET', `${cmPath(NS)}${query}`);
}

/**
 * one list request timed from send to the last byte received; parsing the body (a client cost that
 * has nothing to do with the server) happens after the clock stops
 */
async function timedList(http: HttpClient, query: string): Promise<{ ms: number; body: ListBody }> {
  const t0 = nowMs();
  const res = await http.request('GET', `${cmPath(NS)}${query}`);
  const ms = nowMs() - t0;
  if (res.status !== 200) throw new Error(`GET ${query}: ${res.status} ${res.body.toString().slice(0, 300)}`);
  return { ms, body: JSON.parse(res.body.toString()) as ListBody };
}

/** walk every page (at most maxPages) and time each request */
async function pages(http: HttpClient, first: string, maxPages: number): Promise<{ samples: number[]; items: number; pages: number }> {
  const samples: number[] = [];
  let items = 0;
  let cont: string | undefined;
  let query = first;
  for (let p = 0; p < maxPages; p++) {
    const { ms, body } = await timedList(http, query);
    samples.push(ms);
    items += body.items.length;
    cont = body.metadata.continue;
    if (!cont) break;
    query = `?limit=${PAGE}&continue=${encodeURIComponent(cont)}`;
  }
  return { samples, items, pages: samples.length };
}

async function ballastReads(ctx: BenchContext, size: number, underLoad: boolean): Promise<void> {
  // with two servers, the reads go to the one that did not write the collection
  const http = readerClient(ctx, 4);
  const push = (r: Omit<ReadResult, 'system' | 'size' | 'underLoad'>) => ctx.results.reads.push({ system: ctx.system, size, underLoad, ...r });
  const n = iterations(ctx, size);
  // an older revision for Exact, then move the revision on so it is really older
  const rvOld = (await getList(http, '?limit=1')).metadata.resourceVersion;
  for (let i = 0; i < 3; i++) await http.json('POST', cmPath('bench-misc'), configMap(`bump-${size}-${underLoad}-${i}`, 'bench-misc', 256));
  const rvRecent = (await getList(http, '?limit=1')).metadata.resourceVersion;
  const modes: [string, string][] = [
    ['mostRecent', ''],
    ['any', 'resourceVersion=0'],
    ['notOlderThan', `resourceVersion=${rvRecent}&resourceVersionMatch=NotOlderThan`],
    ['exact', `resourceVersion=${rvOld}&resourceVersionMatch=Exact`],
  ];
  const step = `${ctx.system} reads ${size}${underLoad ? ' under load' : ''}`;
  ctx.progress.start(step, modes.length * 3);
  for (const [mode, q] of modes) {
    // gets (kube has no Exact get: rv=N on a get is NotOlderThan)
    if (mode !== 'exact') {
      const gets = ctx.cfg.quick ? 30 : 200;
      const samples: number[] = [];
      await runConcurrent(gets, 1, async (i) => {
        const t0 = nowMs();
        await http.json('GET', `${cmPath(NS, objName((i * 7919) % size))}${q ? '?' + q : ''}`);
        samples.push(nowMs() - t0);
      });
      push({ op: 'get', mode, items: 1, latency: summarize(samples) });
    }
    ctx.progress.tick();
    await getList(http, q ? '?' + q : ''); // warm-up (the first rv=0 read may load the cache)
    const samples: number[] = [];
    let items = 0;
    for (let i = 0; i < n; i++) {
      const { ms, body } = await timedList(http, q ? '?' + q : '');
      samples.push(ms);
      items = body.items.length;
    }
    push({ op: 'list', mode, items, latency: summarize(samples) });
    ctx.progress.tick();
    if (!underLoad) {
      const walked = await pages(http, `?${q ? q + '&' : ''}limit=${PAGE}`, ctx.cfg.quick ? 20 : 400);
      const note =
        mode === 'any'
          ? 'kube 1.32 cacher: limit is ignored for rv=0, the whole list comes from memory in one response'
          : `${walked.pages} pages, ${walked.items} items`;
      push({ op: 'page', mode, items: walked.items, latency: summarize(walked.samples), note });
    }
    ctx.progress.tick();
  }
  ctx.progress.stop();
  http.close();
}

async function etcdPages(etcd: EtcdClient, maxPages: number): Promise<{ samples: number[]; items: number }> {
  const samples: number[] = [];
  let items = 0;
  let startKey: string | undefined;
  let revision: number | undefined;
  for (let p = 0; p < maxPages; p++) {
    const r = await etcd.range(PREFIX, { limit: PAGE, startKey, revision });
    samples.push(r.ms);
    items += r.keys.length;
    // later pages at the first page's revision, as kube's etcd3 store pages
    revision = r.revision;
    if (!r.more || r.keys.length === 0) break;
    startKey = r.keys[r.keys.length - 1] + '\0';
  }
  return { samples, items };
}

async function etcdReads(ctx: BenchContext, size: number, underLoad: boolean): Promise<void> {
  const etcd = etcdClient(ctx, 4);
  if (!etcd) return;
  const push = (r: Omit<ReadResult, 'system' | 'size' | 'underLoad'>) => ctx.results.reads.push({ system: 'etcd', size, underLoad, ...r });
  const n = iterations(ctx, size);
  const old = (await etcd.range(PREFIX, { limit: 1 })).revision;
  for (let i = 0; i < 3; i++) await etcd.put(`/bench/misc/bump-${size}-${underLoad}-${i}`, 'x');
  ctx.progress.start(`etcd reads ${size}${underLoad ? ' under load' : ''}`, 3);
  for (const [mode, serializable] of [['linearizable', false], ['serializable', true]] as const) {
    const gets = ctx.cfg.quick ? 30 : 200;
    const samples: number[] = [];
    for (let i = 0; i < gets; i++) {
      samples.push((await etcd.range(PREFIX + objName((i * 7919) % size), { serializable })).ms);
    }
    // a single-key range: key = the object, range_end = its prefix end (the same key only)
    push({ op: 'get', mode, items: 1, latency: summarize(samples) });
  }
  ctx.progress.tick();
  for (const [mode, o] of [['linearizable', {}], ['serializable', { serializable: true }], ['revision', { revision: old }]] as const) {
    await etcd.range(PREFIX, o);
    const full = await timed(n, async () => {
      const r = await etcd.range(PREFIX, o);
      return { ms: r.ms, items: r.keys.length };
    });
    push({ op: 'list', mode, items: full.items, latency: summarize(full.samples) });
  }
  ctx.progress.tick();
  if (!underLoad) {
    const walked = await etcdPages(etcd, ctx.cfg.quick ? 20 : 400);
    push({ op: 'page', mode: 'linearizable', items: walked.items, latency: summarize(walked.samples), note: `${walked.samples.length} pages` });
  }
  ctx.progress.stop();
  etcd.close();
}

/** 64 writers updating their own object in a loop until stopped */
function backgroundWriters(ctx: BenchContext): { stop(): Promise<number> } {
  let running = true;
  let writes = 0;
  const http = ballastClient(ctx, 64);
  const etcd = etcdClient(ctx, 64);
  const lanes = Array.from({ length: 64 }, async (_, i) => {
    const name = `load-${i}`;
    await http.request('POST', cmPath('bench-load'), JSON.stringify(configMap(name, 'bench-load', ctx.cfg.objectBytes)));
    while (running) {
      await http.request('PUT', cmPath('bench-load', name), JSON.stringify(configMap(name, 'bench-load', ctx.cfg.objectBytes, { annotations: { n: String(writes) } })));
      if (etcd) await etcd.put(`/bench/load/${name}`, etcdValue(name, ctx.cfg.objectBytes));
      writes++;
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(lanes);
      http.close();
      etcd?.close();
      return writes;
    },
  };
}

export interface FootprintHook {
  (size: number): Promise<void>;
}

export async function readScenario(ctx: BenchContext, atSize: FootprintHook): Promise<void> {
  const http = ballastClient(ctx, 1);
  for (const ns of [NS, 'bench-misc', 'bench-load']) await ensureNamespace(http, ns);
  http.close();
  let have = 0;
  const loadSize = ctx.cfg.sizes.filter((s) => s <= 10000).pop() ?? ctx.cfg.sizes[0];
  for (const size of ctx.cfg.sizes) {
    await populate(ctx, have, size);
    have = size;
    await atSize(size);
    if (ctx.cfg.scenarios.has('reads')) {
      await ballastReads(ctx, size, false);
      await etcdReads(ctx, size, false);
      if (size === loadSize) {
        // the same reads while 64 writers update other objects (ours and etcd's both loaded)
        const load = backgroundWriters(ctx);
        await new Promise((r) => setTimeout(r, 500));
        await ballastReads(ctx, size, true);
        await etcdReads(ctx, size, true);
        await load.stop();
      }
    }
  }
}
