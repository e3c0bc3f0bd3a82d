/**
 * kill -9 right after acknowledged creates loses none of them: a restart on the same data dir
 * lists every object whose create was answered 201.
 */
import t from 'tap';
import { MAIN_JS, startApiServer } from './harness';
import fs from 'node:fs';

const skip = fs.existsSync(MAIN_JS) ? false : 'run make build first';

t.test('acknowledged creates survive SIGKILL', { skip }, async (t) => {
  const server = await startApiServer(t);
  const ns = 'durable';
  const nsRes = await server.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }), {
    'Content-Type': 'application/json',
  });
  t.equal(nsRes.status, 201, nsRes.body);

  // Fire creates concurrently, as a busy client would, and remember which were acknowledged.
  const names = Array.from({ length: 40 }, (_, i) => `item-${String(i).padStart(2, '0')}`);
  const results = await Promise.all(
    names.map((name) =>
      server.request('POST', `/api/v1/namespaces/${ns}/configmaps`, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { name } }), {
        'Content-Type': 'application/json',
      }),
    ),
  );
  const acknowledged = names.filter((_, i) => results[i].status === 201);
  t.equal(acknowledged.length, names.length, 'every create was acknowledged');

  const exit = await server.stop('SIGKILL');
  t.equal(exit.signal, 'SIGKILL');

  const restarted = await startApiServer(t, { dataDir: server.dataDir });
  const list = await restarted.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
  t.equal(list.status, 200);
  const items = (JSON.parse(list.body) as { items: { metadata: { name: string }; data: { name: string } }[] }).items;
  const found = new Set(items.map((i) => i.metadata.name));
  t.same(acknowledged.filter((n) => !found.has(n)), [], 'no acknowledged create was lost');
  t.ok(items.every((i) => i.data.name === i.metadata.name), 'their contents are intact');
});
