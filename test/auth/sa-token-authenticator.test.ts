import crypto from 'node:crypto';
import { SignJWT } from 'jose';
import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { AuthenticationError } from '../../src/auth/authenticator';
import { ServiceAccountTokenAuthenticator } from '../../src/auth/authn/service-account';
import type { LookupResource } from '../../src/auth/authn/service-account';
import { LEGACY_ISSUER, boundTokenClaims } from '../../src/auth/serviceaccount/claims';
import { TokenIssuer } from '../../src/auth/serviceaccount/token-issuer';
import { keyId, parseVerifyingKeys, signingKeyOf } from '../../src/auth/serviceaccount/keys';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const rsa = signingKeyOf(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const ec = signingKeyOf(crypto.generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey);
const other = signingKeyOf(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);

function storage() {
  const objects = new Map<string, KubeObject>();
  const put = (resource: LookupResource, ns: string, name: string, uid: string, extra: Record<string, unknown> = {}) =>
    objects.set(`${resource}/${ns}/${name}`, { metadata: { name, namespace: ns, uid }, ...extra });
  const lookup = async (resource: LookupResource, ns: string, name: string) => objects.get(`${resource}/${ns}/${name}`);
  return { objects, put, lookup };
}

function authenticator(s: ReturnType<typeof storage>, opts: { legacyLookup?: boolean; now?: () => number; keys?: typeof rsa[] } = {}) {
  return new ServiceAccountTokenAuthenticator({
    issuers: [ISSUER],
    keys: opts.keys ?? [rsa, ec],
    apiAudiences: [ISSUER],
    lookup: s.lookup,
    legacyLookup: opts.legacyLookup ?? true,
    now: opts.now,
  });
}

const sa = { name: 'builder', uid: 'sa-uid' };
const claims = (extra: Partial<Parameters<typeof boundTokenClaims>[0]> = {}) =>
  boundTokenClaims({ namespace: 'ci', serviceAccount: sa, audiences: [ISSUER], expirationSeconds: 3600, ...extra });

t.test('kid is the base64url SHA-256 of the DER public key; PEM forms all give the same key', async (t) => {
  const pub = crypto.createPublicKey(rsa.privateKey);
  const der = pub.export({ type: 'spki', format: 'der' });
  t.equal(keyId(pub), crypto.createHash('sha256').update(der).digest('base64url'));
  t.equal(rsa.alg, 'RS256');
  t.equal(ec.alg, 'ES384');
  const fromPrivate = parseVerifyingKeys(rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), 'x');
  const fromPublic = parseVerifyingKeys(pub.export({ type: 'spki', format: 'pem' }).toString(), 'x');
  t.equal(fromPrivate[0].kid, rsa.kid);
  t.equal(fromPublic[0].kid, rsa.kid);
  t.throws(() => parseVerifyingKeys('nothing here', 'f.pem'), /f.pem: data does not contain any valid RSA or ECDSA public keys/);
});

t.test('a bound token of an RSA or ECDSA key names the service account', async (t) => {
  const s = storage();
  s.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  const a = authenticator(s);
  for (const key of [rsa, ec]) {
    const token = await new TokenIssuer({ key, issuer: ISSUER }).sign(claims());
    const r = await a.authenticateToken(token, []);
    t.equal(r?.user.name, 'system:serviceaccount:ci:builder', key.alg);
    t.equal(r?.user.uid, 'sa-uid');
    t.same(r?.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ci']);
    t.same(r?.audiences, [ISSUER]);
    t.match(r?.user.extra?.['authentication.kubernetes.io/credential-id']?.[0], /^JTI=/);
  }
});

t.test('pod-bound tokens carry the pod in extra and die with the pod', async (t) => {
  const s = storage();
  s.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  s.put('pods', 'ci', 'p', 'pod-uid');
  const a = authenticator(s);
  const token = await new TokenIssuer({ key: rsa, issuer: ISSUER }).sign(claims({ pod: { name: 'p', uid: 'pod-uid' } }));
  const r = await a.authenticateToken(token, []);
  t.same(r?.user.extra?.['authentication.kubernetes.io/pod-name'], ['p']);
  t.same(r?.user.extra?.['authentication.kubernetes.io/pod-uid'], ['pod-uid']);
  s.put('pods', 'ci', 'p', 'new-uid');
  await t.rejects(a.authenticateToken(token, []), /pod UID \(new-uid\) does not match claim \(pod-uid\)/);
  s.objects.delete('pods/ci/p');
  await t.rejects(a.authenticateToken(token, []), /pods "p" not found/);
});

t.test('node-bound tokens die with the node; a pod-bound token names its node', async (t) => {
  const s = storage();
  s.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  s.put('nodes', '', 'n1', 'node-uid');
  s.put('pods', 'ci', 'p', 'pod-uid');
  const a = authenticator(s);
  const issuer = new TokenIssuer({ key: rsa, issuer: ISSUER });
  const onPod = await issuer.sign(claims({ pod: { name: 'p', uid: 'pod-uid' }, node: { name: 'n1', uid: 'node-uid' } }));
  const onNode = await issuer.sign(claims({ node: { name: 'n1', uid: 'node-uid' } }));
  t.same((await a.authenticateToken(onPod, []))?.user.extra?.['authentication.kubernetes.io/node-name'], ['n1']);
  t.same((await a.authenticateToken(onNode, []))?.user.extra?.['authentication.kubernetes.io/node-uid'], ['node-uid']);
  s.objects.delete('nodes//n1');
  t.ok(await a.authenticateToken(onPod, []), 'the pod is what a pod-bound token depends on');
  await t.rejects(a.authenticateToken(onNode, []), /nodes "n1" not found/);
});

t.test('a deleted or recreated service account refuses its tokens', async (t) => {
  const s = storage();
  s.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  const a = authenticator(s);
  const token = await new TokenIssuer({ key: rsa, issuer: ISSUER }).sign(claims());
  s.objects.delete('serviceaccounts/ci/builder');
  await t.rejects(a.authenticateToken(token, []), new AuthenticationError('serviceaccounts "builder" not found'));
  s.put('serviceaccounts', 'ci', 'builder', 'other-uid');
  await t.rejects(a.authenticateToken(token, []), /service account UID \(other-uid\) does not match claim \(sa-uid\)/);
});

t.test('times: expired, not yet valid, issued in the future, with 60 s of leeway', async (t) => {
  const s = storage();
  s.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  const issuer = new TokenIssuer({ key: rsa, issuer: ISSUER });
  const now = Math.floor(Date.now() / 1000);
  const token = await issuer.sign(claims({ now, expirationSeconds: 600 }));
  t.ok(await authenticator(s, { now: () => now + 650 }).authenticateToken(token, []), 'within leeway');
  await t.rejects(authenticator(s, { now: () => now + 700 }).authenticateToken(token, []), /service account token has expired/);
  await t.rejects(authenticator(s, { now: () => now - 100 }).authenticateToken(token, []), /service account token is not valid yet/);
  const future = await issuer.sign({ ...claims({ now }), nbf: undefined, iat: now + 500 });
  await t.rejects(authenticator(s, { now: () => now }).authenticateToken(future, []), /service account token is issued in the future/);
});

t.test('wrong signature, wrong issuer, wrong audience, not a JWT', async (t) => {
  const s = storage();
  s.put('serviceaccounts', 'ci', 'builder', 'sa-uid');
  const a = authenticator(s);
  const forged = await new TokenIssuer({ key: other, issuer: ISSUER }).sign(claims());
  await t.rejects(a.authenticateToken(forged, []), AuthenticationError, 'another key: refused');
  const foreign = await new TokenIssuer({ key: rsa, issuer: 'https://elsewhere' }).sign(claims());
  t.equal(await a.authenticateToken(foreign, []), undefined, 'another issuer: not recognized');
  t.equal(await a.authenticateToken('abcdef.0123456789abcdef', []), undefined, 'not a JWT: not recognized');
  const vault = await new TokenIssuer({ key: rsa, issuer: ISSUER }).sign(claims({ audiences: ['vault'] }));
  await t.rejects(a.authenticateToken(vault, []), new AuthenticationError(`token audiences ["vault"] is invalid for the target audiences ["${ISSUER}"]`));
  const r = await a.authenticateToken(vault, ['vault']);
  t.same(r?.audiences, ['vault'], 'a TokenReview for that audience accepts it');
});

t.test('legacy secret-based tokens', async (t) => {
  const s = storage();
  const token = await new SignJWT({
    iss: LEGACY_ISSUER,
    sub: 'system:serviceaccount:ci:old',
    'kubernetes.io/serviceaccount/namespace': 'ci',
    'kubernetes.io/serviceaccount/secret.name': 'old-token-x',
    'kubernetes.io/serviceaccount/service-account.name': 'old',
    'kubernetes.io/serviceaccount/service-account.uid': 'old-uid',
  }).setProtectedHeader({ alg: 'RS256' }).sign(rsa.privateKey);
  s.put('serviceaccounts', 'ci', 'old', 'old-uid');
  s.put('secrets', 'ci', 'old-token-x', 's-uid', { data: { token: Buffer.from(token).toString('base64') } });
  const r = await authenticator(s).authenticateToken(token, []);
  t.same(r?.user, { name: 'system:serviceaccount:ci:old', uid: 'old-uid', groups: ['system:serviceaccounts', 'system:serviceaccounts:ci'] });
  s.put('secrets', 'ci', 'old-token-x', 's-uid', { data: { token: Buffer.from(token).toString('base64') } });
  (s.objects.get('secrets/ci/old-token-x')!.metadata as Record<string, unknown>).labels = { 'kubernetes.io/legacy-token-invalid-since': '2024-01-01' };
  await t.rejects(authenticator(s).authenticateToken(token, []), /the token in secret ci\/old-token-x for service account ci\/old has been marked invalid/);
  s.objects.delete('secrets/ci/old-token-x');
  await t.rejects(authenticator(s).authenticateToken(token, []), /token has been invalidated/);
  t.ok(await authenticator(s, { legacyLookup: false }).authenticateToken(token, []), 'without --service-account-lookup storage is not asked');
});
