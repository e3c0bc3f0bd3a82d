import t from 'tap';
import { startCompactor } from '../../src/storage/compactor';
import { StorageError, type Revision, type Store } from '../../src/storage/store';
import { sleep, until } from './contract/helpers';
import { tempSqliteStore } from './fixtures/temp-store';

t.test('each tick compacts up to the revision current at the previous tick', async (t) => {
  const { store } = await tempSqliteStore(t);
  for (let i = 0; i < 5; i++) await store.create(`/c/${i}`, 'v');
  const compactor = startCompactor({ store, intervalMs: 100 });
  t.teardown(() => compactor.stop());
  for (let i = 0; i < 5; i++) await store.update(`/c/${i}`, 'v2');
  t.equal(store.currentRevision(), 10);
  t.ok(await until(() => store.compactRevision() > 0, 2000));
  t.equal(store.compactRevision(), 5, 'the first tick compacts to the revision at start, keeping the interval since');
  t.ok(await until(() => store.compactRevision() > 5, 2000));
  t.equal(store.compactRevision(), 10, 'the next tick catches up with the revision of the first');
  t.same((await store.list('/c/', { revision: 10 })).items.length, 5);
  t.equal(await store.list('/c/', { revision: 9 }).catch((e) => e.code), 'Compacted');
});

t.test('intervalMs 0 disables it', async (t) => {
  let calls = 0;
  const fake = { currentRevision: () => 10, compactRevision: () => 0, compact: async () => ++calls } as unknown as Store;
  const c = startCompactor({ store: fake, intervalMs: 0 });
  await sleep(50);
  c.stop();
  t.equal(calls, 0);
});

t.test('a failed compaction is retried at the next tick', async (t) => {
  const calls: Revision[] = [];
  let compacted = 0;
  let fail = true;
  const fake = {
    currentRevision: () => 10,
    compactRevision: () => compacted,
    compact: async (rev: Revision) => {
      calls.push(rev);
      if (fail) {
        fail = false;
        // a batch failed after the compact revision was recorded: the retry must still happen
        compacted = rev;
        throw new StorageError('Unavailable', 'disk I/O error');
      }
      compacted = rev;
      return 3;
    },
  } as unknown as Store;
  const warnings: unknown[] = [];
  const logger = { info: () => {}, warn: (o: unknown) => warnings.push(o) } as never;
  const c = startCompactor({ store: fake, intervalMs: 20, logger });
  t.teardown(() => c.stop());
  t.ok(await until(() => calls.length >= 2, 2000));
  c.stop();
  t.same(calls.slice(0, 2), [10, 10], 'the same compaction again');
  t.equal(warnings.length, 1, 'the failure was logged');
});
