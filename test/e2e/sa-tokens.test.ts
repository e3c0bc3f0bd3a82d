/**
 * Service account and bootstrap tokens end to end with kubectl 1.32: `kubectl create token`, the
 * token used as kubectl's credential (`auth whoami`), pod-bound tokens that end with the pod, tokens
 * of another key and expired ones refused with 401, the issuer discovery documents, and a bootstrap
 * token secret that authenticates.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SignJWT } from 'jose';
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const whoami = (out: string) => out.replace(/\s+/g, ' ').trim();
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

t.test('service account tokens, discovery and bootstrap tokens', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const server = await startApiServer(t, { args: ['--enable-bootstrap-token-auth'] });
  const admin = kubectlFor(t, '1.32', server);
  await admin.ok(['create', 'namespace', 'ci']);
  await admin.ok(['-n', 'ci', 'create', 'serviceaccount', 'builder']);
  const saUid = (await admin.json(['-n', 'ci', 'get', 'sa', 'builder', '-o', 'json'])).metadata as { uid: string };

  // kubectl create token, then kubectl with it
  const token = (await admin.ok(['-n', 'ci', 'create', 'token', 'builder'])).trim();
  t.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a compact JWT');
  const asBuilder = kubectlFor(t, '1.32', server, { token });
  t.match(whoami(await asBuilder.ok(['auth', 'whoami'])), /Username system:serviceaccount:ci:builder UID \S+ Groups \[system:serviceaccounts system:serviceaccounts:ci system:authenticated\]/);
  const info = await asBuilder.json<{ status: { userInfo: Record<string, unknown> } }>(['auth', 'whoami', '-o', 'json']);
  t.equal(info.status.userInfo.uid, saUid.uid, 'the uid is the account\'s');

  // TokenRequest defaults and checks
  const tr = (spec: object) => JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  const json = { 'content-type': 'application/json' };
  const created = await server.request('POST', '/api/v1/namespaces/ci/serviceaccounts/builder/token', tr({}), json);
  t.equal(created.status, 201);
  const body = JSON.parse(created.body);
  t.same(body.spec.audiences, [ISSUER], 'audiences default to the API audiences');
  t.equal(body.spec.expirationSeconds, 3600);
  t.ok(Math.abs(Date.parse(body.status.expirationTimestamp) - Date.now() - 3600_000) < 10_000, 'expires in an hour');
  const short = await server.request('POST', '/api/v1/namespaces/ci/serviceaccounts/builder/token', tr({ expirationSeconds: 60 }), json);
  t.equal(short.status, 422);
  t.match(JSON.parse(short.body).message, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
  const nobody = await server.request('POST', '/api/v1/namespaces/ci/serviceaccounts/nobody/token', tr({}), json);
  t.equal(nobody.status, 404);
  t.match(JSON.parse(nobody.body).message, 'serviceaccounts "nobody" not found');
  const audienced = (await admin.ok(['-n', 'ci', 'create', 'token', 'builder', '--audience', 'vault', '--duration', '20m'])).trim();
  const forVault = await server.requestWithoutCert('GET', '/api/v1/namespaces/ci/configmaps', undefined, bearer(audienced));
  t.equal(forVault.status, 401, 'a token for another audience is refused by the API');
  const review = (audiences: string[]) => JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: audienced, audiences } });
  const vaultReview = JSON.parse((await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', review(['vault']), json)).body);
  t.match(vaultReview.status, { authenticated: true, user: { username: 'system:serviceaccount:ci:builder' }, audiences: ['vault'] }, 'a TokenReview for its audience accepts it');
  const apiReview = JSON.parse((await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', review([]), json)).body);
  t.notOk(apiReview.status.authenticated, 'a TokenReview for the API audiences does not');

  // a pod-bound token stops working when the pod is deleted
  await admin.ok(['-n', 'ci', 'apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'runner' }, spec: { serviceAccountName: 'builder', containers: [{ name: 'c', image: 'busybox' }] } }));
  const podToken = (await admin.ok(['-n', 'ci', 'create', 'token', 'builder', '--bound-object-kind', 'Pod', '--bound-object-name', 'runner'])).trim();
  const asPod = kubectlFor(t, '1.32', server, { token: podToken });
  const podInfo = await asPod.json<{ status: { userInfo: { extra?: Record<string, string[]> } } }>(['auth', 'whoami', '-o', 'json']);
  t.same(podInfo.status.userInfo.extra?.['authentication.kubernetes.io/pod-name'], ['runner'], 'the pod is in the user\'s extra');
  await admin.ok(['-n', 'ci', 'delete', 'pod', 'runner', '--grace-period=0', '--force', '--wait=true']);
  // as kube-apiserver, the server remembers a recognized token for 10 s (TokenSuccessCacheTTL)
  const deletedAt = Date.now();
  let gone = await asPod.run(['auth', 'whoami']);
  while (gone.code === 0 && Date.now() - deletedAt < 15_000) {
    await new Promise((r) => setTimeout(r, 500));
    gone = await asPod.run(['auth', 'whoami']);
  }
  t.not(gone.code, 0);
  t.match(gone.stderr, /Unauthorized/, 'the pod-bound token dies with the pod (within the 10 s token cache)');

  // tokens of another key, and expired ones, are a 401
  const stranger = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: ISSUER, sub: 'system:serviceaccount:ci:builder', aud: [ISSUER], 'kubernetes.io': { namespace: 'ci', serviceaccount: { name: 'builder', uid: saUid.uid } } };
  const forged = await new SignJWT({ ...claims, iat: now, nbf: now, exp: now + 600 }).setProtectedHeader({ alg: 'RS256' }).sign(stranger);
  t.equal((await server.requestWithoutCert('GET', '/api/v1/namespaces/ci/configmaps', undefined, bearer(forged))).status, 401, 'another key');
  const saKey = crypto.createPrivateKey(fs.readFileSync(path.join(server.dataDir, 'pki', 'sa.key')));
  const expired = await new SignJWT({ ...claims, iat: now - 7200, nbf: now - 7200, exp: now - 3600 }).setProtectedHeader({ alg: 'RS256' }).sign(saKey);
  const expiredAnswer = await server.requestWithoutCert('GET', '/api/v1/namespaces/ci/configmaps', undefined, bearer(expired));
  t.equal(expiredAnswer.status, 401, 'expired');
  t.match(JSON.parse(expiredAnswer.body), { kind: 'Status', reason: 'Unauthorized', code: 401 });
  const fresh = await new SignJWT({ ...claims, iat: now, nbf: now, exp: now + 600 }).setProtectedHeader({ alg: 'RS256' }).sign(saKey);
  t.equal((await server.requestWithoutCert('GET', '/api/v1/namespaces/ci/configmaps', undefined, bearer(fresh))).status, 200, 'the same claims signed by our key and fresh are accepted');

  // the issuer discovery documents
  const config = await server.requestWithoutCert('GET', '/.well-known/openid-configuration');
  t.equal(config.status, 200);
  t.match(config.headers['content-type'], /^application\/json/);
  t.equal(config.headers['cache-control'], 'public, max-age=3600');
  t.same(JSON.parse(config.body), {
    issuer: ISSUER,
    jwks_uri: `${server.url}/openid/v1/jwks`,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
  });
  const jwks = await server.requestWithoutCert('GET', '/openid/v1/jwks');
  t.equal(jwks.status, 200);
  t.match(jwks.headers['content-type'], /^application\/jwk-set\+json/);
  const keys = JSON.parse(jwks.body).keys as Array<Record<string, string>>;
  const kid = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid as string;
  t.match(keys, [{ kty: 'RSA', use: 'sig', alg: 'RS256', kid }], 'the signing key, under the kid of issued tokens');

  // a bootstrap token secret authenticates
  await admin.ok(['-n', 'kube-system', 'create', 'secret', 'generic', 'bootstrap-token-abcdef', '--type', 'bootstrap.kubernetes.io/token',
    '--from-literal=token-id=abcdef', '--from-literal=token-secret=0123456789abcdef', '--from-literal=usage-bootstrap-authentication=true',
    '--from-literal=auth-extra-groups=system:bootstrappers:kubeadm:default-node-token']);
  const asNode = kubectlFor(t, '1.32', server, { token: 'abcdef.0123456789abcdef' });
  t.match(whoami(await asNode.ok(['auth', 'whoami'])), /Username system:bootstrap:abcdef Groups \[system:bootstrappers system:bootstrappers:kubeadm:default-node-token system:authenticated\]/);
  t.equal((await server.requestWithoutCert('GET', '/version', undefined, bearer('abcdef.0123456789abcdee'))).status, 401, 'a wrong bootstrap secret is refused');
});

t.test('the generated service account key is kept across restarts; given keys are used', async (t) => {
  const dir = tempDir(t, 'sa-keys');
  const dataDir = path.join(dir, 'data');
  const first = await startApiServer(t, { dataDir });
  const keyBefore = fs.readFileSync(path.join(dataDir, 'pki', 'sa.key'), 'utf8');
  const jwksBefore = (await first.requestWithoutCert('GET', '/openid/v1/jwks')).body;
  await first.stop();
  const second = await startApiServer(t, { dataDir, port: first.port });
  t.equal(fs.readFileSync(path.join(dataDir, 'pki', 'sa.key'), 'utf8'), keyBefore, 'the key file is not regenerated');
  t.equal((await second.requestWithoutCert('GET', '/openid/v1/jwks')).body, jwksBefore, 'the same key is served');
  await second.stop();

  const ecKey = path.join(dir, 'ec.key');
  fs.writeFileSync(ecKey, crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }));
  const third = await startApiServer(t, { args: ['--service-account-signing-key-file', ecKey, '--service-account-key-file', ecKey, '--service-account-issuer', 'https://issuer.example', '--api-audiences', 'api'] });
  const config = JSON.parse((await third.requestWithoutCert('GET', '/.well-known/openid-configuration')).body);
  t.equal(config.issuer, 'https://issuer.example');
  t.same(config.id_token_signing_alg_values_supported, ['ES256']);
  await third.request('POST', '/api/v1/namespaces/default/serviceaccounts', JSON.stringify({ metadata: { name: 'app' } }), { 'content-type': 'application/json' });
  const issued = JSON.parse((await third.request('POST', '/api/v1/namespaces/default/serviceaccounts/app/token', JSON.stringify({ spec: {} }), { 'content-type': 'application/json' })).body);
  t.same(issued.spec.audiences, ['api']);
  const whoAmI = await third.requestWithoutCert('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }), { 'content-type': 'application/json', ...bearer(issued.status.token) });
  t.equal(JSON.parse(whoAmI.body).status.userInfo.username, 'system:serviceaccount:default:app', 'an ES256 token of the given key');
});

t.test('a bad service account key file stops the start with one line naming it', async (t) => {
  const dir = tempDir(t, 'sa-bad');
  const bad = path.join(dir, 'bad.pem');
  fs.writeFileSync(bad, 'garbage\n');
  const common = [MAIN_JS, 'apiserver', '--data-dir', path.join(dir, 'data'), '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1'];
  const r = spawnSync(process.execPath, [...common, '--service-account-signing-key-file', bad], { encoding: 'utf8', timeout: 30_000 });
  t.equal(r.status, 1);
  t.match(r.stderr, new RegExp(`^Error: --service-account-signing-key-file ${bad}: no PEM private key found$`, 'm'));
  t.notMatch(r.stderr, /^\s+at /m, 'no stack');
});
