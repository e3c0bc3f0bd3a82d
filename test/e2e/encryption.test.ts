/**
 * Encryption at rest end to end: with --encryption-provider-config, a secret made by kubectl is not
 * in the database files in clear, reads back through kubectl, and a key rotation (new key first,
 * `kubectl replace` of every secret, old key removed) keeps it readable.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';

const key = (fill: number) => Buffer.alloc(32, fill).toString('base64');

function writeConfig(file: string, providers: string): void {
  fs.writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n${providers}`);
}

/** every byte the database keeps on disk (main file and write-ahead log) */
function databaseBytes(dataDir: string): Buffer {
  return Buffer.concat(fs.readdirSync(dataDir).filter((f) => f.startsWith('state.db')).map((f) => fs.readFileSync(path.join(dataDir, f))));
}

t.test('secrets are encrypted in the database and survive a key rotation', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'encryption');
  const dataDir = path.join(dir, 'data');
  const config = path.join(dir, 'encryption.yaml');
  const key1 = `  - aescbc:\n      keys: [{name: key1, secret: ${key(1)}}]\n`;
  const key2 = `  - secretbox:\n      keys: [{name: key2, secret: ${key(2)}}]\n`;
  writeConfig(config, `${key1}  - identity: {}\n`);

  let server = await startApiServer(t, { dataDir, args: ['--encryption-provider-config', config] });
  let k = kubectlFor(t, '1.32', server);
  await k.ok(['create', 'secret', 'generic', 'db-password', '--from-literal=password=correct-horse-battery-staple']);
  await k.ok(['create', 'configmap', 'plain', '--from-literal=note=visible-in-clear']);
  const value = (await k.ok(['get', 'secret', 'db-password', '-o', 'jsonpath={.data.password}'])).trim();
  t.equal(Buffer.from(value, 'base64').toString(), 'correct-horse-battery-staple', 'kubectl reads the secret');
  await server.stop();

  let bytes = databaseBytes(dataDir);
  t.ok(bytes.includes('k8s:enc:aescbc:v1:key1:'), 'the secret is stored with the aescbc prefix');
  t.notOk(bytes.includes(Buffer.from('correct-horse-battery-staple').toString('base64')), 'its value is not in the files');
  t.notOk(bytes.includes('db-password"'), 'nor its JSON');
  t.ok(bytes.includes('visible-in-clear'), 'configmaps are not encrypted (control)');

  // rotation: the new key first, the old one still listed; every secret rewritten
  writeConfig(config, `${key2}${key1}`);
  server = await startApiServer(t, { dataDir, args: ['--encryption-provider-config', config] });
  k = kubectlFor(t, '1.32', server);
  const all = await k.ok(['get', 'secrets', '--all-namespaces', '-o', 'json']);
  await k.ok(['replace', '-f', '-'], all);
  await server.stop();
  bytes = databaseBytes(dataDir);

  writeConfig(config, key2);
  server = await startApiServer(t, { dataDir, args: ['--encryption-provider-config', config] });
  k = kubectlFor(t, '1.32', server);
  const after = (await k.ok(['get', 'secret', 'db-password', '-o', 'jsonpath={.data.password}'])).trim();
  t.equal(Buffer.from(after, 'base64').toString(), 'correct-horse-battery-staple', 'readable with the new key alone after the rewrite');
  await server.stop();
  t.ok(bytes.includes('k8s:enc:secretbox:v1:key2:'), 'rewritten with the new provider');
});
