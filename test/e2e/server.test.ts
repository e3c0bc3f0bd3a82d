import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import yaml from 'js-yaml';
import { MAIN_JS, startApiServer, waitFor } from './harness';

const skip = fs.existsSync(MAIN_JS) ? false : 'run make build first';

t.test('starts, writes pki and admin.kubeconfig, announces itself, stops cleanly on SIGTERM', { skip }, async (t) => {
  const server = await startApiServer(t, { freshPki: true });
  for (const f of ['pki/ca.crt', 'pki/ca.key', 'pki/apiserver.crt', 'pki/apiserver.key', 'admin.kubeconfig', 'state.db']) {
    t.ok(fs.existsSync(path.join(server.dataDir, f)), f);
  }
  const kc = yaml.load(fs.readFileSync(server.kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    'current-context': string;
  };
  t.equal(kc.clusters[0].cluster.server, server.url);
  t.equal(Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), fs.readFileSync(path.join(server.dataDir, 'pki/ca.crt'), 'utf8'));
  t.equal(kc['current-context'], 'ballast');
  await waitFor('the serving line', () => server.output.includes('Serving on'));
  const serving = server.output.split('\n').find((l) => l.includes('Serving on')) ?? '';
  t.match(serving, server.url);
  t.match(serving, server.dataDir);
  t.match(serving, server.kubeconfig);

  const ready = await server.request('GET', '/readyz?verbose');
  t.equal(ready.status, 200);
  t.match(ready.body, /\[\+\]etcd ok/);
  t.equal((await server.request('GET', '/livez')).body, 'ok');
  t.equal((await server.request('GET', '/healthz')).body, 'ok');

  const exit = await server.stop('SIGTERM');
  t.same(exit, { code: 0, signal: null });
  t.match(server.output, 'Shutdown complete');
});

t.test('a restart on the same data dir reuses the CA, so old kubeconfigs stay valid', { skip }, async (t) => {
  const first = await startApiServer(t, { freshPki: true });
  const ca = fs.readFileSync(path.join(first.dataDir, 'pki/ca.crt'), 'utf8');
  const cert = fs.readFileSync(path.join(first.dataDir, 'pki/apiserver.crt'), 'utf8');
  await first.stop();
  const second = await startApiServer(t, { dataDir: first.dataDir });
  t.equal(fs.readFileSync(path.join(second.dataDir, 'pki/ca.crt'), 'utf8'), ca);
  t.equal(fs.readFileSync(path.join(second.dataDir, 'pki/apiserver.crt'), 'utf8'), cert);
  t.equal((await second.request('GET', '/readyz')).status, 200);
});

t.test('--shutdown-delay-duration: /readyz fails at once while /livez and requests still work', { skip }, async (t) => {
  const server = await startApiServer(t, { args: ['--shutdown-delay-duration=4s'] });
  const exited = server.stop('SIGTERM');
  await waitFor('/readyz to fail', async () => (await server.request('GET', '/readyz')).status === 500, 3000);
  t.equal((await server.request('GET', '/livez')).status, 200);
  t.equal((await server.request('GET', '/api/v1/namespaces')).status, 200, 'still serving during the delay');
  t.ok(server.running, 'still running during the delay');
  t.same(await exited, { code: 0, signal: null });
});

t.test('--logging-format=json writes JSON lines; -v 4 is accepted', { skip }, async (t) => {
  const server = await startApiServer(t, { args: ['--logging-format=json', '-v', '4'] });
  await waitFor('the serving line', () => server.output.includes('Serving on'));
  const lines = server.output.split('\n').filter((l) => l.trim() !== '');
  t.ok(lines.length > 0);
  for (const l of lines) {
    const entry = JSON.parse(l) as { level: number; msg: string };
    t.type(entry.level, 'number');
  }
  t.ok(lines.some((l) => (JSON.parse(l) as { dataDir?: string }).dataDir === server.dataDir), 'data dir is logged as a field');
});

t.test('flags that are accepted but not acted on are named at start-up', { skip }, async (t) => {
  const server = await startApiServer(t, { args: ['--contention-profiling', '--authorization-mode=RBAC'] });
  t.match(server.output, /accepted but have no effect yet.*--contention-profiling/);
});
