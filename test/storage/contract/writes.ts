import type { Test } from 'tap';
import { isStorageError } from '../../../src/storage/store';
import type { MakeStore } from './helpers';

/** create, get, update, delete and their typed errors */
export function writeContract(t: Test, makeStore: MakeStore): void {
  t.test('create then get; revisions start at 1', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    t.equal(store.currentRevision(), 0);
    t.equal(store.compactRevision(), 0);
    const kv = await store.create('/r/a', '{"a":1}');
    t.same(kv, { key: '/r/a', value: '{"a":1}', modRevision: 1, createRevision: 1 });
    t.equal(store.currentRevision(), 1);
    t.same(await store.get('/r/a'), kv);
    t.equal(await store.get('/r/b'), undefined);
    t.equal(await store.get('/r'), undefined, 'a prefix of a key is not the key');
  });

  t.test('create of a present key throws Exists and uses no revision', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await store.create('/r/a', 'one');
    const err = await store.create('/r/a', 'two').catch((e) => e);
    t.ok(isStorageError(err, 'Exists'), 'Exists');
    t.equal(err.key, '/r/a');
    t.equal(store.currentRevision(), 1);
    t.equal((await store.get('/r/a'))?.value, 'one');
  });

  t.test('update keeps createRevision, checks expectedRevision, NotFound when absent', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await store.create('/r/x', 'other');
    const a = await store.create('/r/a', 'v1');
    const b = await store.update('/r/a', 'v2');
    t.same(b, { key: '/r/a', value: 'v2', modRevision: 3, createRevision: 2 });
    const c = await store.update('/r/a', 'v3', 3);
    t.equal(c.modRevision, 4);
    const stale = await store.update('/r/a', 'v4', a.modRevision).catch((e) => e);
    t.ok(isStorageError(stale, 'Conflict'), 'Conflict on a stale revision');
    t.equal(stale.revision, 4, 'Conflict carries the key revision');
    const missing = await store.update('/r/none', 'v').catch((e) => e);
    t.ok(isStorageError(missing, 'NotFound'), 'NotFound');
    t.equal(store.currentRevision(), 4, 'failed updates use no revision');
    t.same(await store.get('/r/a'), c);
  });

  t.test('delete returns the last value at the delete revision; then NotFound; re-create starts anew', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await store.create('/r/a', 'v1');
    await store.update('/r/a', 'v2');
    const stale = await store.delete('/r/a', 1).catch((e) => e);
    t.ok(isStorageError(stale, 'Conflict'), 'Conflict on a stale revision');
    const del = await store.delete('/r/a', 2);
    t.same(del, { key: '/r/a', value: 'v2', modRevision: 3, createRevision: 1 });
    t.equal(await store.get('/r/a'), undefined);
    t.ok(isStorageError(await store.delete('/r/a').catch((e) => e), 'NotFound'), 'NotFound after delete');
    t.ok(isStorageError(await store.update('/r/a', 'x').catch((e) => e), 'NotFound'), 'update after delete: NotFound');
    const again = await store.create('/r/a', 'v3');
    t.same(again, { key: '/r/a', value: 'v3', modRevision: 4, createRevision: 4 });
  });

  t.test('concurrent writes: each checked against the ones before it, revisions without gaps', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    const results = await Promise.allSettled([
      store.create('/r/a', '1'),
      store.create('/r/a', '2'),
      store.update('/r/a', '3'),
      store.delete('/r/b'),
      store.create('/r/b', '4'),
      store.delete('/r/b'),
      store.update('/r/a', '5', 999),
    ]);
    t.same(
      results.map((r) => (r.status === 'fulfilled' ? r.value.modRevision : (r.reason as { code: string }).code)),
      [1, 'Exists', 2, 'NotFound', 3, 4, 'Conflict'],
    );
    t.equal(store.currentRevision(), 4);
    t.same(await store.get('/r/a'), { key: '/r/a', value: '3', modRevision: 2, createRevision: 1 });

    const many = await Promise.all(Array.from({ length: 50 }, (_, i) => store.create(`/r/k${i}`, String(i))));
    const revs = many.map((kv) => kv.modRevision).sort((a, b) => a - b);
    t.same(revs, Array.from({ length: 50 }, (_, i) => 5 + i), 'consecutive revisions, none reused or skipped');
    t.equal(store.currentRevision(), 54);
  });

  t.test('count, ping, waitForRevision', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await store.create('/r/a/1', '');
    await store.create('/r/a/2', '');
    await store.create('/r/ab/1', '');
    t.equal(await store.count('/r/a/'), 2);
    t.equal(await store.count('/r/'), 3);
    t.equal(await store.count('/none/'), 0);
    await store.ping();
    t.equal(await store.waitForRevision(3, 10), true, 'already reached');
    t.equal(await store.waitForRevision(5, 20), false, 'times out');
    const waiting = store.waitForRevision(4, 2000);
    await store.create('/r/c', '');
    t.equal(await waiting, true, 'resolved by a commit');
  });

  t.test('close: writes, reads and watches end with Closed', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await store.create('/r/a', '');
    const errors: string[] = [];
    store.watch({ prefix: '/r/', afterRevision: 1, onEvent: () => errors.push('event'), onError: (e) => errors.push(e.code) });
    await new Promise((r) => setImmediate(r));
    const queued = store.create('/r/b', '').catch((e) => e.code);
    await store.close();
    await store.close();
    t.equal(await queued, 'Closed', 'a queued write fails with Closed');
    t.equal(await store.create('/r/c', '').catch((e) => e.code), 'Closed');
    t.equal(await store.get('/r/a').catch((e) => e.code), 'Closed');
    t.same(errors, ['Closed']);
  });
}
