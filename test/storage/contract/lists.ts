import type { Test } from 'tap';
import { isStorageError } from '../../../src/storage/store';
import { listAllPages, modelList, runHistory, type MakeStore, type Step } from './helpers';

/** a history with updates, deletes and re-creates, spread over two sibling prefixes */
export const HISTORY: Step[] = [
  ['create', '/p/a', 'a1'],
  ['create', '/p/b', 'b1'],
  ['create', '/p/c', 'c1'],
  ['create', '/q/a', 'qa1'],
  ['update', '/p/b', 'b2'],
  ['delete', '/p/c'],
  ['create', '/p/d', 'd1'],
  ['delete', '/p/a'],
  ['create', '/p/a', 'a2'],
  ['update', '/p/d', 'd2'],
  ['create', '/p/c', 'c2'],
  ['update', '/q/a', 'qa2'],
  ['create', '/p/e', 'e1'],
  ['delete', '/p/e'],
  ['update', '/p/a', 'a3'],
  ['create', '/pp/x', 'x1'],
  ['delete', '/p/b'],
];

/** lists and gets at the newest and at every older revision */
export function listContract(t: Test, makeStore: MakeStore): void {
  t.test('list: prefix, order, paging with startKey and limit, more and remaining', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    for (const k of ['/n/d', '/n/b', '/n/a', '/n/c', '/n/e', '/nn/a', '/m/a']) await store.create(k, `v${k}`);
    const all = await store.list('/n/');
    t.same(all.items.map((kv) => kv.key), ['/n/a', '/n/b', '/n/c', '/n/d', '/n/e'], 'ascending keys, sibling prefix excluded');
    t.equal(all.revision, 7);
    t.equal(all.more, false);
    t.same(all.items[0], { key: '/n/a', value: 'v/n/a', modRevision: 3, createRevision: 3 });

    const p1 = await store.list('/n/', { limit: 2 });
    t.same(p1.items.map((kv) => kv.key), ['/n/a', '/n/b']);
    t.equal(p1.more, true);
    if (p1.remaining !== undefined) t.equal(p1.remaining, 3);
    const p2 = await store.list('/n/', { limit: 2, startKey: '/n/b\u0000' });
    t.same(p2.items.map((kv) => kv.key), ['/n/c', '/n/d']);
    t.equal(p2.more, true);
    if (p2.remaining !== undefined) t.equal(p2.remaining, 1);
    const p3 = await store.list('/n/', { limit: 2, startKey: '/n/d\u0000' });
    t.same(p3.items.map((kv) => kv.key), ['/n/e']);
    t.equal(p3.more, false);
    const exact = await store.list('/n/', { limit: 5 });
    t.equal(exact.more, false, 'a page that ends exactly at the last key has no more');
    t.same((await store.list('/n/', { startKey: '/n/c' })).items.map((kv) => kv.key), ['/n/c', '/n/d', '/n/e'], 'startKey is inclusive');
    t.same((await store.list('/n/', { startKey: '/a' })).items.length, 5, 'a startKey before the prefix is ignored');
    t.same((await store.list('/x/')).items, []);
  });

  t.test('list and get at every older revision match a replayed model', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    const states = await runHistory(store, HISTORY);
    t.equal(store.currentRevision(), HISTORY.length);
    for (const [rev, state] of states) {
      for (const prefix of ['/p/', '/q/', '/']) {
        const got = await store.list(prefix, { revision: rev });
        t.equal(got.revision, rev);
        t.same(got.items, modelList(state, prefix), `list ${prefix} at ${rev}`);
        t.equal(got.more, false);
        const paged = await listAllPages(store, prefix, rev, 1);
        t.same(paged.items, modelList(state, prefix), `paged list ${prefix} at ${rev}`);
      }
      for (const key of ['/p/a', '/p/b', '/p/c', '/p/d', '/p/e', '/q/a', '/pp/x']) {
        t.same(await store.get(key, rev), state.get(key), `get ${key} at ${rev}`);
      }
    }
  });

  t.test('pages of an older revision stay at that revision while writes go on', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    for (let i = 0; i < 10; i++) await store.create(`/w/${i}`, 'old');
    const first = await store.list('/w/', { limit: 4 });
    await store.delete('/w/5');
    await store.update('/w/6', 'new');
    await store.create('/w/55', 'new');
    const rest = await listAllPages(store, '/w/', first.revision, 4);
    // continuing from first.revision: the rest of the snapshot, unaffected by the later writes
    const next = await store.list('/w/', { revision: first.revision, startKey: '/w/3\u0000', limit: 3 });
    t.same(next.items.map((kv) => kv.key), ['/w/4', '/w/5', '/w/6']);
    t.same(next.items.map((kv) => kv.value), ['old', 'old', 'old']);
    t.equal(next.more, true);
    t.equal(rest.items.length, 10);
    t.ok(rest.items.every((kv) => kv.value === 'old'));
  });

  t.test('non-ASCII keys sort in UTF-8 byte order in newest and historical lists alike', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    // UTF-8 order: a < U+00E9 < U+FB01 < U+1F600 (UTF-16 would put the emoji before U+FB01)
    const keys = ['/u/a', '/u/\u00e9', '/u/\ufb01', '/u/\u{1f600}'];
    for (const k of [...keys].reverse()) await store.create(k, 'v1');
    const rev = store.currentRevision();
    await store.update('/u/\ufb01', 'v2');
    await store.delete('/u/a');
    await store.create('/u/a', 'v3');
    t.same((await store.list('/u/')).items.map((kv) => kv.key), keys, 'newest');
    t.same((await store.list('/u/', { revision: rev })).items.map((kv) => kv.key), keys, 'historical (merged)');
    t.same((await listAllPages(store, '/u/', rev, 1)).items.map((kv) => kv.key), keys, 'historical, paged');
    t.same((await listAllPages(store, '/u/', undefined, 1)).items.map((kv) => kv.key), keys, 'newest, paged');
  });

  t.test('revisions newer than the newest throw FutureRevision', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await store.create('/f/a', '');
    const l = await store.list('/f/', { revision: 2 }).catch((e) => e);
    t.ok(isStorageError(l, 'FutureRevision'), 'list');
    t.equal(l.revision, 1);
    t.ok(isStorageError(await store.get('/f/a', 5).catch((e) => e), 'FutureRevision'), 'get');
    t.ok(isStorageError(await store.compact(9).catch((e) => e), 'FutureRevision'), 'compact');
    t.same((await store.list('/f/', { revision: 0 })).items, [], 'revision 0 is the empty store');
  });
}
