/**
 * --storage-media-type across restarts of the real server on one data dir: objects written as
 * protobuf read back after a restart with JSON, and the other way round; the database holds the
 * form each server wrote.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { startApiServer, tempDir } from '../e2e/harness';

function storedValue(dataDir: string, key: string): string {
  const db = new Database(path.join(dataDir, 'state.db'), { readonly: true });
  try {
    return (db.prepare('SELECT value FROM current WHERE key = ?').get(key) as { value: string }).value;
  } finally {
    db.close();
  }
}

const json = { 'content-type': 'application/json' };

t.test('switching --storage-media-type between two starts on the same data dir', async (t) => {
  const dataDir = path.join(tempDir(t, 'media-type'), 'data');
  let server = await startApiServer(t, { dataDir, args: ['--storage-media-type', 'application/vnd.kubernetes.protobuf'] });
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pb' }, data: { greeting: 'written as protobuf' } };
  t.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify(cm), json)).status, 201);
  const deploy = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
  t.equal((await server.request('POST', '/apis/apps/v1/namespaces/default/deployments', JSON.stringify(deploy), json)).status, 201);
  await server.stop();
  t.match(storedValue(dataDir, '/registry/core/configmaps/default/pb'), /^k8s:pb:/, 'stored as protobuf');

  server = await startApiServer(t, { dataDir, args: ['--storage-media-type', 'application/json'] });
  const got = await server.request('GET', '/api/v1/namespaces/default/configmaps/pb');
  t.equal(got.status, 200);
  t.same(JSON.parse(got.body).data, { greeting: 'written as protobuf' }, 'a JSON server reads the protobuf value');
  const d = JSON.parse((await server.request('GET', '/apis/apps/v1/namespaces/default/deployments/web')).body);
  t.equal(d.spec.template.spec.containers[0].image, 'nginx');
  const cm2 = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' }, data: { greeting: 'written as JSON' } };
  t.equal((await server.request('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify(cm2), json)).status, 201);
  await server.stop();
  t.match(storedValue(dataDir, '/registry/core/configmaps/default/plain'), /^\{/, 'stored as JSON');

  server = await startApiServer(t, { dataDir, args: ['--storage-media-type', 'application/vnd.kubernetes.protobuf'] });
  const list = JSON.parse((await server.request('GET', '/api/v1/namespaces/default/configmaps')).body) as { items: { metadata: { name: string }; data?: Record<string, string> }[] };
  const byName = Object.fromEntries(list.items.map((i) => [i.metadata.name, i.data?.greeting]));
  t.equal(byName.pb, 'written as protobuf');
  t.equal(byName.plain, 'written as JSON', 'a protobuf server reads the JSON value');
  await server.stop();
});
