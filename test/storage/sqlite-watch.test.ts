import t from 'tap';
import type { StoreEvent } from '../../src/storage/store';
import { recordWatch, sleep, until } from './contract/helpers';
import { tempSqliteStore } from './fixtures/temp-store';

t.test('a watch older than the ring buffer replays the log, then joins live events without gaps or repeats', async (t) => {
  const { store } = await tempSqliteStore(t, { watchBufferSize: 10, watchReplayStep: 7 });
  for (let i = 0; i < 100; i++) await store.create(`/r/${i % 4}/${i}`, `v${i}`);
  const all = recordWatch(store, { prefix: '/r/', afterRevision: 0 });
  const some = recordWatch(store, { prefix: '/r/1/', afterRevision: 3 });
  // keep committing while the replay runs: some of these land in the log part, some in the ring
  const writer = (async () => {
    for (let i = 100; i < 160; i++) {
      await store.create(`/r/${i % 4}/${i}`, `v${i}`);
      if (i % 10 === 0) await sleep(1);
    }
  })();
  await writer;
  t.ok(await until(() => all.events.length >= 160));
  await sleep(20);
  t.same(all.events.map((e) => e.revision), Array.from({ length: 160 }, (_, i) => i + 1));
  t.same(all.events.map((e) => e.value), Array.from({ length: 160 }, (_, i) => `v${i}`));
  const want = all.events.filter((e) => e.key.startsWith('/r/1/') && e.revision > 3);
  t.same(some.events, want, 'the prefix watch sees exactly its keys');
  t.same([...all.errors, ...some.errors], []);
});

t.test('a ring buffer of 0 still serves every watch from the log', async (t) => {
  const { store } = await tempSqliteStore(t, { watchBufferSize: 0 });
  await store.create('/z/a', '1');
  await store.update('/z/a', '2');
  const w = recordWatch(store, { prefix: '/z/', afterRevision: 0 });
  await store.delete('/z/a');
  t.ok(await until(() => w.events.length === 3));
  t.same(
    w.events.map((e: StoreEvent) => [e.type, e.value, e.prevValue]),
    [
      ['ADDED', '1', undefined],
      ['MODIFIED', '2', '1'],
      ['DELETED', '2', '2'],
    ],
  );
});

t.test('onProgress reports the newest revision to watches that are caught up', async (t) => {
  const { store } = await tempSqliteStore(t, { progressIntervalMs: 20 });
  await store.create('/p/a', '');
  const w = recordWatch(store, { prefix: '/p/', afterRevision: 0 });
  await store.create('/other', '');
  t.ok(await until(() => w.progress.length >= 2));
  t.equal(w.progress[w.progress.length - 1], 2, 'events of other prefixes move the progress revision too');
  t.same(w.events.map((e) => e.revision), [1]);
});

t.test('a watcher that throws does not disturb writers or other watchers', async (t) => {
  const { store } = await tempSqliteStore(t);
  store.watch({
    prefix: '/',
    afterRevision: 0,
    onEvent: () => {
      throw new Error('boom');
    },
    onError: () => {},
  });
  const ok = recordWatch(store, { prefix: '/', afterRevision: 0 });
  await new Promise((r) => setImmediate(r));
  const kv = await store.create('/a', '1');
  t.equal(kv.modRevision, 1);
  t.ok(await until(() => ok.events.length === 1));
});

t.test('compaction while a watch replays history ends that watch with Compacted', async (t) => {
  const { store } = await tempSqliteStore(t, { watchBufferSize: 5, watchReplayStep: 10 });
  for (let i = 0; i < 100; i++) await store.update('/k', String(i)).catch(() => store.create('/k', String(i)));
  const w = recordWatch(store, { prefix: '/', afterRevision: 0 });
  // let the first replay steps run, then compact past where the watch has got to
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  await store.compact(90);
  t.ok(await until(() => w.errors.length === 1));
  t.equal(w.errors[0].code, 'Compacted');
  const revs = w.events.map((e) => e.revision);
  t.ok(revs.length < 100, `${revs.length} events before the error`);
  t.same(revs, Array.from({ length: revs.length }, (_, i) => i + 1), 'no gap before the error');
});
