import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import type { Test } from 'tap';
import { Checkpointer } from '../../src/storage/sqlite/checkpointer';
import type { CheckpointResult } from '../../src/storage/sqlite/checkpointer';
import { tempDir } from './fixtures/temp-store';

const until = async (cond: () => boolean, ms = 10000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
};

/** a checkpointer every 20 ms that records its results and counts checkpoints run on this thread */
function checkpointer(t: Test, file: string) {
  const results: CheckpointResult[] = [];
  const inThread = { count: 0 };
  const cp = new Checkpointer({
    file,
    intervalMs: 20,
    journalSizeLimit: 1 << 20,
    onResult: (r) => results.push(r),
    inThread: () => (inThread.count++, { ok: true, onWorker: false }),
  });
  t.teardown(() => cp.close());
  return { cp, results, inThread };
}

t.test('the checkpointer copies the WAL into the database file on a worker thread', async (t) => {
  const file = path.join(tempDir(t), 'state.db');
  const db = new Database(file);
  t.teardown(() => db.close());
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table t (v text)');
  const insert = db.prepare('insert into t (v) values (?)');
  db.transaction(() => {
    for (let i = 0; i < 500; i++) insert.run('x'.repeat(4000));
  })();
  const before = fs.statSync(file).size;
  const { cp, results, inThread } = checkpointer(t, file);
  await until(() => results.length > 0);
  t.same(results[0], { ok: true, onWorker: true });
  t.equal(inThread.count, 0, 'nothing ran on this thread');
  t.ok(fs.statSync(file).size > before + 500 * 4000, 'the pages reached the database file');
  // writes go on while it keeps checkpointing
  insert.run('after');
  t.equal(db.prepare('select count(*) from t').pluck().get(), 501);
  await cp.close();
  const settled = results.length;
  await new Promise((r) => setTimeout(r, 60));
  t.equal(results.length, settled, 'no checkpoint after close');
});

t.test('a checkpoint that fails reports its error', async (t) => {
  const { cp, results, inThread } = checkpointer(t, path.join(tempDir(t), 'missing', 'state.db'));
  await until(() => results.length > 0);
  t.equal(results[0].ok, false);
  t.equal(results[0].onWorker, true);
  t.match(results[0].error?.message ?? '', /unable to open|does not exist|directory/i);
  await cp.close();
  t.equal(inThread.count, 0);
});
