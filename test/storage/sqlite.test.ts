import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { openStore, parseStoreUrl } from '../../src/storage/open';
import { runStoreContract } from './store-contract';

t.test('SQLite store contract', async (t) => {
  runStoreContract(t, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-store-'));
    const store = await openStore(`sqlite://${dir}/state.db`);
    return {
      store,
      async cleanup() {
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
});

t.test('storage URLs', async (t) => {
  t.same(parseStoreUrl('sqlite:///var/lib/ballast/state.db'), { dialect: 'sqlite', file: '/var/lib/ballast/state.db' });
  t.same(parseStoreUrl('sqlite://data/state.db'), { dialect: 'sqlite', file: path.resolve('data/state.db') });
  t.same(parseStoreUrl('/tmp/x.db'), { dialect: 'sqlite', file: '/tmp/x.db' });
  t.same(parseStoreUrl('rel.db'), { dialect: 'sqlite', file: path.resolve('rel.db') });
  t.throws(() => parseStoreUrl('postgres://u@h:5432/db'), /PostgreSQL storage is not available yet/);
  t.throws(() => parseStoreUrl('etcd://127.0.0.1:2379'), /unknown scheme "etcd"/);
  t.throws(() => parseStoreUrl('sqlite://'), /names no file/);
  await t.rejects(openStore('mysql://h/db'), /unknown scheme "mysql"/);
});

t.test('a new file: WAL, incremental auto-vacuum, the schema, missing directories created', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-store-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'nested', 'state.db');
  const store = await openStore(file);
  await store.create('/a', '1');
  await store.close();
  const db = new Database(file, { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(db.pragma('auto_vacuum', { simple: true }), 2, 'INCREMENTAL');
  const tables = db.prepare("select name from sqlite_master where type in ('table', 'index') order by name").pluck().all();
  t.same(
    tables.filter((n) => !String(n).startsWith('kysely_') && !String(n).startsWith('sqlite_')),
    ['current', 'current_key', 'log', 'log_key_id', 'meta'],
  );
  t.same(db.prepare('select id, key, value, create_revision, prev_revision, op from log').all(), [
    { id: 1, key: '/a', value: '1', create_revision: 1, prev_revision: 0, op: 'create' },
  ]);
});
