/**
 * KMS v1 encryption at rest end to end, with a KMS plugin run by the test (kube's v1beta1 gRPC
 * service on a Unix socket): kubectl's secrets are not in the database files in clear and read
 * back; /healthz/kms-provider-0 asks the plugin; rotating from aescbc to kms by `kubectl replace`
 * of every secret leaves only kms values; with the plugin gone, writes answer 500.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { testKmsPlugin } from '../storage/kms-plugin';
import { kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';

const aescbc = `  - aescbc:\n      keys: [{name: key1, secret: ${Buffer.alloc(32, 1).toString('base64')}}]\n`;
const kms = (endpoint: string) => `  - kms:\n      apiVersion: v1\n      name: test-kms\n      endpoint: ${endpoint}\n      cachesize: 100\n      timeout: 2s\n`;

function writeConfig(file: string, providers: string): void {
  fs.writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n${providers}`);
}

/** every byte the database keeps on disk (main file and write-ahead log) */
function databaseBytes(dataDir: string): Buffer {
  return Buffer.concat(fs.readdirSync(dataDir).filter((f) => f.startsWith('state.db')).map((f) => fs.readFileSync(path.join(dataDir, f))));
}

function storedSecrets(dataDir: string): { key: string; value: string }[] {
  const db = new Database(path.join(dataDir, 'state.db'), { readonly: true });
  try {
    return db.prepare("SELECT key, value FROM current WHERE key LIKE '/registry/core/secrets/%'").all() as { key: string; value: string }[];
  } finally {
    db.close();
  }
}

t.test('secrets through a KMS v1 plugin', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'kms');
  const dataDir = path.join(dir, 'data');
  const config = path.join(dir, 'encryption.yaml');
  const plugin = testKmsPlugin(path.join(dir, 'kms.sock'));
  await plugin.start();
  t.teardown(() => plugin.stop());

  // first aescbc writes, kms only reads
  writeConfig(config, aescbc + kms(plugin.endpoint));
  let server = await startApiServer(t, { dataDir, args: ['--encryption-provider-config', config] });
  let k = kubectlFor(t, '1.32', server);
  await k.ok(['create', 'secret', 'generic', 'before-kms', '--from-literal=password=old-cbc-secret']);
  t.ok(plugin.calls.version >= 1, 'the plugin was asked its version at start-up');
  await server.stop();
  t.ok(storedSecrets(dataDir).every((s) => s.value.startsWith('k8s:enc:aescbc:v1:key1:')));

  // then kms first: new secrets go through the plugin, and a replace of every secret rotates the old ones
  writeConfig(config, kms(plugin.endpoint) + aescbc);
  server = await startApiServer(t, { dataDir, args: ['--encryption-provider-config', config] });
  k = kubectlFor(t, '1.32', server);
  await k.ok(['create', 'secret', 'generic', 'db-password', '--from-literal=password=correct-horse-battery-staple']);
  t.ok(plugin.calls.encrypt >= 1, 'the plugin encrypted a DEK');
  const value = (await k.ok(['get', 'secret', 'db-password', '-o', 'jsonpath={.data.password}'])).trim();
  t.equal(Buffer.from(value, 'base64').toString(), 'correct-horse-battery-staple', 'kubectl reads the secret back');
  const bytes = databaseBytes(dataDir);
  t.ok(bytes.includes('k8s:enc:kms:v1:test-kms:'), 'stored with the kms prefix');
  t.notOk(bytes.includes(Buffer.from('correct-horse-battery-staple').toString('base64')), 'its value is not in the files');
  t.notOk(bytes.includes('db-password"'), 'nor its JSON');

  const health = await server.request('GET', '/healthz/kms-provider-0');
  t.equal(health.status, 200, `/healthz/kms-provider-0: ${health.body}`);

  const all = await k.ok(['get', 'secrets', '--all-namespaces', '-o', 'json']);
  await k.ok(['replace', '-f', '-'], all);
  const stored = storedSecrets(dataDir);
  t.ok(stored.length >= 2);
  t.same(stored.filter((s) => !s.value.startsWith('k8s:enc:kms:v1:test-kms:')).map((s) => s.key), [], 'every secret is now under kms');
  const old = (await k.ok(['get', 'secret', 'before-kms', '-o', 'jsonpath={.data.password}'])).trim();
  t.equal(Buffer.from(old, 'base64').toString(), 'old-cbc-secret');

  // the plugin goes away: writes of secrets fail with a 500 Status, the server keeps serving
  await plugin.stop();
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'no-plugin' }, stringData: { a: 'b' } });
  const res = await server.request('POST', '/api/v1/namespaces/default/secrets', body, { 'content-type': 'application/json' });
  t.equal(res.status, 500);
  const status = JSON.parse(res.body) as { reason: string; message: string };
  t.equal(status.reason, 'InternalError');
  t.match(status.message, /^Internal error occurred: failed to encrypt DEK, error: rpc error: code = (Unavailable|Canceled)/);
  t.equal((await server.request('GET', '/healthz/kms-provider-0')).status, 500, 'the health check fails');
  t.equal((await server.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200, 'other resources are served');
  await server.stop();
});
