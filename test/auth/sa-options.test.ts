import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { apiServerConfig, apiServerOptionGroups } from '../../src/options/apiserver';
import { parseOptions } from '../../src/options/parse';
import { loadSigningKey, loadVerifyingKeys } from '../../src/auth/serviceaccount/keys';
import { ensureServiceAccountKeyPair } from '../../src/server/pki';

const parse = (...argv: string[]) => parseOptions(apiServerOptionGroups, argv);
const spec = (name: string) => apiServerOptionGroups.flatMap((g) => g.options).find((o) => o.name === name);

t.test('the service account flags are supported, with safe defaults', async (t) => {
  for (const name of ['service-account-issuer', 'service-account-key-file', 'service-account-signing-key-file', 'service-account-jwks-uri', 'service-account-lookup', 'service-account-max-token-expiration', 'service-account-extend-token-expiration', 'api-audiences', 'enable-bootstrap-token-auth']) {
    t.equal(spec(name)?.support, 'supported', `--${name}`);
  }
  const a = apiServerConfig(parse('--data-dir=/x')).authentication;
  t.same(a.serviceAccounts.issuers, ['https://kubernetes.default.svc.cluster.local']);
  t.same(a.apiAudiences, ['https://kubernetes.default.svc.cluster.local'], 'audiences default to the issuer');
  t.equal(a.serviceAccounts.lookup, true);
  t.equal(a.serviceAccounts.extendTokenExpiration, true);
  t.equal(a.bootstrapTokens, false);
  const b = apiServerConfig(parse('--data-dir=/x', '--service-account-issuer=https://a', '--service-account-issuer=https://b', '--api-audiences=x,y', '--service-account-max-token-expiration=2h', '--service-account-signing-key-file=k.pem')).authentication;
  t.same(b.serviceAccounts.issuers, ['https://a', 'https://b']);
  t.same(b.apiAudiences, ['x', 'y']);
  t.equal(b.serviceAccounts.maxTokenExpirationSeconds, 7200);
});

t.test('bad service account flags stop the start', async (t) => {
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--service-account-max-token-expiration=10m')), /the service-account-max-token-expiration must be between 1 hour and 2\^32 seconds/);
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--service-account-jwks-uri=http://x/jwks')), /service-account-jwks-uri requires https scheme/);
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--service-account-issuer=https://a', '--service-account-issuer=https://a')), /service-account-issuer "https:\/\/a" is already specified/);
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--service-account-issuer=https://[oops')), /service-account-issuer "https:\/\/\[oops" contained a ':' but was not a valid URL/);
  t.throws(() => apiServerConfig(parse('--data-dir=/x', '--service-account-key-file=a.pem')), /service-account-signing-key-file and service-account-issuer are required flags/);
});

t.test('key files: bad ones are one line naming the file; the generated pair is kept', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-keys-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const bad = path.join(dir, 'bad.pem');
  fs.writeFileSync(bad, 'not a key\n');
  t.throws(() => loadVerifyingKeys([bad]), { message: `--service-account-key-file ${bad}: data does not contain any valid RSA or ECDSA public keys` });
  t.throws(() => loadVerifyingKeys([path.join(dir, 'missing.pem')]), /--service-account-key-file .*missing.pem: no such file or directory/);
  t.throws(() => loadSigningKey(bad), /--service-account-signing-key-file .*bad.pem: no PEM private key found/);
  const ed = path.join(dir, 'ed.pem');
  fs.writeFileSync(ed, crypto.generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
  t.throws(() => loadSigningKey(ed), /must be RSA or ECDSA/);

  const cert = path.join(dir, 'cert.pem');
  const { execFileSync } = await import('node:child_process');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=sa', '-keyout', path.join(dir, 'cert.key'), '-out', cert], { stdio: 'ignore' });
  t.equal(loadVerifyingKeys([cert])[0].kid, loadSigningKey(path.join(dir, 'cert.key')).kid, 'a certificate verifies with its key');

  const logger = pino({ level: 'silent' });
  const first = ensureServiceAccountKeyPair({ certDir: dir, logger });
  const pem = fs.readFileSync(first.keyFile, 'utf8');
  ensureServiceAccountKeyPair({ certDir: dir, logger });
  t.equal(fs.readFileSync(first.keyFile, 'utf8'), pem, 'not regenerated');
  t.equal(loadVerifyingKeys([first.pubFile])[0].kid, loadSigningKey(first.keyFile).kid, 'sa.pub is sa.key\'s public key');
  t.equal(fs.statSync(first.keyFile).mode & 0o777, 0o600);
});
