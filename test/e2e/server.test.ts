import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import yaml from 'js-yaml';
import { MAIN_JS, freePort, startApiServer, tempDir, waitFor } from './harness';

const skip = fs.existsSync(MAIN_JS) ? false : 'run make build first';

t.test('starts, writes pki and admin.kubeconfig, announces itself, stops cleanly on SIGTERM', { skip }, async (t) => {
  const server = await startApiServer(t);
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
  const first = await startApiServer(t);
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
  const server = await startApiServer(t, { args: ['--profiling=false', '--authorization-mode=RBAC'] });
  t.match(server.output, /accepted but have no effect yet.*--profiling/);
});

/** run `ballast apiserver` to its exit (for start-up failures) */
function runApiServer(args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--bind-address', '127.0.0.1', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

t.test('one server per database: a second one exits 1 at once naming the holder, writing nothing', { skip }, async (t) => {
  const first = await startApiServer(t);
  const kubeconfig = fs.readFileSync(first.kubeconfig, 'utf8');
  const kubeconfigMtime = fs.statSync(first.kubeconfig).mtimeMs;
  const database = path.join(first.dataDir, 'state.db');

  const second = runApiServer(['--data-dir', first.dataDir, '--secure-port', String(await freePort())]);
  t.equal(second.code, 1);
  const lines = second.stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line: ${second.stderr}`);
  t.match(lines[0], /^Error: the database \S+ is in use by another Ballast API server/);
  t.match(lines[0], `pid ${first.pid}`);
  t.match(lines[0], `data dir ${first.dataDir}`);
  t.match(lines[0], database);
  t.equal(fs.readFileSync(first.kubeconfig, 'utf8'), kubeconfig, 'admin.kubeconfig is not rewritten');
  t.equal(fs.statSync(first.kubeconfig).mtimeMs, kubeconfigMtime);

  // the same database through --etcd-servers from another data dir: refused before its certificates
  const other = tempDir(t, 'other');
  const third = runApiServer(['--data-dir', other, '--etcd-servers', `sqlite://${database}`, '--secure-port', String(await freePort())]);
  t.equal(third.code, 1);
  t.match(third.stderr, `data dir ${first.dataDir}`);
  t.notOk(fs.existsSync(path.join(other, 'pki')), 'no certificates written');
  t.notOk(fs.existsSync(path.join(other, 'admin.kubeconfig')), 'no kubeconfig written');
  t.equal((await first.request('GET', '/readyz')).status, 200, 'the first server goes on');
});

t.test('a server killed with kill -9 does not block the next start on its database', { skip }, async (t) => {
  const first = await startApiServer(t);
  t.same(await first.stop('SIGKILL'), { code: null, signal: 'SIGKILL' });
  const next = await startApiServer(t, { dataDir: first.dataDir });
  t.equal((await next.request('GET', '/readyz')).status, 200);
  t.same(await next.stop('SIGTERM'), { code: 0, signal: null });
  // and a clean stop leaves it free as well
  const after = await startApiServer(t, { dataDir: first.dataDir });
  t.equal((await after.request('GET', '/readyz')).status, 200);
});

t.test('a port in use: one line naming the address, no stack, exit 1', { skip }, async (t) => {
  const first = await startApiServer(t);
  const r = runApiServer(['--data-dir', tempDir(t, 'port'), '--secure-port', String(first.port)]);
  t.equal(r.code, 1);
  t.match(r.stderr, new RegExp(`^Error: failed to listen on 127\\.0\\.0\\.1:${first.port}: address already in use$`, 'm'));
  t.notMatch(r.stderr, /^\s+at /m, 'no stack');
  t.equal(r.stderr.split('\n').filter((l) => l.startsWith('Error')).length, 1);
});
