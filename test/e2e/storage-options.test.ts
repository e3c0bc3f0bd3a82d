/**
 * The storage options on the real binary: --etcd-prefix (keys in the database), --etcd-servers-overrides
 * (events in their own SQLite file, watched, kept over a restart), --event-ttl (events go, watchers see
 * DELETED), --delete-collection-workers, --etcd-healthcheck-timeout, and the start-up flag errors.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import t from 'tap';
import Database from 'better-sqlite3';
import { MAIN_JS, kubectlFor, missingKubectl, startApiServer, tempDir, waitFor } from './harness';
import type { ApiServerProcess } from './harness';

const skip = fs.existsSync(MAIN_JS) ? (missingKubectl('1.32') ?? false) : 'run make build first';

function keysIn(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT DISTINCT key FROM log').all() as Array<{ key: string }>).map((r) => r.key);
  } finally {
    db.close();
  }
}

/** a watch over HTTPS as the admin: `TYPE name` per event */
function watchNames(t: Parameters<Parameters<typeof t.test>[1]>[0], server: ApiServerProcess, urlPath: string): string[] {
  const pki = path.join(server.dataDir, 'pki');
  const seen: string[] = [];
  let partial = '';
  const req = https.get(`${server.url}${urlPath}`, {
    ca: fs.readFileSync(path.join(pki, 'ca.crt')), cert: fs.readFileSync(path.join(pki, 'admin.crt')), key: fs.readFileSync(path.join(pki, 'admin.key')),
  }, (res) => {
    res.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.trim() !== '')) {
        const ev = JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } };
        seen.push(`${ev.type} ${ev.object.metadata?.name}`);
      }
    });
  });
  req.on('error', () => undefined);
  t.teardown(() => req.destroy());
  return seen;
}

const event = (name: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' },
  involvedObject: { kind: 'ConfigMap', name: 'c1', namespace: 'default', apiVersion: 'v1' },
  reason: 'Tested', message: `event ${name}`, type: 'Normal', firstTimestamp: new Date().toISOString(), lastTimestamp: new Date().toISOString(),
});

function runApiServer(args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--bind-address', '127.0.0.1', ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stderr: r.stderr };
}

t.test('bad storage flags stop start-up with one line', { skip }, async (t) => {
  const dir = tempDir(t, 'flags');
  for (const [args, message] of [
    [['--etcd-servers-overrides=/events'], /^Error: invalid argument "\/events" for "--etcd-servers-overrides" flag: invalid entry "\/events", must be of format: group\/resource#servers/],
    [['--etcd-servers-overrides=/events#redis://x'], /unknown scheme "redis"/],
    [['--storage-backend=etcd2'], /^Error: invalid argument "etcd2" for "--storage-backend" flag: allowed values: etcd3/],
    [[`--etcd-cafile=${path.join(dir, 'nope.crt')}`], new RegExp(`^Error: --etcd-cafile ${path.join(dir, 'nope.crt')}: no such file or directory$`)],
  ] as Array<[string[], RegExp]>) {
    const r = runApiServer(['--data-dir', dir, ...args]);
    t.equal(r.code, 1, args.join(' '));
    // flag errors are followed by the usage hint, as kube's are
    const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith("Run 'ballast apiserver --help'"));
    t.equal(lines.length, 1, `one line: ${r.stderr}`);
    t.match(lines[0], message);
  }
});

t.test('prefix, events in their own store, event TTL, delete-collection workers, restart', { skip }, async (t) => {
  const dataDir = tempDir(t, 'data');
  const eventsDb = path.join(dataDir, 'events.db');
  const stateDb = path.join(dataDir, 'state.db');
  const args = ['--etcd-prefix=/other', `--etcd-servers-overrides=/events#sqlite://${eventsDb}`, '--event-ttl=3s', '--delete-collection-workers=3', '--etcd-healthcheck-timeout=1s'];
  let server = await startApiServer(t, { dataDir, args });
  const kubectl = kubectlFor(t, '1.32', server);

  const cmWatch = watchNames(t, server, '/api/v1/namespaces/default/configmaps?watch=1');
  const evWatch = watchNames(t, server, '/api/v1/namespaces/default/events?watch=1');
  await kubectl.ok(['create', 'configmap', 'c1', '--from-literal=k=v']);
  await kubectl.ok(['create', '-f', '-'], event('e1'));
  const created = Date.now();
  const e1 = JSON.parse((await server.request('GET', '/api/v1/namespaces/default/events/e1')).body) as { metadata: { resourceVersion: string } };
  t.equal(e1.metadata.resourceVersion, '1', 'the events store counts its own revisions');
  await waitFor('the ADDED events of both watches', () => cmWatch.includes('ADDED c1') && evWatch.includes('ADDED e1'), 10_000);

  const stateKeys = keysIn(stateDb);
  const eventKeys = keysIn(eventsDb);
  t.ok(stateKeys.includes('/other/core/configmaps/default/c1'), 'the configmap is in the default database');
  t.ok(stateKeys.every((k) => k.startsWith('/other/')), 'every key of the default database is under --etcd-prefix');
  t.notOk(stateKeys.some((k) => k.includes('/events/')), 'no event in the default database');
  t.same(eventKeys, ['/other/core/events/default/e1'], 'the event is in the events database, under the prefix');
  t.equal((await server.request('GET', '/healthz/etcd')).status, 200);
  const metrics = (await server.request('GET', '/metrics')).body;
  t.match(metrics, `apiserver_storage_db_total_size_in_bytes{endpoint="sqlite://${eventsDb}"}`, 'the size of each database');

  // --event-ttl=3s: gone within the TTL plus a sweep (1 s) and some slack; the watch sees DELETED
  await waitFor('e1 to expire', () => evWatch.includes('DELETED e1'), 15_000);
  const lived = Date.now() - created;
  // 3 s plus up to a sweep interval (1 s); generous above for loaded machines
  t.ok(lived >= 2000 && lived < 15_000, `e1 lived ${lived} ms`);
  t.equal((await server.request('GET', '/api/v1/namespaces/default/events/e1')).status, 404);
  t.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/c1')).status, 200, 'configmaps do not expire');

  // deletecollection with 3 workers deletes every object and lists them
  for (let i = 0; i < 7; i++) await kubectl.ok(['create', 'configmap', `bulk-${i}`, '--from-literal=k=v']);
  const del = await server.request('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=');
  t.equal(del.status, 200);
  t.equal((JSON.parse(del.body) as { items: unknown[] }).items.length, 8);
  t.equal((JSON.parse((await server.request('GET', '/api/v1/namespaces/default/configmaps')).body) as { items: unknown[] }).items.length, 0);

  // restart: both databases are reopened (and locked); an event written before the stop still expires
  await kubectl.ok(['create', 'configmap', 'c2', '--from-literal=k=v']);
  await kubectl.ok(['create', '-f', '-'], event('e2'));
  const e2Created = Date.now();
  const e2 = JSON.parse((await server.request('GET', '/api/v1/namespaces/default/events/e2')).body) as { metadata: { resourceVersion: string } };
  t.same(await server.stop(), { code: 0, signal: null });
  server = await startApiServer(t, { dataDir, args });
  t.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps/c2')).status, 200, 'the configmap survived');
  const e2After = await server.request('GET', '/api/v1/namespaces/default/events/e2');
  if (e2After.status === 200) {
    t.equal((JSON.parse(e2After.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, e2.metadata.resourceVersion, 'the event survived');
    await waitFor('e2 to expire after the restart', async () => (await server.request('GET', '/api/v1/namespaces/default/events/e2')).status === 404, 15_000);
  }
  t.comment(`e2 was gone ${Date.now() - e2Created} ms after it was written`);
  await server.request('POST', '/api/v1/namespaces/default/events', event('e3'), { 'Content-Type': 'application/json' });
  const e3 = JSON.parse((await server.request('GET', '/api/v1/namespaces/default/events/e3')).body) as { metadata: { resourceVersion: string } };
  t.ok(Number(e3.metadata.resourceVersion) > Number(e2.metadata.resourceVersion), 'the events store goes on from its own revision');
  t.ok(Number(e3.metadata.resourceVersion) < 10, `events revisions stay the events store's (${e3.metadata.resourceVersion})`);
});
