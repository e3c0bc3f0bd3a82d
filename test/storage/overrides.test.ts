import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { lockStores, openStores, storeUrls } from '../../src/storage/open';
import { parseServersOverrides } from '../../src/storage/servers-overrides';
import { RoutingStore } from '../../src/storage/routing-store';
import { StoreInUseError } from '../../src/storage/store-lock';
import type { Store } from '../../src/storage/store';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';
import { Scheme } from '../../src/api/scheme';
import { builtinKinds } from '../../src/api/kinds';
import { definitions } from '../../src/schema';
import { createRegistry } from '../../src/api/registry';
import { CollectingSink } from '../helpers/registry-fixture';
import { postgresSkipReason, startPostgres } from '../helpers/postgres';

const parse = (...args: string[]) => parseOptions(apiServerOptionGroups, args);

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-overrides-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('entries: group/resource#url, the core group empty, comma-separated or repeated', async (t) => {
  t.same(parseServersOverrides(['/events#sqlite:///tmp/e.db']), [
    { group: '', resource: 'events', url: 'sqlite:///tmp/e.db', keyPrefix: '/registry/core/events/' },
  ]);
  t.same(parseServersOverrides(['coordination.k8s.io/leases#sqlite:///tmp/l.db;sqlite:///tmp/l.db'])[0].keyPrefix, '/registry/coordination.k8s.io/leases/');
  const c = apiServerConfig(parse('--data-dir=/x', '--etcd-servers-overrides=/events#sqlite:///tmp/e.db,apps/deployments#/tmp/d.db', '--etcd-servers-overrides=/pods#sqlite:///tmp/p.db'));
  t.same(c.storage.overrides.map((o) => `${o.group}/${o.resource} ${o.url}`), ['/events sqlite:///tmp/e.db', 'apps/deployments /tmp/d.db', '/pods sqlite:///tmp/p.db']);
  t.same(apiServerConfig(parse('--data-dir=/x')).storage.overrides, []);
});

t.test('bad entries are one-line flag errors', async (t) => {
  const format = /invalid argument "[^"]*" for "--etcd-servers-overrides" flag: invalid entry "[^"]*", must be of format: group\/resource#servers, where servers are URLs, semicolon separated$/;
  t.throws(() => parse('--etcd-servers-overrides=/events'), { message: format }, 'no #');
  t.throws(() => parse('--etcd-servers-overrides=events#sqlite:///e.db'), { message: format }, 'no group/');
  t.throws(() => parse('--etcd-servers-overrides=/events#a#b'), { message: format }, 'two #');
  t.throws(() => parse('--etcd-servers-overrides=/events#'), { message: format }, 'no URL');
  t.throws(() => parse('--etcd-servers-overrides=/events#mysql://db/x'), { message: /storage URL mysql:\/\/db\/x: unknown scheme "mysql"/ });
  t.throws(() => parse('--etcd-servers-overrides=/events#sqlite:///a.db;sqlite:///b.db'), { message: /names 2 servers; a resource is kept in one storage URL/ });
  for (const bad of ['/events', '/events#mysql://db/x']) {
    try {
      parse(`--etcd-servers-overrides=${bad}`);
    } catch (err) {
      t.notOk((err as Error).message.includes('\n'), 'one line');
    }
  }
});

t.test('--storage-backend takes etcd3 or nothing', async (t) => {
  t.doesNotThrow(() => parse('--storage-backend=etcd3'));
  t.doesNotThrow(() => parse('--storage-backend='));
  t.throws(() => parse('--storage-backend=etcd2'), { message: `invalid argument "etcd2" for "--storage-backend" flag: allowed values: etcd3. If not specified, it will default to 'etcd3'` });
});

t.test('routing: each store keeps its resources and its own revisions; one lock per database', async (t) => {
  const dir = tempDir(t);
  const main = `sqlite://${path.join(dir, 'state.db')}`;
  const overrides = parseServersOverrides([`/events#sqlite://${path.join(dir, 'events.db')}`, `coordination.k8s.io/leases#sqlite://${path.join(dir, 'events.db')}`]);
  t.same(storeUrls(main, overrides), [main, `sqlite://${path.join(dir, 'events.db')}`], 'resources sharing a URL share a database');
  const lock = lockStores(storeUrls(main, overrides), { dataDir: dir });
  t.teardown(() => lock.release());
  t.throws(() => lockStores([`sqlite://${path.join(dir, 'other.db')}`, `sqlite://${path.join(dir, 'events.db')}`]), StoreInUseError, 'the override database is locked too');
  t.doesNotThrow(() => lockStores([`sqlite://${path.join(dir, 'other.db')}`]).release(), 'a failed lockStores released what it took');

  const { store, databases } = await openStores({ url: main, overrides, prefix: '/other', synchronous: 'NORMAL' });
  t.teardown(() => store.close());
  t.ok(store instanceof RoutingStore);
  t.equal(databases.length, 2);
  const [primary, events] = databases.map((d) => d.store);
  await store.create('/registry/core/configmaps/default/a', '{}');
  await store.create('/registry/core/configmaps/default/b', '{}');
  const ev = await store.create('/registry/core/events/default/e1', '{}');
  t.equal(ev.modRevision, 1, 'the events store counts its own revisions');
  await store.create('/registry/coordination.k8s.io/leases/kube-system/l', '{}');
  t.equal(primary.currentRevision(), 2);
  t.equal(events.currentRevision(), 2);
  t.equal(await primary.get('/registry/core/events/default/e1'), undefined, 'not in the default database');
  t.ok(await events.get('/registry/core/events/default/e1'));
  t.same((await store.list('/registry/core/events/')).items.map((kv) => kv.key), ['/registry/core/events/default/e1']);
  t.equal(await store.count('/registry/core/configmaps/'), 2);
  t.equal((store as Store).storeFor?.('/registry/core/events/default/'), events);
  t.equal((store as Store).storeFor?.('/registry/core/pods/'), primary);
  await store.ping();
  await store.writable?.();
});

t.test('the registry serves an overridden resource with its store\'s resourceVersions, lists and watches', async (t) => {
  const dir = tempDir(t);
  const overrides = parseServersOverrides([`/events#sqlite://${path.join(dir, 'events.db')}`]);
  const { store, databases } = await openStores({ url: `sqlite://${path.join(dir, 'state.db')}`, overrides, synchronous: 'NORMAL' });
  const scheme = new Scheme(builtinKinds());
  const registry = createRegistry({ store, scheme, definitions, freshnessWaitMs: 200, bookmarkIntervalMs: 50 });
  t.teardown(async () => {
    await registry.close();
    await store.close();
  });
  await registry.bootstrap();
  const primaryRevision = databases[0].store.currentRevision();
  t.ok(primaryRevision > 0, 'the system namespaces went to the default store');
  const events = { kind: scheme.byResource('', 'v1', 'events')!, namespace: 'default' };
  const sink = new CollectingSink();
  // a watch without resourceVersion starts at the events store's newest revision, not the default store's
  const handle = await registry.watch(events, {}, sink);
  t.teardown(() => handle.cancel());
  const created = await registry.create(events, {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' },
    involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'Tested', message: 'hello', type: 'Normal',
  }, { dryRun: false });
  t.equal(created.object.metadata!.resourceVersion, '1', 'the first revision of the events store');
  const listed = await registry.list(events, {});
  t.equal(listed.metadata.resourceVersion, '1');
  t.same(listed.items.map((i) => i.metadata!.name), ['e1']);
  const exact = await registry.list(events, { resourceVersion: '1', resourceVersionMatch: 'Exact' });
  t.equal(exact.items.length, 1, 'Exact reads use the events store\'s revisions');
  t.equal((await registry.get({ ...events, name: 'e1' }, { resourceVersion: '1' })).metadata!.name, 'e1');
  await sink.waitFor((evs) => evs.some((e) => e.type === 'ADDED'));
  t.same(sink.events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${(e.object as { metadata: { name: string } }).metadata.name}`), ['ADDED e1']);
  t.equal(databases[0].store.currentRevision(), primaryRevision, 'nothing written to the default store');
  // configmaps keep the default store's revisions
  const cm = await registry.create({ kind: scheme.byResource('', 'v1', 'configmaps')!, namespace: 'default' }, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }, { dryRun: false });
  t.equal(cm.object.metadata!.resourceVersion, String(primaryRevision + 1));
});

t.test('PostgreSQL for everything but events, which stay on SQLite', { skip: postgresSkipReason() }, async (t) => {
  const pg = await startPostgres();
  t.teardown(() => pg.stop());
  const dir = tempDir(t);
  const eventsUrl = `sqlite://${path.join(dir, 'events.db')}`;
  const overrides = parseServersOverrides([`/events#${eventsUrl}`]);
  t.same(storeUrls(pg.url, overrides), [pg.url, eventsUrl]);
  const lock = lockStores(storeUrls(pg.url, overrides), { dataDir: dir });
  t.teardown(() => lock.release());
  t.doesNotThrow(() => lockStores([pg.url]).release(), 'a PostgreSQL database is shared: its lock holds nothing');
  t.throws(() => lockStores([eventsUrl]), StoreInUseError, 'the SQLite events database is locked');
  const { store, databases } = await openStores({ url: pg.url, overrides, synchronous: 'NORMAL' });
  t.teardown(() => store.close());
  t.same(
    databases.map((d) => [d.id, d.file]),
    [
      [`postgres://postgres@127.0.0.1:${pg.port}/ballast`, undefined],
      [path.join(dir, 'events.db'), path.join(dir, 'events.db')],
    ],
  );
  await store.create('/registry/core/configmaps/default/a', '{}');
  const ev = await store.create('/registry/core/events/default/e1', '{}');
  t.equal(ev.modRevision, 1);
  t.equal(databases[0].store.currentRevision(), 1);
  t.ok(await databases[1].store.get('/registry/core/events/default/e1'));
  t.equal(await databases[0].store.get('/registry/core/events/default/e1'), undefined, 'no event in PostgreSQL');
  t.same((await store.list('/registry/core/')).items.map((kv) => kv.key), ['/registry/core/configmaps/default/a']);
});
