import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { sqliteMigrationProvider } from '../../migrations/sqlite';
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
  t.equal(parseStoreUrl('postgres://u@h:5432/db').dialect, 'postgres');
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
    ['current', 'log', 'log_key_id', 'meta'],
  );
  const currentSql = String(db.prepare("select sql from sqlite_master where name = 'current'").pluck().get());
  t.notMatch(currentSql, /without rowid/i, 'current is a rowid table: 1-4 KiB rows stay on their leaf page');
  const plan = db.prepare("explain query plan select count(*) from current where key >= 'a' and key < 'b'").all() as { detail: string }[];
  t.match(plan.map((r) => r.detail).join(';'), /COVERING INDEX/, 'counting a key range reads only the key index');
  t.same(db.prepare('select id, key, value, create_revision, prev_revision, op from log').all(), [
    { id: 1, key: '/a', value: '1', create_revision: 1, prev_revision: 0, op: 'create' },
  ]);
});

t.test('migration 0003 moves the rows of a WITHOUT ROWID current table into the rowid one', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-store-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'state.db');
  // a database as the first two migrations left it, with data
  const all = await sqliteMigrationProvider.getMigrations();
  const early = { '0001-revlog': all['0001-revlog'], '0002-current-key-index': all['0002-current-key-index'] };
  const conn = new Database(file);
  conn.pragma('journal_mode = WAL');
  const k = new Kysely<unknown>({ dialect: new SqliteDialect({ database: conn }) });
  const { error } = await new Migrator({ db: k, provider: { getMigrations: async () => early } }).migrateToLatest();
  t.error(error);
  conn.exec(`insert into log (id, key, value, create_revision, prev_revision, op) values (1, '/x/a', 'A', 1, 0, 'create'), (2, '/x/b', 'B', 2, 0, 'create'), (3, '/x/a', 'A2', 1, 1, 'update')`);
  conn.exec(`insert into current (key, value, mod_revision, create_revision) values ('/x/a', 'A2', 3, 1), ('/x/b', 'B', 2, 2)`);
  await k.destroy();

  const store = await openStore(file);
  t.teardown(() => store.close());
  const res = await store.list('/x/');
  t.same(res.items.map((kv) => [kv.key, kv.value, kv.modRevision, kv.createRevision]), [['/x/a', 'A2', 3, 1], ['/x/b', 'B', 2, 2]]);
  t.equal(res.revision, 3);
  const page = await store.list('/x/', { limit: 1 });
  t.equal(page.remaining, 1);
  const next = await store.update('/x/b', 'B2', 2);
  t.equal(next.modRevision, 4);
  t.equal((await store.get('/x/b'))?.value, 'B2');
});
