import fs from 'node:fs';
import t from 'tap';
import { ApiServerMetrics } from '../../src/metrics/apiserver-metrics';
import { filesSize, sqliteFiles, startStoragePollers } from '../../src/metrics/storage-pollers';
import { TimedStore, resourceOfKey } from '../../src/metrics/timed-store';
import { tempSqliteStore } from '../storage/fixtures/temp-store';
import { storedResources } from '../../src/metrics/stored-resources';

async function gauge(metrics: ApiServerMetrics, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const m = await metrics.registry.getSingleMetric(name)!.get();
  return m.values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))?.value;
}

const resources = () => [
  { resource: 'configmaps', prefix: '/registry/core/configmaps/' },
  { resource: 'deployments.apps', prefix: '/registry/apps/deployments/' },
];

t.test('object counts per resource, refreshed every period', async (t) => {
  const { store, file } = await tempSqliteStore(t);
  const metrics = new ApiServerMetrics({ defaultCollectors: false });
  for (let i = 0; i < 3; i++) await store.create(`/registry/core/configmaps/default/c${i}`, '{}');
  await store.create('/registry/apps/deployments/default/d', '{}');
  const pollers = startStoragePollers({ store, metrics, resources, countPeriodMs: 50, dbIntervalMs: 0, dbFiles: sqliteFiles(file), endpoint: 'sqlite://x' });
  t.teardown(() => pollers.stop());
  await pollers.pollNow();
  t.equal(await gauge(metrics, 'apiserver_storage_objects', { resource: 'configmaps' }), 3);
  t.equal(await gauge(metrics, 'apiserver_storage_objects', { resource: 'deployments.apps' }), 1);
  await store.create('/registry/core/configmaps/other/c', '{}');
  await new Promise((r) => setTimeout(r, 150));
  t.equal(await gauge(metrics, 'apiserver_storage_objects', { resource: 'configmaps' }), 4, 'the timer refreshed the count');
  t.equal(await gauge(metrics, 'apiserver_storage_db_total_size_in_bytes', { endpoint: 'sqlite://x' }), undefined, 'an interval of 0 turns the size off');
});

t.test('database size: the SQLite file plus its WAL, under both names', async (t) => {
  const { store, file } = await tempSqliteStore(t);
  const metrics = new ApiServerMetrics({ defaultCollectors: false });
  const pollers = startStoragePollers({ store, metrics, resources, countPeriodMs: 0, dbIntervalMs: 50, dbFiles: sqliteFiles(file), endpoint: `sqlite://${file}` });
  t.teardown(() => pollers.stop());
  const first = (await gauge(metrics, 'apiserver_storage_db_total_size_in_bytes', { endpoint: `sqlite://${file}` })) ?? 0;
  t.ok(first > 0, 'measured at start');
  const expected = fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
  t.equal(first, expected);
  for (let i = 0; i < 50; i++) await store.create(`/registry/core/configmaps/default/big${i}`, 'x'.repeat(4000));
  await new Promise((r) => setTimeout(r, 150));
  const later = (await gauge(metrics, 'apiserver_storage_db_total_size_in_bytes', { endpoint: `sqlite://${file}` })) ?? 0;
  t.ok(later > first, `grows with the data (${first} -> ${later})`);
  t.equal(await gauge(metrics, 'etcd_db_total_size_in_bytes', { endpoint: `sqlite://${file}` }), later, "kube 1.20's name carries the same figure");
  t.equal(await gauge(metrics, 'apiserver_storage_objects', { resource: 'configmaps' }), undefined, 'a period of 0 turns counts off');
  t.equal(filesSize(['/nonexistent/file']), 0);
});

t.test('etcd_request_duration_seconds times each store call by operation and resource', async (t) => {
  const { store: inner } = await tempSqliteStore(t);
  const metrics = new ApiServerMetrics({ defaultCollectors: false });
  const store = new TimedStore(inner, metrics);
  await store.create('/registry/apps/deployments/default/d', '{}');
  await store.get('/registry/apps/deployments/default/d');
  await store.get('/registry/apps/deployments/default/d');
  await store.list('/registry/core/configmaps/');
  t.equal(await gauge(metrics, 'etcd_request_duration_seconds', { operation: 'get', type: 'deployments.apps', le: '+Inf' }), 2);
  t.equal(await gauge(metrics, 'etcd_request_duration_seconds', { operation: 'create', type: 'deployments.apps', le: '+Inf' }), 1);
  t.equal(await gauge(metrics, 'etcd_request_duration_seconds', { operation: 'list', type: 'configmaps', le: '+Inf' }), 1);
  t.equal(resourceOfKey('/other'), 'unknown');
});

t.test('stored resources: one per storage location, kinds without storage left out', async (t) => {
  const k = (group: string, version: string, resource: string) => ({ group, version, resource, storage: { group, resource } }) as never;
  const out = storedResources([k('', 'v1', 'configmaps'), k('batch', 'v1', 'cronjobs'), k('batch', 'v1beta1', 'cronjobs'), k('', 'v1', 'componentstatuses')], new Set(['/componentstatuses']));
  t.same(out, [
    { resource: 'configmaps', prefix: '/registry/core/configmaps/' },
    { resource: 'cronjobs.batch', prefix: '/registry/batch/cronjobs/' },
  ]);
});
