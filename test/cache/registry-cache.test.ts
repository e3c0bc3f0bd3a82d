import t from 'tap';
import { makeFixture, configMap, pod, write, CollectingSink } from '../helpers/registry-fixture';
import { isShared, jsonBytes } from '../../src/cache/encoded';
import { rejects } from '../helpers/registry-assert';

const settings = (deliversAtCommit: boolean) => ({ enabled: true, defaultSize: 100, sizes: new Map<string, number>(), deliversAtCommit });

for (const backend of ['memory', 'sqlite'] as const) {
  t.test(`registry reads and watches through the watch cache (${backend})`, async (t) => {
    const f = await makeFixture(backend, { watchCache: settings(backend === 'sqlite') });
    t.teardown(() => f.close());
    const cms = f.target('configmaps', 'default');
    for (const n of ['a', 'b', 'c']) await f.registry.create(cms, configMap(n), write);

    // Any: from memory, the same shared objects each time; limit ignored as kube 1.32's cacher does
    const any1 = await f.registry.list(cms, { resourceVersion: '0' });
    const any2 = await f.registry.list(cms, { resourceVersion: '0', limit: 1 });
    t.equal(any2.items.length, 3, 'limit is ignored for rv=0');
    t.equal(any2.metadata.continue, undefined, 'no continue token from the cache');
    t.equal(jsonBytes(any1.items[0]), jsonBytes(any2.items[0]), 'the same bytes from memory, encoded once');
    t.ok(isShared(any1.items[0]));
    t.equal(any1.metadata.resourceVersion, String(f.store.currentRevision()));

    // Most Recent: a consistent read from the store; rows the cache holds at the same revision reuse
    // its encoding (same stored bytes), the others are decoded
    const recent = await f.registry.list(cms, {});
    t.same(recent.items, any1.items, 'same content');
    t.equal(jsonBytes(recent.items[0]), jsonBytes(any1.items[0]), 'an unchanged row reuses the cached encoding');
    // NotOlderThan without limit: cache; with limit: store (kube delegates paged reads)
    const rv = String(f.store.currentRevision());
    t.ok(isShared((await f.registry.list(cms, { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan' })).items[0]));
    const paged = await f.registry.list(cms, { resourceVersion: rv, resourceVersionMatch: 'NotOlderThan', limit: 2 });
    t.equal(paged.items.length, 2, 'NotOlderThan with a limit is paged by the store');
    t.ok(paged.metadata.continue);
    // Exact: the log at that revision
    const exact = await f.registry.list(cms, { resourceVersion: String(Number(rv) - 1), resourceVersionMatch: 'Exact' });
    t.equal(exact.items.length, 2);
    t.equal(exact.metadata.resourceVersion, String(Number(rv) - 1));
    // selectors apply to cached lists
    const lab = await f.registry.create(cms, configMap('lab', 'default', { app: 'x' }), write);
    // (rv=0 may be a little stale; NotOlderThan the create waits for the cache to see it)
    const sel = await f.registry.list(cms, { resourceVersion: lab.object.metadata!.resourceVersion, labelSelector: 'app=x' });
    t.same(sel.items.map((o) => o.metadata!.name), ['lab']);

    // gets: rv=0 and NotOlderThan from the cache, unset from the store; 404 and 504 as kube
    const g0 = await f.registry.get(f.target('configmaps', 'default', 'a'), { resourceVersion: '0' });
    t.ok(isShared(g0));
    t.notOk(isShared(await f.registry.get(f.target('configmaps', 'default', 'a'), {})));
    await rejects(t, f.registry.get(f.target('configmaps', 'default', 'zz'), { resourceVersion: '0' }), 404, 'NotFound');
    const future = f.store.currentRevision() + 10;
    await rejects(t, f.registry.get(f.target('configmaps', 'default', 'a'), { resourceVersion: String(future) }), 504, 'Timeout', `Too large resource version: ${future}, current: ${f.store.currentRevision()}`);

    // two watchers from the same revision get the very same event objects (encoded once)
    const from = String(f.store.currentRevision());
    const w1 = new CollectingSink();
    const w2 = new CollectingSink();
    const h1 = await f.registry.watch(cms, { resourceVersion: from }, w1);
    const h2 = await f.registry.watch(cms, { resourceVersion: from }, w2);
    t.teardown(() => (h1.cancel(), h2.cancel()));
    await f.registry.patch(f.target('configmaps', 'default', 'a'), 'merge', '{"data":{"k":"z"}}', write);
    await f.registry.delete(f.target('configmaps', 'default', 'b'), write);
    await w1.waitFor((e) => e.length >= 2);
    await w2.waitFor((e) => e.length >= 2);
    t.same(w1.summary(), ['MODIFIED a', 'DELETED b']);
    t.equal(w1.events[0], w2.events[0], 'one shared event for both watchers');
    t.ok(isShared(w1.events[0]));

    // a watch that starts inside the window is replayed from memory
    const w3 = new CollectingSink();
    const h3 = await f.registry.watch(cms, { resourceVersion: from }, w3);
    t.teardown(() => h3.cancel());
    await w3.waitFor((e) => e.length >= 2);
    t.equal(w3.events[0], w1.events[0], 'replayed from the window');

    // rv=0 watch: initial state from memory
    const w4 = new CollectingSink();
    const h4 = await f.registry.watch(cms, { resourceVersion: '0' }, w4);
    t.teardown(() => h4.cancel());
    await w4.waitFor((e) => e.length >= 3);
    t.same(w4.summary(), ['ADDED a', 'ADDED c', 'ADDED lab']);
    t.ok(isShared(w4.events[0].object), 'initial objects come from the cache');
  });
}

t.test('Most Recent reads the store even when the cache lags behind it', async (t) => {
  // the memory store delivers watch events on a later turn: a write straight to the store is in the
  // store before the cache hears of it
  const f = await makeFixture('memory', { watchCache: settings(false) });
  t.teardown(() => f.close());
  const cms = f.target('configmaps', 'default');
  for (const n of ['a', 'b']) await f.registry.create(cms, configMap(n), write);
  const before = await f.registry.list(cms, { resourceVersion: '0' });
  const key = '/registry/core/configmaps/default/b';
  const kv = (await f.store.get(key))!;
  const stored = JSON.parse(kv.value);
  stored.data = { k: 'changed' };
  await f.store.update(key, JSON.stringify(stored));
  const recent = await f.registry.list(cms, {});
  t.same(recent.items[1].data, { k: 'changed' }, 'the newest state, read from the store');
  t.notOk(isShared(recent.items[1]), 'decoded: the cache has another revision of it');
  t.equal(jsonBytes(recent.items[0]), jsonBytes(before.items[0]), 'the unchanged row reuses the cached encoding');
});

t.test('--watch-cache=false: every read goes to the store', async (t) => {
  const f = await makeFixture('memory', { watchCache: { enabled: false, defaultSize: 100, sizes: new Map() } });
  t.teardown(() => f.close());
  const cms = f.target('configmaps', 'default');
  await f.registry.create(cms, configMap('a'), write);
  const l = await f.registry.list(cms, { resourceVersion: '0', limit: 1 });
  t.notOk(isShared(l.items[0]));
  t.equal(l.items.length, 1);
  t.notOk(isShared(await f.registry.get(f.target('configmaps', 'default', 'a'), { resourceVersion: '0' })));
});

t.test('a window older than the watch start falls back to the store history', async (t) => {
  const f = await makeFixture('memory', { watchCache: { enabled: true, defaultSize: 2, sizes: new Map() } });
  t.teardown(() => f.close());
  const cms = f.target('configmaps', 'default');
  await f.registry.list(cms, { resourceVersion: '0' }); // start the cache
  const from = String(f.store.currentRevision());
  for (const n of ['a', 'b', 'c', 'd']) await f.registry.create(cms, configMap(n), write);
  await new Promise((r) => setTimeout(r, 20));
  const w = new CollectingSink();
  const h = await f.registry.watch(cms, { resourceVersion: from }, w);
  t.teardown(() => h.cancel());
  await w.waitFor((e) => e.length >= 4);
  t.same(w.summary(), ['ADDED a', 'ADDED b', 'ADDED c', 'ADDED d']);
  t.notOk(isShared(w.events[0]), 'served from the store history');
});

t.test('remainingItemCount from the watch cache equals the database count, across writes between pages', async (t) => {
  const cached = await makeFixture('sqlite', { watchCache: settings(true) });
  const plain = await makeFixture('sqlite', { watchCache: { enabled: false, defaultSize: 100, sizes: new Map() } });
  t.teardown(() => (cached.close(), plain.close()));
  for (const f of [cached, plain]) {
    await f.registry.create(f.target('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } }, write);
    for (let i = 0; i < 9; i++) await f.registry.create(f.target('configmaps', i < 7 ? 'default' : 'other'), configMap(`cm-${i}`, i < 7 ? 'default' : 'other'), write);
  }
  await cached.registry.list(cached.target('configmaps'), { resourceVersion: '0' }); // loads the cache
  // walk the pages of 2; after the first, create two objects (before and after the position) and delete one
  const walk = async (f: typeof cached, tag: string, gone: string, ns?: string) => {
    const counts: (number | undefined)[] = [];
    let cont: string | undefined;
    do {
      const page = await f.registry.list(f.target('configmaps', ns), { limit: 2, continue: cont });
      if (cont === undefined) {
        await f.registry.create(f.target('configmaps', 'default'), configMap(`cm-5${tag}`), write);
        await f.registry.delete(f.target('configmaps', 'default', gone), write);
        await f.registry.create(f.target('configmaps', 'default'), configMap(`cm-0${tag}`), write);
      }
      counts.push(page.metadata.remainingItemCount);
      cont = page.metadata.continue;
    } while (cont);
    return counts;
  };
  // 9 objects at the list's revision: the later writes do not change the counts
  t.same(await walk(cached, 'a', 'cm-6'), [7, 5, 3, 1, undefined], 'all namespaces, counted in the watch cache');
  t.same(await walk(plain, 'a', 'cm-6'), [7, undefined, undefined, undefined, undefined], 'without a cache only a page of the newest state is counted (the database)');
  // default now holds cm-0, cm-0a, cm-1 ... cm-5, cm-5a: 8 objects
  t.same(await walk(cached, 'b', 'cm-4', 'default'), [6, 4, 2, undefined], 'one namespace of the cache');
  t.same(await walk(plain, 'b', 'cm-4', 'default'), [6, undefined, undefined, undefined]);
});

t.test('NamespaceLifecycle reads the namespace from the watch cache when it is as fresh as the store', async (t) => {
  const f = await makeFixture('sqlite', { watchCache: settings(true) });
  t.teardown(() => f.close());
  await f.registry.create(f.target('namespaces'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1' } }, write);
  let reads = 0;
  const get = f.store.get.bind(f.store);
  f.store.get = (key, revision) => {
    if (key.includes('/namespaces/')) reads++;
    return get(key, revision);
  };
  for (const n of ['a', 'b', 'c']) await f.registry.create(f.target('configmaps', 'n1'), configMap(n, 'n1'), write);
  t.equal(reads, 0, 'the namespace came from the cache each time');
  await rejects(t, f.registry.create(f.target('configmaps', 'nope'), configMap('x', 'nope'), write), 404, 'NotFound');
  // a namespace being deleted refuses new content at once
  await f.registry.update(f.target('namespaces', undefined, 'n1'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n1', finalizers: ['example.com/hold'] } }, write);
  await f.registry.delete(f.target('namespaces', undefined, 'n1'), write);
  await rejects(t, f.registry.create(f.target('configmaps', 'n1'), configMap('d', 'n1'), write), 403, 'Forbidden');
});

t.test('a cache behind the store leaves the count of a page to the database', async (t) => {
  const f = await makeFixture('sqlite', { watchCache: settings(false) });
  t.teardown(() => f.close());
  const cms = f.target('configmaps', 'default');
  for (const n of ['a', 'b', 'c', 'd']) await f.registry.create(cms, configMap(n), write);
  // a cache whose store watch never delivers: it stays at the revision it loaded
  f.store.watch = () => ({ cancel() {} });
  await f.registry.list(cms, { resourceVersion: '0' }); // loads the cache
  await f.store.create('/registry/core/configmaps/default/e', JSON.stringify(configMap('e')));
  const page = await f.registry.list(cms, { limit: 2 });
  t.equal(page.metadata.remainingItemCount, 3, 'c, d and e: counted by the store at its newest revision');
});

for (const backend of ['memory', 'sqlite'] as const) {
  t.test(`a server-internal newest list comes from the cache only when it holds every commit (${backend})`, async (t) => {
    const f = await makeFixture(backend, { watchCache: settings(backend === 'sqlite') });
    t.teardown(() => f.close());
    const cms = f.target('configmaps', 'default');
    await f.registry.create(cms, configMap('a'), write);
    await f.registry.list(cms, { resourceVersion: '0' }); // the cache is loaded
    for (let i = 0; i < 20; i++) {
      // each create is seen by the very next list, whether the cache has caught up or not
      await f.registry.create(cms, configMap(`n${i}`), write);
      const newest = await f.registry.list(cms, { newestFromCache: true });
      t.ok(newest.items.some((o) => o.metadata!.name === `n${i}`), `n${i} listed`);
      t.equal(newest.metadata.resourceVersion, String(f.store.currentRevision()));
    }
    // SQLite feeds the cache inside each commit: the list is answered without reading the database
    const storeList = f.store.list.bind(f.store);
    let storeLists = 0;
    f.store.list = (...args) => (storeLists++, storeList(...args));
    const last = await f.registry.list(cms, { newestFromCache: true });
    t.equal(last.items.length, 21);
    if (backend === 'sqlite') {
      t.equal(storeLists, 0, 'SQLite: the cache holds every commit, the database is not read');
      t.ok(isShared(last.items[0]), 'the cached objects');
    }
    const before = storeLists;
    await f.registry.list(cms, {});
    t.equal(storeLists, before + 1, 'a list without the option reads the database');
    t.equal((await f.registry.list(cms, { newestFromCache: true, limit: 5 })).items.length, 5, 'a limited list is the store\'s page');
  });
}

for (const backend of ['memory', 'sqlite'] as const) {
  t.test(`pod watches by spec.nodeName through the cache's trigger index (${backend})`, async (t) => {
    const f = await makeFixture(backend, { watchCache: settings(backend === 'sqlite') });
    t.teardown(() => f.close());
    const pods = f.target('pods', 'default');
    await f.registry.list(pods, { resourceVersion: '0' }); // the cache is loaded
    const from = String(f.store.currentRevision());
    const sinks = { a: new CollectingSink(), b: new CollectingSink(), notA: new CollectingSink() };
    const handles = [
      await f.registry.watch(pods, { resourceVersion: from, fieldSelector: 'spec.nodeName=a' }, sinks.a),
      await f.registry.watch(pods, { resourceVersion: from, fieldSelector: 'spec.nodeName=b' }, sinks.b),
      await f.registry.watch(pods, { resourceVersion: from, fieldSelector: 'spec.nodeName!=a' }, sinks.notA),
    ];
    t.teardown(() => handles.forEach((h) => h.cancel()));
    await f.registry.create(pods, pod('on-a', 'default', 'a'), write);
    await f.registry.create(pods, pod('on-b', 'default', 'b'), write);
    await f.registry.delete(f.target('pods', 'default', 'on-a'), { dryRun: false, gracePeriodSeconds: 0 });
    const names = (sink: CollectingSink) => sink.events.map((e) => `${e.type} ${(e.object as { metadata: { name: string } }).metadata.name}`);
    await sinks.a.waitFor((es) => es.some((e) => e.type === 'DELETED'));
    await sinks.notA.waitFor((es) => es.length >= 1);
    await sinks.b.waitFor((es) => es.length >= 1);
    // (the delete may first mark the pod: a MODIFIED in between)
    t.same(names(sinks.a).filter((e) => !e.startsWith('MODIFIED')), ['ADDED on-a', 'DELETED on-a']);
    t.same(names(sinks.b), ['ADDED on-b']);
    t.same(names(sinks.notA), ['ADDED on-b'], 'a selector without a pinned value sees every event and filters');
  });
}
