import type { Test } from 'tap';
import { isStorageError } from '../../../src/storage/store';
import { HISTORY } from './lists';
import { modelList, runHistory, type MakeStore } from './helpers';

export function compactionContract(t: Test, makeStore: MakeStore): void {
  t.test('compaction removes superseded rows and tombstones, keeps every later revision readable', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    const states = await runHistory(store, HISTORY);
    // rows 1..8: /p/a@1 (deleted at 8), /p/b@2 (updated at 5), /p/c@3 (deleted at 6) and the
    // tombstones 6 and 8 go; /q/a@4, /p/b@5 and /p/d@7 are the newest rows of their keys at 8
    t.equal(await store.compact(8), 5, 'rows removed');
    t.equal(store.compactRevision(), 8);
    t.equal(store.currentRevision(), HISTORY.length, 'compaction uses no revision');

    const listed = await store.list('/p/', { revision: 7 }).catch((e) => e);
    t.ok(isStorageError(listed, 'Compacted'), 'list below the compact revision');
    t.equal(listed.revision, 8, 'Compacted carries the compact revision');
    t.ok(isStorageError(await store.get('/p/b', 3).catch((e) => e), 'Compacted'), 'get below the compact revision');
    for (const [rev, state] of states) {
      if (rev < 8) continue;
      t.same((await store.list('/', { revision: rev })).items, modelList(state, '/'), `list at ${rev}`);
      t.same(await store.get('/p/b', rev), state.get('/p/b'), `get /p/b at ${rev}`);
    }

    t.equal(await store.compact(8), 0, 'compacting again removes nothing');
    t.equal(await store.compact(3), 0, 'an older revision removes nothing');
    t.equal(store.compactRevision(), 8, 'and does not move the compact revision back');

    // rows 9..17 supersede 9 (/p/a), 7, 4, 13, 5 and delete 14 and 17: only each key's newest row stays
    t.equal(await store.compact(HISTORY.length), 7);
    const newest = states.get(HISTORY.length)!;
    t.same((await store.list('/')).items, modelList(newest, '/'), 'the newest state is untouched');
    t.same((await store.list('/', { revision: HISTORY.length })).items, modelList(newest, '/'));
    t.equal(await store.count('/'), newest.size);
  });

  t.test('compaction of many rows, then writes and reads go on', async (t) => {
    const { store, cleanup } = await makeStore();
    t.teardown(cleanup);
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.create(`/m/${i}`, 'v0')));
    await Promise.all(Array.from({ length: 300 }, (_, i) => store.update(`/m/${i}`, 'v1')));
    await Promise.all(Array.from({ length: 100 }, (_, i) => store.delete(`/m/${i}`)));
    const rev = store.currentRevision();
    const [removed] = await Promise.all([store.compact(rev), store.create('/m/new', 'during')]);
    t.equal(removed, 300 + 100 + 100, 'every create superseded, the deleted updates and their tombstones');
    t.equal(await store.count('/m/'), 201);
    const l = await store.list('/m/', { revision: rev });
    t.equal(l.items.length, 200);
    t.ok(l.items.every((kv) => kv.value === 'v1'));
  });
}
