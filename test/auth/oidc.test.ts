import { generateKeyPair } from 'jose';
import t from 'tap';
import { OidcAuthenticator, validateOidcFlags } from '../../src/auth/authn/oidc';
import type { OidcSettings } from '../../src/auth/authn/oidc';
import { TestIssuer } from './oidc-test-issuer';

const flags = { usernameClaim: 'sub', requiredClaims: {}, signingAlgs: [] };

function settings(issuer: TestIssuer, more: Partial<OidcSettings> = {}): OidcSettings {
  return { ...validateOidcFlags({ ...flags, issuerUrl: issuer.url, clientId: 'ballast' })!, ca: issuer.ca.cert, ...more };
}

t.test('flag checks and defaults, in kube\'s words', async (t) => {
  t.throws(() => validateOidcFlags({ ...flags, issuerUrl: 'http://idp.example' , clientId: 'x' }), { message: `invalid authentication config: 'oidc-issuer-url' ("http://idp.example") has invalid scheme ("http"), require 'https'` });
  t.throws(() => validateOidcFlags({ ...flags, issuerUrl: 'https://idp.example' }), { message: 'oidc-issuer-url and oidc-client-id should be specified together' });
  t.throws(() => validateOidcFlags({ ...flags, clientId: 'x' }), { message: 'oidc-issuer-url and oidc-client-id should be specified together' });
  t.throws(() => validateOidcFlags({ ...flags, issuerUrl: 'https://idp.example', clientId: 'x', signingAlgs: ['HS256'] }), { message: /unsupported signing alg: "HS256"/ });
  t.equal(validateOidcFlags(flags), undefined, 'not configured');
  const base = { ...flags, issuerUrl: 'https://idp.example', clientId: 'x' };
  t.equal(validateOidcFlags(base)!.usernamePrefix, 'https://idp.example#', 'claims other than email get the issuer');
  t.equal(validateOidcFlags({ ...base, usernameClaim: 'email' })!.usernamePrefix, '', 'email gets none');
  t.equal(validateOidcFlags({ ...base, usernamePrefix: '-' })!.usernamePrefix, '', '"-" means none');
  t.equal(validateOidcFlags({ ...base, usernamePrefix: 'oidc:' })!.usernamePrefix, 'oidc:');
  t.same(validateOidcFlags(base)!.signingAlgs, ['RS256']);
});

t.test('ID tokens of the issuer', async (t) => {
  const issuer = await TestIssuer.create();
  await issuer.start();
  t.teardown(() => issuer.stop());
  const oidc = new OidcAuthenticator({ settings: settings(issuer, { groupsClaim: 'groups', groupsPrefix: 'oidc:' }) });
  t.teardown(() => oidc.close());

  const good = await oidc.authenticateToken(await issuer.token({ sub: 'alice', aud: 'ballast', groups: ['dev', 'ops'] }), ['api']);
  t.same(good, { user: { name: `${issuer.url}#alice`, groups: ['oidc:dev', 'oidc:ops'] }, audiences: ['api'] }, 'prefixed user and groups (array)');
  const single = await oidc.authenticateToken(await issuer.token({ sub: 'bob', aud: ['other', 'ballast'], groups: 'dev' }), []);
  t.same(single?.user.groups, ['oidc:dev'], 'a groups claim may be a string; aud may be a list');

  t.equal(await oidc.authenticateToken('not-a-jwt', []), undefined, 'not a JWT: not recognized');
  const foreign = await issuer.token({ sub: 'x', aud: 'ballast', iss: 'https://other.example' });
  t.equal(await oidc.authenticateToken(foreign, []), undefined, 'another issuer: not recognized (service accounts may know it)');

  const now = Math.floor(Date.now() / 1000);
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: 'a', aud: 'ballast', exp: now - 10 }), []), { name: 'AuthenticationError', message: /^oidc: verify token: oidc: token is expired \(Token Expiry: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC\)$/ });
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: 'a', aud: 'someone-else' }), []), { message: 'oidc: verify token: oidc: expected audience "ballast" got ["someone-else"]' });
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: 'a', aud: 'ballast', nbf: now + 3600 }), []), { message: /before the nbf \(not before\) time/ });
  const stranger = await generateKeyPair('RS256');
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: 'a', aud: 'ballast' }, { key: stranger.privateKey }), []), { message: 'oidc: verify token: failed to verify signature: failed to verify id token signature' });
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: 'a', aud: 'ballast' }, { alg: 'RS384' }), []), { message: 'oidc: verify token: oidc: id token signed with unsupported algorithm, expected ["RS256"] got "RS384"' });
  await t.rejects(oidc.authenticateToken(await issuer.token({ aud: 'ballast' }), []), { message: 'oidc: parse username claims "sub": claim not present' });
});

t.test('a key id we do not know fetches the key set again', async (t) => {
  const issuer = await TestIssuer.create();
  await issuer.start();
  t.teardown(() => issuer.stop());
  const oidc = new OidcAuthenticator({ settings: settings(issuer) });
  t.teardown(() => oidc.close());
  t.ok(await oidc.authenticateToken(await issuer.token({ sub: 'a', aud: 'ballast' }), []));
  t.equal(issuer.jwksFetches, 1);
  await issuer.addKey('key-2');
  const rotated = await oidc.authenticateToken(await issuer.token({ sub: 'b', aud: 'ballast' }, { kid: 'key-2' }), []);
  t.equal(rotated?.user.name, `${issuer.url}#b`);
  t.equal(issuer.jwksFetches, 2, 'refetched once');
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: 'c', aud: 'ballast' }, { kid: 'key-9' }), []), { message: /failed to verify signature/ });
});

t.test('email user names, prefixes and required claims', async (t) => {
  const issuer = await TestIssuer.create();
  await issuer.start();
  t.teardown(() => issuer.stop());
  const s = validateOidcFlags({ ...flags, issuerUrl: issuer.url, clientId: 'ballast', usernameClaim: 'email', requiredClaims: { hd: 'example.com' } })!;
  const oidc = new OidcAuthenticator({ settings: { ...s, ca: issuer.ca.cert } });
  t.teardown(() => oidc.close());
  const ok = await oidc.authenticateToken(await issuer.token({ sub: '1', aud: 'ballast', email: 'a@example.com', email_verified: true, hd: 'example.com' }), []);
  t.same(ok?.user, { name: 'a@example.com', groups: [] }, 'email is not prefixed by default; no groups claim, no groups');
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: '1', aud: 'ballast', email: 'a@example.com', email_verified: false, hd: 'example.com' }), []), { message: 'oidc: email not verified' });
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: '1', aud: 'ballast', email: 'a@example.com' }), []), { message: 'oidc: required claim hd not present in ID token' });
  await t.rejects(oidc.authenticateToken(await issuer.token({ sub: '1', aud: 'ballast', email: 'a@example.com', hd: 'evil.com' }), []), { message: 'oidc: required claim hd value does not match. Got = evil.com, want = example.com' });

  const none = new OidcAuthenticator({ settings: { ...validateOidcFlags({ ...flags, issuerUrl: issuer.url, clientId: 'ballast', usernamePrefix: '-' })!, ca: issuer.ca.cert } });
  t.equal((await none.authenticateToken(await issuer.token({ sub: 'alice', aud: 'ballast' }), []))?.user.name, 'alice', '"-": no prefix');
});

t.test('an issuer that starts after us: not initialized, then tokens work', async (t) => {
  const issuer = await TestIssuer.create();
  t.teardown(() => issuer.stop());
  const warnings: string[] = [];
  const oidc = new OidcAuthenticator({ settings: settings(issuer), retryMs: { first: 50, max: 100 }, warn: (m) => warnings.push(m) });
  t.teardown(() => oidc.close());
  oidc.start();
  const token = await issuer.token({ sub: 'late', aud: 'ballast' });
  await t.rejects(oidc.authenticateToken(token, []), { message: 'oidc: authenticator not initialized' });
  t.ok(warnings.length > 0, 'failed discovery is told');
  await issuer.start();
  let user: string | undefined;
  for (let i = 0; i < 50 && !user; i++) {
    await new Promise((r) => setTimeout(r, 50));
    user = (await oidc.authenticateToken(token, []).catch(() => undefined))?.user.name;
  }
  t.equal(user, `${issuer.url}#late`);
});
