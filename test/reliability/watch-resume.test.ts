/**
 * A watch the registry serves from the store (a resourceVersion older than the watch cache holds, e.g.
 * a watch resumed after a restart) with no selector must report updates as MODIFIED. The crash tool's
 * resumed-watch check found them delivered as ADDED; fixed in src/api/registry/watch.ts (89083f4).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BallastServer, MAIN_JS } from './lib/server';
import { openWatch } from './lib/watch';

t.test('a watch resumed after a restart reports updates as MODIFIED', { skip: fs.existsSync(MAIN_JS) ? false : 'run make build first' }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-resume-'));
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const server = await BallastServer.start({ dataDir });
  t.teardown(() => server.kill('SIGKILL'));
  const base = '/api/v1/namespaces/default/configmaps';
  const made = await server.client().json('POST', base, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'r' }, data: { v: '1' } });
  const from = made.body.metadata.resourceVersion;
  made.body.data = { v: '2' };
  const updated = await server.client().json('PUT', `${base}/r`, made.body);
  t.equal(updated.status, 200);
  await server.kill('SIGKILL');
  await server.restart();

  const w = openWatch(server.client(), `${base}?watch=1&resourceVersion=${from}`);
  t.teardown(() => w.close());
  const ev = await w.waitFor((f) => f.object?.metadata?.name === 'r', 10_000);
  t.equal(ev.object.data.v, '2', 'the update is delivered');
  t.equal(ev.type, 'MODIFIED', 'as MODIFIED');
});
