import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadEncryptionConfig } from '../../../src/storage/encryption/config';
import { EncryptingStore } from '../../../src/storage/encryption/encrypting-store';
import { aescbcProvider, aesgcmProvider, secretboxProvider } from '../../../src/storage/encryption/providers';
import { openSqliteStore } from '../../../src/storage/sqlite/open-sqlite-store';
import { tempDir } from '../fixtures/temp-store';

const key = (n: number, fill: number) => Buffer.alloc(n, fill).toString('base64');

function configFile(dir: string, name: string, providers: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets, '*.apps']\n  providers:\n${providers}`);
  return file;
}

t.test('providers seal and open; aesgcm binds the storage key; wrong keys fail', async (t) => {
  const plain = Buffer.from('{"kind":"Secret"}');
  for (const p of [aescbcProvider('k', Buffer.alloc(32, 1)), aesgcmProvider('k', Buffer.alloc(16, 1)), secretboxProvider('k', Buffer.alloc(32, 1))]) {
    const sealed = p.seal(plain, '/registry/core/secrets/a/b');
    t.notOk(sealed.includes(plain), `${p.prefix} hides the value`);
    t.same(p.open(sealed, '/registry/core/secrets/a/b'), plain, `${p.prefix} round trip`);
  }
  const gcm = aesgcmProvider('k', Buffer.alloc(32, 2));
  t.throws(() => gcm.open(gcm.seal(plain, '/registry/core/secrets/a/b'), '/registry/core/secrets/a/c'), 'aesgcm data moved to another key does not open');
  const box = secretboxProvider('k', Buffer.alloc(32, 3));
  t.throws(() => secretboxProvider('k', Buffer.alloc(32, 4)).open(box.seal(plain, ''), ''), /failed to decrypt/);
});

t.test('configuration errors name the file and field', async (t) => {
  const dir = tempDir(t);
  const bad = (providers: string) => () => loadEncryptionConfig(configFile(dir, 'c.yaml', providers));
  t.throws(bad(`  - aescbc:\n      keys: [{name: k1, secret: ${key(7, 1)}}]\n`), /^--encryption-provider-config .*c\.yaml: resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: REDACTED: secret is not of the expected length, got 7/);
  t.throws(bad(`  - secretbox:\n      keys: [{name: k1, secret: ${key(16, 1)}}]\n`), /expected one of \[32\]/);
  t.throws(bad(`  - aescbc:\n      keys: [{name: k1, secret: ${key(32, 1)}}]\n    identity: {}\n`), /exactly one provider must be given, found aescbc, identity/);
  t.throws(bad(`  - rot13: {}\n`), /unknown provider "rot13"/);
  t.throws(bad(`  - kms: {name: x, endpoint: tcp://127.0.0.1:1}\n`), /kms\.endpoint: Invalid value: .*only unix is supported/);
  t.throws(bad(`  - aescbc:\n      keys: [{name: k1, secret: ${key(32, 1)}}, {name: k1, secret: ${key(32, 2)}}]\n`), /Duplicate value: "k1"/);
  fs.writeFileSync(path.join(dir, 'kind.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
  t.throws(() => loadEncryptionConfig(path.join(dir, 'kind.yaml')), /is not an EncryptionConfiguration/);
  t.throws(() => loadEncryptionConfig(path.join(dir, 'missing.yaml')), /missing\.yaml: no such file or directory/);
});

t.test('the store seals configured resources, reads them back, and rotation rewrites stale values', async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'state.db');
  const oldKey = `  - aescbc:\n      keys: [{name: key1, secret: ${key(32, 1)}}]\n`;
  const newKey = `  - aesgcm:\n      keys: [{name: key2, secret: ${key(32, 2)}}]\n`;
  const raw = await openSqliteStore(file);
  const v1 = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'v1.yaml', `${oldKey}  - identity: {}\n`)));
  const secret = '/registry/core/secrets/default/s';
  const deploy = '/registry/apps/deployments/default/d';
  const cm = '/registry/core/configmaps/default/c';
  await raw.create('/registry/core/secrets/default/old', '{"data":"written before encryption"}');
  await v1.create(secret, '{"data":"hunter2"}');
  await v1.create(deploy, '{"spec":"apps-wildcard"}');
  await v1.create(cm, '{"data":"plain"}');
  t.match((await raw.get(secret))!.value, /^k8s:enc:aescbc:v1:key1:/);
  t.notMatch((await raw.get(secret))!.value, /hunter2/);
  t.match((await raw.get(deploy))!.value, /^k8s:enc:aescbc:v1:key1:/, '*.apps is encrypted');
  t.equal((await raw.get(cm))!.value, '{"data":"plain"}', 'other resources are not');
  t.equal((await v1.get(secret))!.value, '{"data":"hunter2"}');
  t.equal((await v1.get(secret))!.stale, undefined, 'current key: not stale');
  t.same((await v1.get('/registry/core/secrets/default/old'))!.stale, true, 'plaintext read through identity is stale');
  t.same((await v1.list('/registry/core/secrets/')).items.map((kv) => kv.value), ['{"data":"written before encryption"}', '{"data":"hunter2"}']);

  const events: string[] = [];
  const w = v1.watch({ prefix: '/registry/core/secrets/', afterRevision: raw.currentRevision(), onEvent: (e) => events.push(`${e.type} ${e.value} ${e.prevValue}`), onError: () => {} });
  await v1.update(secret, '{"data":"hunter3"}');
  await new Promise((r) => setTimeout(r, 50));
  w.cancel();
  t.same(events, ['MODIFIED {"data":"hunter3"} {"data":"hunter2"}'], 'watch events are opened');

  // rotation: the new key first, the old one still readable
  const v2 = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'v2.yaml', `${newKey}${oldKey}`)));
  const before = await v2.get(secret);
  t.same([before!.value, before!.stale], ['{"data":"hunter3"}', true], 'read with the old key: stale');
  await v2.update(secret, before!.value, before!.modRevision);
  t.match((await raw.get(secret))!.value, /^k8s:enc:aesgcm:v1:key2:/, 'rewritten with the new key');
  const v3 = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'v3.yaml', newKey)));
  t.equal((await v3.get(secret))!.value, '{"data":"hunter3"}', 'readable with the new key alone');
  await t.rejects(v3.get(deploy), /no matching prefix found/, 'the old key retired: data it sealed cannot be read');
  await t.rejects(v3.get('/registry/core/secrets/default/old'), /identity is not a provider/);
  await raw.close();
});
