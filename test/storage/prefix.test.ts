import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import Database from 'better-sqlite3';
import { openStores } from '../../src/storage/open';
import { normalizeStoragePrefix } from '../../src/storage/prefixed-store';
import type { StoreEvent } from '../../src/storage/store';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';

const parse = (...args: string[]) => parseOptions(apiServerOptionGroups, args);

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-prefix-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function storedKeys(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT key FROM log ORDER BY id').all() as Array<{ key: string }>).map((r) => r.key);
  } finally {
    db.close();
  }
}

t.test('--etcd-prefix is normalised as kube joins it onto /', async (t) => {
  t.equal(normalizeStoragePrefix('/registry'), '/registry');
  t.equal(normalizeStoragePrefix('other'), '/other');
  t.equal(normalizeStoragePrefix('/other/'), '/other');
  t.equal(normalizeStoragePrefix('/a//b/'), '/a/b');
  t.equal(normalizeStoragePrefix('/'), '');
  t.equal(apiServerConfig(parse('--data-dir=/x')).storage.prefix, '/registry', 'default /registry');
  t.equal(apiServerConfig(parse('--data-dir=/x', '--etcd-prefix=other/')).storage.prefix, '/other');
});

t.test('the API keys are stored under the prefix and read back under /registry', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'state.db');
  const { store } = await openStores({ url: `sqlite://${file}`, prefix: '/other', synchronous: 'NORMAL' });
  let closed = false;
  t.teardown(() => (closed ? undefined : store.close()));
  const events: StoreEvent[] = [];
  const w = store.watch({ afterRevision: 0, prefix: '/registry/core/configmaps/', onEvent: (e) => events.push(e), onError: () => undefined });
  const a = await store.create('/registry/core/configmaps/default/a', '{"a":1}');
  t.equal(a.key, '/registry/core/configmaps/default/a');
  await store.create('/registry/core/configmaps/default/b', '{"b":1}');
  await store.create('/registry/apps/deployments/default/web', '{}');
  t.equal((await store.get('/registry/core/configmaps/default/a'))?.value, '{"a":1}');
  const page = await store.list('/registry/core/configmaps/', { limit: 1 });
  t.same(page.items.map((kv) => kv.key), ['/registry/core/configmaps/default/a']);
  t.equal(page.more, true);
  const rest = await store.list('/registry/core/configmaps/', { startKey: `${page.items[0].key}\u0000`, revision: page.revision });
  t.same(rest.items.map((kv) => kv.key), ['/registry/core/configmaps/default/b'], 'continue positions are translated');
  t.equal(await store.count('/registry/core/configmaps/'), 2);
  await store.update('/registry/core/configmaps/default/a', '{"a":2}');
  await store.delete('/registry/core/configmaps/default/b');
  await t.rejects(store.create('/registry/core/configmaps/default/a', '{}'), { code: 'Exists', key: '/registry/core/configmaps/default/a' }, 'errors name the API key');
  await store.waitForRevision(store.currentRevision(), 1000);
  await new Promise((r) => setTimeout(r, 50));
  w.cancel();
  t.same(events.map((e) => `${e.type} ${e.key}`), [
    'ADDED /registry/core/configmaps/default/a',
    'ADDED /registry/core/configmaps/default/b',
    'MODIFIED /registry/core/configmaps/default/a',
    'DELETED /registry/core/configmaps/default/b',
  ], 'watch events carry API keys');
  await store.close();
  closed = true;
  const keys = storedKeys(file);
  t.ok(keys.length >= 5);
  t.ok(keys.every((k) => k.startsWith('/other/')), `every stored key is under /other: ${keys.join(', ')}`);
  t.notOk(keys.some((k) => k.startsWith('/registry')));
});

t.test('the default prefix stores keys as they are', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'state.db');
  const { store } = await openStores({ url: `sqlite://${file}`, prefix: '/registry', synchronous: 'NORMAL' });
  await store.create('/registry/core/configmaps/default/a', '{}');
  await store.close();
  t.same(storedKeys(file), ['/registry/core/configmaps/default/a']);
});
