/**
 * One API server process per database, and start-up failures as one line: the real binary, started
 * twice on one database, killed with kill -9, or given a port already taken.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MAIN_JS, freePort, startApiServer, tempDir } from './harness';

const skip = fs.existsSync(MAIN_JS) ? false : 'run make build first';

/** run `ballast apiserver` to its exit (for start-up failures) */
function runApiServer(args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--bind-address', '127.0.0.1', ...args], { encoding: 'utf8', timeout: 90_000 });
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
});

t.test('a port in use: one line naming the address, no stack, exit 1', { skip }, async (t) => {
  const first = await startApiServer(t);
  const r = runApiServer(['--data-dir', tempDir(t, 'port'), '--secure-port', String(first.port)]);
  t.equal(r.code, 1);
  t.match(r.stderr, new RegExp(`^Error: failed to listen on 127\\.0\\.0\\.1:${first.port}: address already in use$`, 'm'));
  t.notMatch(r.stderr, /^\s+at /m, 'no stack');
  t.equal(r.stderr.split('\n').filter((l) => l.startsWith('Error')).length, 1);
});
