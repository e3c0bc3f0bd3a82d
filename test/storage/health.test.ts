import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { checkStoreTlsFiles, pingWithin } from '../../src/storage/health';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';

const parse = (...args: string[]) => parseOptions(apiServerOptionGroups, args);

t.test('--etcd-healthcheck-timeout: the storage check fails after that long', async (t) => {
  t.equal(apiServerConfig(parse('--data-dir=/x')).storage.healthcheckTimeoutMs, 2000);
  t.equal(apiServerConfig(parse('--data-dir=/x', '--etcd-healthcheck-timeout=250ms')).storage.healthcheckTimeoutMs, 250);
  t.throws(() => parse('--etcd-healthcheck-timeout=0s'), { message: /must be greater than 0/ });
  await pingWithin({ ping: async () => undefined }, 100);
  const started = Date.now();
  await t.rejects(pingWithin({ ping: () => new Promise<void>(() => undefined) }, 150), { message: 'error getting data from etcd: context deadline exceeded' });
  const took = Date.now() - started;
  t.ok(took >= 140 && took < 1000, `gave up after ${took} ms`);
  await t.rejects(pingWithin({ ping: async () => { throw new Error('disk I/O error'); } }, 150), { message: 'error getting data from etcd: disk I/O error' });
  await pingWithin({ ping: () => new Promise<void>((r) => setTimeout(r, 30)) }, 500);
});

t.test('--etcd-cafile, --etcd-certfile, --etcd-keyfile must be readable files', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-etcd-tls-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ca = path.join(dir, 'ca.crt');
  fs.writeFileSync(ca, 'PEM');
  t.doesNotThrow(() => checkStoreTlsFiles({ caFile: ca, certFile: ca, keyFile: ca }));
  t.doesNotThrow(() => checkStoreTlsFiles({}));
  t.throws(() => checkStoreTlsFiles({ caFile: path.join(dir, 'missing.crt') }), { message: `--etcd-cafile ${path.join(dir, 'missing.crt')}: no such file or directory` });
  t.throws(() => checkStoreTlsFiles({ certFile: ca, keyFile: dir }), { message: `--etcd-keyfile ${dir}: is a directory` });
  t.throws(() => apiServerConfig(parse('--data-dir=/x', `--etcd-certfile=${ca}`)), { message: '--etcd-certfile and --etcd-keyfile must be given together' });
  t.same(apiServerConfig(parse('--data-dir=/x', '--etcd-cafile=ca.crt')).storage.tls.caFile, path.resolve('ca.crt'));
});
