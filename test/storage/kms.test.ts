import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadEncryptionConfig } from '../../src/storage/encryption/config';
import { EncryptingStore } from '../../src/storage/encryption/encrypting-store';
import { checkKmsPlugins, kmsHealthChecks } from '../../src/storage/encryption/kms-health';
import { openSqliteStore } from '../../src/storage/sqlite/open-sqlite-store';
import { tempDir } from './fixtures/temp-store';
import { testKmsPlugin } from './kms-plugin';

const aesKey = Buffer.alloc(32, 7).toString('base64');

function configFile(dir: string, name: string, providers: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n${providers}`);
  return file;
}

const kms = (endpoint: string, extra = '') => `  - kms:\n      name: test-kms\n      endpoint: ${endpoint}\n${extra}`;

async function setup(t: Tap.Test, providers?: (endpoint: string) => string) {
  const dir = tempDir(t);
  const plugin = testKmsPlugin(path.join(dir, 'kms.sock'));
  await plugin.start();
  t.teardown(() => plugin.stop());
  const raw = await openSqliteStore(path.join(dir, 'state.db'));
  const rules = loadEncryptionConfig(configFile(dir, 'c.yaml', (providers ?? kms)(plugin.endpoint)));
  const store = new EncryptingStore(raw, rules);
  t.teardown(() => store.close());
  return { dir, plugin, raw, rules, store };
}

const secret = '/registry/core/secrets/default/s';

t.test('envelope: prefix, 2-byte DEK length, encrypted DEK, AES-CBC data; a fresh DEK per write', async (t) => {
  const { plugin, raw, store } = await setup(t);
  await store.create(secret, '{"data":"hunter2"}');
  const stored = (await raw.get(secret))!.value;
  t.match(stored, /^k8s:enc:kms:v1:test-kms:/);
  const bytes = Buffer.from(stored.slice('k8s:enc:kms:v1:test-kms:'.length), 'base64');
  const dekLength = bytes.readUInt16BE(0);
  t.equal(dekLength, 12 + 32 + 16, 'the plugin encrypted a 32-byte DEK (its IV + key + tag)');
  t.equal((bytes.length - 2 - dekLength) % 16, 0, 'the data is whole AES blocks');
  t.equal(bytes.length - 2 - dekLength, 16 + 32, 'IV and the padded value');
  t.notOk(stored.includes('hunter2'));
  t.equal((await store.get(secret))!.value, '{"data":"hunter2"}');
  await store.update(secret, '{"data":"hunter3"}');
  t.equal(plugin.calls.encrypt, 2, 'each write asks the plugin to encrypt a new DEK');
  t.equal(plugin.calls.version, 1, 'the version is checked once, before the first call');
  const again = Buffer.from((await raw.get(secret))!.value.slice('k8s:enc:kms:v1:test-kms:'.length), 'base64');
  t.not(again.subarray(2, 2 + dekLength).toString('hex'), bytes.subarray(2, 2 + dekLength).toString('hex'), 'another DEK');
});

t.test('the DEK cache: a second read of the same DEK does not call Decrypt; a fresh store does once', async (t) => {
  const { dir, plugin, raw, store } = await setup(t);
  await store.create(secret, '{"data":"cached"}');
  for (let i = 0; i < 3; i++) t.equal((await store.get(secret))!.value, '{"data":"cached"}');
  t.equal(plugin.calls.decrypt, 0, 'the DEK written is in the cache');
  const other = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'c2.yaml', kms(plugin.endpoint))));
  t.equal((await other.get(secret))!.value, '{"data":"cached"}');
  t.equal((await other.get(secret))!.value, '{"data":"cached"}');
  t.equal((await other.list('/registry/core/secrets/')).items[0].value, '{"data":"cached"}');
  t.equal(plugin.calls.decrypt, 1, 'one Decrypt for three reads');
  const uncached = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'c3.yaml', kms(plugin.endpoint, '      cachesize: -1\n'))));
  await uncached.get(secret);
  await uncached.get(secret);
  t.equal(plugin.calls.decrypt, 3, 'a negative cachesize turns the cache off');
});

t.test('a plugin that is down: writes and uncached reads fail with the plugin error, nothing crashes', async (t) => {
  const { dir, plugin, raw, store, rules } = await setup(t);
  await store.create(secret, '{"data":"before"}');
  await plugin.stop();
  await t.rejects(store.create('/registry/core/secrets/default/t', '{}'), /^failed to encrypt DEK, error: rpc error: code = (Unavailable|Canceled) desc = /);
  t.equal((await store.get('/registry/core/secrets/default/t')), undefined, 'nothing was written');
  t.equal((await store.get(secret))!.value, '{"data":"before"}', 'a cached DEK still reads');
  const fresh = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'c2.yaml', kms(plugin.endpoint))));
  await t.rejects(fresh.get(secret), /failed to decrypt DEK, error: .*rpc error: code = Unavailable/);
  const [health] = kmsHealthChecks(rules);
  t.equal(health.name, 'kms-provider-0');
  await t.rejects(health.check(), /failed to perform encrypt section of the healthz check for KMS Provider test-kms/);
  await plugin.start();
  // the client reconnects after its back-off, as the health check sees when it is polled again
  for (let i = 0; ; i++) {
    try {
      await health.check();
      break;
    } catch (err) {
      if (i === 40) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  t.equal((await fresh.get(secret))!.value, '{"data":"before"}', 'reads work again once the plugin is back');
});

t.test('watch events are opened in order, also when the plugin has to be asked', async (t) => {
  const { dir, plugin, raw, store } = await setup(t);
  await store.create(secret, '{"n":1}');
  await store.update(secret, '{"n":2}');
  const fresh = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'c2.yaml', kms(plugin.endpoint))));
  const seen: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const w = fresh.watch({
      afterRevision: 0,
      prefix: '/registry/core/secrets/',
      onEvent: (e) => {
        seen.push(e.value);
        if (seen.length === 2) {
          w.cancel();
          resolve();
        }
      },
      onError: reject,
    });
  });
  t.same(seen, ['{"n":1}', '{"n":2}']);
});

t.test('rotation: aescbc first, then kms first; rewriting turns every value into kms', async (t) => {
  const dir = tempDir(t);
  const plugin = testKmsPlugin(path.join(dir, 'kms.sock'));
  await plugin.start();
  t.teardown(() => plugin.stop());
  const raw = await openSqliteStore(path.join(dir, 'state.db'));
  t.teardown(() => raw.close());
  const aescbc = `  - aescbc:\n      keys: [{name: key1, secret: ${aesKey}}]\n`;
  const before = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'a.yaml', aescbc + kms(plugin.endpoint))));
  await before.create(secret, '{"data":"rotate-me"}');
  t.match((await raw.get(secret))!.value, /^k8s:enc:aescbc:v1:key1:/);
  const after = new EncryptingStore(raw, loadEncryptionConfig(configFile(dir, 'b.yaml', kms(plugin.endpoint) + aescbc)));
  const read = (await after.get(secret))!;
  t.equal(read.stale, true, 'a value under the old provider is stale');
  await after.update(secret, read.value);
  t.match((await raw.get(secret))!.value, /^k8s:enc:kms:v1:test-kms:/);
  t.notOk((await after.get(secret))!.stale);
});

t.test('configuration of kms entries', async (t) => {
  const dir = tempDir(t);
  const bad = (p: string) => () => loadEncryptionConfig(configFile(dir, 'c.yaml', p));
  t.throws(bad(`  - kms: {name: x, endpoint: tcp://localhost:80}\n`), /kms\.endpoint: Invalid value: "tcp:\/\/localhost:80": unsupported scheme "tcp" for KMS provider, only unix is supported/);
  t.throws(bad(`  - kms: {endpoint: unix:///tmp/k.sock}\n`), /providers\[0\]\.kms\.name: Required value/);
  t.throws(bad(`  - kms: {name: 'a:b', endpoint: unix:///tmp/k.sock}\n`), /should not contain ':'/);
  t.throws(bad(`  - kms: {name: x, endpoint: unix:///tmp/k.sock, cachesize: 0}\n`), /cachesize should be a positive value, or negative to disable/);
  t.throws(bad(`  - kms: {name: x, endpoint: unix:///tmp/k.sock, timeout: 0s}\n`), /timeout should be a positive value/);
  t.throws(bad(`  - kms: {name: x, endpoint: unix:///tmp/k.sock, timeout: soon}\n`), /kms\.timeout: Invalid value: "soon"/);
  t.throws(bad(`  - kms: {name: x, endpoint: unix:///tmp/k.sock, apiVersion: v2}\n`), /KMS v2 is not available/);
  const ok = loadEncryptionConfig(configFile(dir, 'ok.yaml', `  - kms: {apiVersion: v1, name: x, endpoint: unix://${dir}/none.sock, cachesize: 10, timeout: 1s}\n`));
  t.equal(ok[0].providers[0].prefix, 'k8s:enc:kms:v1:x:');
  const warned: string[] = [];
  await checkKmsPlugins(ok, 'ok.yaml', (name, m) => warned.push(`${name}: ${m}`));
  t.match(warned[0], /^x: failed get version from remote KMS provider: rpc error: code = Unavailable/);
  ok[0].providers[0].close?.();

  const wrong = testKmsPlugin(path.join(dir, 'wrong.sock'), { version: 'v2beta1' });
  await wrong.start();
  t.teardown(() => wrong.stop());
  const rules = loadEncryptionConfig(configFile(dir, 'w.yaml', kms(wrong.endpoint)));
  await t.rejects(checkKmsPlugins(rules, 'w.yaml', () => {}), /^--encryption-provider-config w\.yaml: KMS provider "test-kms": KMS provider api version v2beta1 is not supported, only v1beta1 is supported now/);
  rules[0].providers[0].close?.();
});
