import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openSqliteConnections } from '../../src/storage/sqlite/sqlite-connections';
import { SqliteStore } from '../../src/storage/sqlite/sqlite-store';
import { tempDir, tempSqliteStore } from './fixtures/temp-store';

t.test('group commit: 200 concurrent creates commit in a few transactions', async (t) => {
  const { store } = await tempSqliteStore(t);
  const before = store.stats();
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => store.create(`/g/${i}`, 'v')));
  const after = store.stats();
  t.equal(after.operations - before.operations, 200);
  t.ok(after.transactions - before.transactions <= 3, `${after.transactions - before.transactions} transactions`);
  t.equal(after.largestBatch, 200);
  t.same(
    results.map((kv) => kv.modRevision),
    Array.from({ length: 200 }, (_, i) => i + 1),
    'revisions in submission order',
  );
  // one at a time: one transaction each
  await store.create('/g/x', 'v');
  await store.create('/g/y', 'v');
  t.equal(store.stats().transactions - after.transactions, 2);
});

t.test('a failing operation fails alone; the rest of its batch commits', async (t) => {
  const { store } = await tempSqliteStore(t);
  await store.create('/g/taken', 'v');
  const tx = store.stats().transactions;
  const settled = await Promise.allSettled([store.create('/g/a', '1'), store.create('/g/taken', '2'), store.create('/g/b', '3')]);
  t.same(
    settled.map((s) => s.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.equal(store.stats().transactions - tx, 1, 'one transaction');
  t.equal(await store.count('/g/'), 3);
});

t.test('compaction runs in small transactions interleaved with writes', async (t) => {
  const { store } = await tempSqliteStore(t, { compactBatchSize: 50 });
  for (let round = 0; round < 5; round++) {
    await Promise.all(Array.from({ length: 100 }, (_, i) => (round === 0 ? store.create(`/b/${i}`, 'v0') : store.update(`/b/${i}`, `v${round}`))));
  }
  const rev = store.currentRevision();
  t.equal(rev, 500);
  const tx = store.stats().transactions;
  const started = Date.now();
  const finished: string[] = [];
  const compaction = store.compact(rev).then((n) => {
    finished.push('compaction');
    return n;
  });
  // a write submitted after compaction started commits between its batches, not after all of them
  await new Promise((r) => setImmediate(r));
  await store.update('/b/0', 'during').then(() => finished.push('write'));
  const removed = await compaction;
  const ms = Date.now() - started;
  t.equal(removed, 400, 'every superseded row');
  const batches = store.stats().transactions - tx - 1;
  t.ok(batches >= 10, `${batches} compaction transactions (500 ids / 50 per batch), vacuum steps included`);
  t.same(finished, ['write', 'compaction'], 'the write did not wait for the whole compaction');
  t.comment(`compaction of 500 revisions in ${batches} transactions: ${ms} ms`);
  t.equal((await store.get('/b/0'))?.value, 'during');
  t.same((await store.list('/b/', { revision: rev, limit: 2 })).items.map((kv) => kv.value), ['v4', 'v4']);
});

t.test('compaction gives the freed pages back (incremental vacuum)', async (t) => {
  const { store, file } = await tempSqliteStore(t);
  const big = 'x'.repeat(4000);
  for (let round = 0; round < 4; round++) {
    await Promise.all(Array.from({ length: 100 }, (_, i) => (round === 0 ? store.create(`/v/${i}`, big) : store.update(`/v/${i}`, big + round))));
  }
  await Promise.all(Array.from({ length: 100 }, (_, i) => store.delete(`/v/${i}`)));
  const Database = (await import('better-sqlite3')).default;
  const pages = () => {
    const db = new Database(file, { readonly: true });
    try {
      return Number(db.pragma('page_count', { simple: true }));
    } finally {
      db.close();
    }
  };
  const before = pages();
  t.equal(await store.compact(store.currentRevision()), 500);
  const after = pages();
  t.ok(after < before / 4, `pages ${before} -> ${after}`);
});

t.test('a transaction that fails as a whole fails its batch (SQLITE_FULL: Unwritable) and uses no revision', async (t) => {
  const file = path.join(tempDir(t), 'state.db');
  const { writer, reader } = await openSqliteConnections(file, { synchronous: 'FULL' });
  const store = new SqliteStore({ writer, reader });
  t.teardown(() => store.close());
  await store.create('/u/a', 'small');
  // a file that cannot grow: the next large write gets SQLITE_FULL in the middle of the batch
  const pages = Number(writer.pragma('page_count', { simple: true }));
  writer.pragma(`max_page_count = ${pages + 2}`);
  const big = 'x'.repeat(64 * 1024);
  const settled = await Promise.allSettled([store.create('/u/b', 'fits'), store.create('/u/c', big)]);
  t.same(
    settled.map((s) => (s.status === 'rejected' ? (s.reason as { code: string }).code : 'ok')),
    ['Unwritable', 'Unwritable'],
    'the whole batch was rolled back',
  );
  t.equal(store.currentRevision(), 1);
  t.equal(await store.get('/u/b'), undefined);
  writer.pragma('max_page_count = 1073741823');
  const next = await store.create('/u/c', big);
  t.equal(next.modRevision, 2, 'the next revision follows without a gap');
});

t.test('WAL checkpoints run on the timer, not in the commit path', async (t) => {
  const big = 'x'.repeat(4000);
  const fill = async (store: SqliteStore) => {
    await Promise.all(Array.from({ length: 100 }, (_, i) => store.create(`/w/${i}`, big)));
  };
  const off = await tempSqliteStore(t, { checkpointIntervalMs: 0 });
  const offStart = fs.statSync(off.file).size;
  await fill(off.store);
  await new Promise((r) => setTimeout(r, 150));
  t.equal(fs.statSync(off.file).size, offStart, 'without the timer the pages stay in the WAL');

  const on = await tempSqliteStore(t, { checkpointIntervalMs: 300 });
  const onStart = fs.statSync(on.file).size;
  await fill(on.store);
  t.equal(fs.statSync(on.file).size, onStart, 'the commit itself did not checkpoint');
  const until = Date.now() + 5000;
  while (fs.statSync(on.file).size <= onStart + 100 * 4000 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  t.ok(fs.statSync(on.file).size > onStart + 100 * 4000, 'the timer copied the pages into the database file');
});
