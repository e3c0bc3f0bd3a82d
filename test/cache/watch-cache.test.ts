import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { WatchCache } from '../../src/cache/watch-cache';
import type { CachedEvent } from '../../src/cache/watch-cache';
import { isShared, jsonBytes } from '../../src/cache/encoded';
import { SortedKeys } from '../../src/cache/sorted-keys';
import { parseWatchCacheSizes, WatchCaches } from '../../src/cache/watch-caches';
import { openStore } from '../../src/storage/open';
import type { Store } from '../../src/storage/store';
import { MemoryStore } from '../helpers/memory-store';

const P = '/registry/core/configmaps/';
const decode = (value: string, revision: number) => ({ ...JSON.parse(value), rv: revision });
const until = async (cond: () => boolean, ms = 2000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

t.test('SortedKeys keeps order and scans prefixes', async (t) => {
  const k = new SortedKeys();
  for (const key of ['/a/n2/x', '/a/n1/y', '/a/n1/x', '/b/z', '/a/n10/q']) k.insert(key);
  k.insert('/a/n1/x');
  t.same([...k.withPrefix('/a/')], ['/a/n1/x', '/a/n1/y', '/a/n10/q', '/a/n2/x']);
  t.same([...k.withPrefix('/a/n1/')], ['/a/n1/x', '/a/n1/y'], 'n1/ does not match n10/');
  k.delete('/a/n1/x');
  k.delete('/nope');
  t.same([...k.withPrefix('/a/n1/')], ['/a/n1/y']);
  t.equal(k.size, 4);
  t.equal(k.countBetween('/a/', '/a0'), 3, '/a/n1/y, /a/n10/q, /a/n2/x');
  t.equal(k.countBetween('/a/n1/y\x00', '/a0'), 2, 'after a key');
  t.equal(k.countBetween('/c', '/d'), 0);
  t.equal(k.countBetween('/b', '/a'), 0, 'an empty range');
});

t.test('countFrom: the keys from a key at a revision, the window taking back later changes', async (t) => {
  const store = new MemoryStore();
  t.teardown(() => store.close());
  for (const n of ['a', 'b', 'c', 'd']) await store.create(P + 'ns1/' + n, '{}');
  await store.create(P + 'ns2/e', '{}');
  const cache = new WatchCache({ store, prefix: P, windowSize: 4, decode });
  await cache.ready();
  const at = store.currentRevision();
  t.equal(cache.countFrom(P + 'ns1/', P + 'ns1/b\x00', at), 2, 'c and d');
  t.equal(cache.countFrom(P, P + 'ns1/b\x00', at), 3, 'c, d and ns2/e');
  t.equal(cache.countFrom(P + 'ns1/', P, at), 4, 'a start before the prefix counts from the prefix');
  await store.create(P + 'ns1/bb', '{}');
  await store.delete(P + 'ns1/d');
  await store.update(P + 'ns1/c', '{"x":1}');
  await store.create(P + 'ns1/a0', '{}');
  await until(() => cache.revision() === store.currentRevision());
  t.equal(cache.countFrom(P + 'ns1/', P + 'ns1/b\x00', store.currentRevision()), 2, 'bb and c now');
  t.equal(cache.countFrom(P + 'ns1/', P + 'ns1/b\x00', at), 2, 'c and d at the older revision');
  t.equal(cache.countFrom(P + 'ns1/', P + 'ns1/b\x00', at + 1), 3, 'bb, c and d one revision later');
  t.equal(cache.countFrom(P + 'ns1/', P + 'ns1/b\x00', at - 1), undefined, 'older than the window');
  t.equal(cache.countFrom(P + 'ns1/', P + 'ns1/b\x00', store.currentRevision() + 1), undefined, 'newer than the cache');
  cache.stop();
});

t.test('parseWatchCacheSizes and per-resource sizes', async (t) => {
  const sizes = parseWatchCacheSizes(['deployments.apps#1000', 'events#0', '']);
  t.same([...sizes], [['deployments.apps', 1000], ['events', 0]]);
  t.throws(() => parseWatchCacheSizes(['pods=5']), /resource\[\.group\]#size/);
  const caches = new WatchCaches({ store: new MemoryStore(), settings: { enabled: true, defaultSize: 100, sizes } });
  t.equal(caches.sizeFor('deployments.apps'), 1000);
  t.equal(caches.sizeFor('events'), 0);
  t.equal(caches.sizeFor('pods'), 100);
  t.equal(await caches.forKind({ qualifiedResource: 'events', id: 'v1/Event', prefix: '/registry/core/events/', decode }), undefined, 'size 0: not cached');
  const off = new WatchCaches({ store: new MemoryStore(), settings: { enabled: false, defaultSize: 100, sizes } });
  t.equal(off.sizeFor('pods'), 0, '--watch-cache=false turns every cache off');
});

async function stores(): Promise<{ name: string; store: Store; sync: boolean; close(): Promise<void> }[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-cache-'));
  const sqlite = await openStore(`sqlite://${path.join(dir, 'state.db')}`, { synchronous: 'NORMAL' });
  const memory = new MemoryStore();
  return [
    { name: 'memory', store: memory, sync: false, close: () => memory.close() },
    { name: 'sqlite', store: sqlite, sync: true, close: async () => (await sqlite.close(), fs.rmSync(dir, { recursive: true, force: true })) },
  ];
}

const objectsOf = (items: Buffer[]) => items.map((b) => JSON.parse(b.toString()) as unknown);

t.test('the cache mirrors its prefix, keeps a window and serves watch starts from it', async (t) => {
  for (const s of await stores()) {
    await t.test(s.name, async (t) => {
      const { store } = s;
      t.teardown(() => s.close());
      await store.create(P + 'ns1/a', '{"n":"a"}');
      await store.create(P + 'ns2/b', '{"n":"b"}');
      await store.create('/registry/core/secrets/ns1/x', '{"n":"x"}');
      const cache = new WatchCache({ store, prefix: P, windowSize: 3, decode, deliversAtCommit: s.sync });
      await cache.ready();
      const first = cache.list(P);
      t.same(objectsOf(first.items), [{ n: 'a', rv: 1 }, { n: 'b', rv: 2 }], 'only its prefix, decoded and encoded once, in key order');
      t.equal(first.revision, 3);
      t.equal(cache.list(P).items[0], first.items[0], 'encoded once: the same bytes every time');
      t.equal(cache.encoded(P + 'ns1/a')?.json, first.items[0]);
      t.equal(cache.encoded(P + 'ns1/a')?.revision, 1);
      const got = cache.get(P + 'ns1/a')!;
      t.same(got, { object: { n: 'a', rv: 1 }, revision: 1 });
      t.ok(isShared(got.object), 'objects handed out are shared');
      t.equal(jsonBytes(got.object), first.items[0], 'and carry the cached bytes as their JSON');

      const seen: CachedEvent[] = [];
      const sub = cache.subscribe(3, P + 'ns1/', { onEvent: (e) => seen.push(e), onError: () => t.fail('no error') });
      t.ok(sub);
      const a2 = await store.update(P + 'ns1/a', '{"n":"a2"}');
      await store.create(P + 'ns2/c', '{"n":"c"}');
      const del = await store.delete(P + 'ns1/a');
      await until(() => seen.length === 2);
      t.same(seen.map((e) => `${e.type} ${e.key} ${e.revision}`), [`MODIFIED ${P}ns1/a ${a2.modRevision}`, `DELETED ${P}ns1/a ${del.modRevision}`]);
      t.same(seen[1].object, { n: 'a2', rv: del.modRevision }, 'DELETED carries the last state at the deletion revision');
      t.same(seen[0].prevObject, { n: 'a', rv: 1 }, 'the state before, for selectors');
      t.equal(seen[0].wire.object, seen[0].object);
      t.ok(isShared(seen[0].wire), 'the wire event is shared');
      await until(() => cache.get(P + 'ns1/a') === undefined);
      t.same(objectsOf(cache.list(P).items), [{ n: 'b', rv: 2 }, { n: 'c', rv: 5 }]);
      t.same(cache.list(P + 'ns2/').items.length, 2);

      // window of 3: revisions 4,5,6 are kept; a start after 3 is served, after 2 is not
      const replay: CachedEvent[] = [];
      t.ok(cache.subscribe(3, P, { onEvent: (e) => replay.push(e), onError: () => undefined }), 'after 3: inside the window');
      t.same(replay.map((e) => e.revision), [4, 5, 6], 'the window is replayed at once');
      t.equal(jsonBytes(replay[1].object), cache.encoded(P + 'ns2/c')?.json, "an event's object and the cache share one encoding");
      t.equal(cache.subscribe(2, P, { onEvent: () => undefined, onError: () => undefined }), undefined, 'older than the window');
      t.equal(cache.windowStart(), 3);
      sub!.cancel();
      await store.create(P + 'ns1/z', '{}');
      await until(() => cache.get(P + 'ns1/z') !== undefined);
      t.equal(seen.length, 2, 'a cancelled subscription gets nothing');

      // freshness: waiting for a revision not reached, then reached
      const rev = store.currentRevision();
      t.equal(await cache.waitFresh(rev + 1, 30), false, 'times out');
      const waiting = cache.waitFresh(rev + 1, 2000);
      await store.create(P + 'ns1/w', '{}');
      t.equal(await waiting, true);
      t.ok(cache.get(P + 'ns1/w'), 'the object is there once the revision is reached');
      cache.stop();
    });
  }
});

t.test('a cache whose store watch fails ends its watchers and reloads on next use', async (t) => {
  const store = new MemoryStore();
  t.teardown(() => store.close());
  await store.create(P + 'ns/a', '{}');
  const cache = new WatchCache({ store, prefix: P, windowSize: 10, decode });
  await cache.ready();
  const errors: string[] = [];
  cache.subscribe(store.currentRevision(), P, { onEvent: () => undefined, onError: (e) => errors.push(e.code) });
  // closing the store ends the cache's store watch (as compaction past it or falling behind would)
  await store.close();
  await until(() => errors.length === 1);
  t.same(errors, ['Closed']);
  t.equal(cache.subscribe(store.currentRevision(), P, { onEvent: () => undefined, onError: () => undefined }), undefined, 'no new subscriptions on a failed cache');
});

t.test('watch triggers: a subscriber with a trigger value is offered only the events of that value, before or after', async (t) => {
  const store = new MemoryStore();
  t.teardown(() => store.close());
  const node = (o: object) => (o as { node?: string }).node;
  const cache = new WatchCache({ store, prefix: P, windowSize: 100, decode, triggerOf: (o) => node(o) ?? '' });
  await cache.ready();
  const seen = new Map<string, string[]>();
  const listen = (name: string, trigger?: string) => {
    seen.set(name, []);
    return cache.subscribe(store.currentRevision(), P, { onEvent: (e: CachedEvent) => seen.get(name)!.push(`${e.type} ${e.key.slice(P.length)}`), onError: () => undefined }, trigger);
  };
  const onA = listen('a', 'a');
  listen('b', 'b');
  listen('all');
  const created = await store.create(P + 'ns/p1', JSON.stringify({ node: '' }));
  await store.create(P + 'ns/p2', JSON.stringify({ node: 'b' }));
  // bound: '' -> a (the watcher of a must hear of it, its selection turns it into an ADDED)
  const bound = await store.update(P + 'ns/p1', JSON.stringify({ node: 'a' }), created.modRevision);
  // moved: a -> b, both watchers are offered it (a's selection makes it a DELETED)
  await store.update(P + 'ns/p1', JSON.stringify({ node: 'b' }), bound.modRevision);
  await store.delete(P + 'ns/p2');
  await until(() => seen.get('all')!.length === 5);
  t.same(seen.get('all'), ['ADDED ns/p1', 'ADDED ns/p2', 'MODIFIED ns/p1', 'MODIFIED ns/p1', 'DELETED ns/p2']);
  t.same(seen.get('a'), ['MODIFIED ns/p1', 'MODIFIED ns/p1'], 'a: the binding to a and the move away from a');
  t.same(seen.get('b'), ['ADDED ns/p2', 'MODIFIED ns/p1', 'DELETED ns/p2'], 'b: its pod, the move to b, the delete');
  onA!.cancel();
  await store.create(P + 'ns/p3', JSON.stringify({ node: 'a' }));
  await until(() => seen.get('all')!.length === 6);
  t.equal(seen.get('a')!.length, 2, 'a cancelled subscriber hears nothing more');
  cache.stop();
});
