/**
 * Authentication end to end: kubectl 1.32 and 1.20 over TLS with the admin client certificate,
 * a client certificate from --client-ca-file, static tokens from --token-auth-file, anonymous
 * requests, and the 401s of bad credentials. `kubectl auth whoami` (SelfSubjectReview) reports who
 * the server took the caller to be.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/** a CA, and a client certificate it signs for `subject` */
function clientCert(dir: string, name: string, subject: string, ca?: { cert: string; key: string }) {
  const key = path.join(dir, `${name}.key`);
  const cert = path.join(dir, `${name}.crt`);
  if (!ca) {
    openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', subject, '-keyout', key, '-out', cert]);
  } else {
    const csr = path.join(dir, `${name}.csr`);
    openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-subj', subject, '-keyout', key, '-out', csr]);
    const ext = path.join(dir, `${name}.ext`);
    fs.writeFileSync(ext, 'extendedKeyUsage=clientAuth\n');
    openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-days', '1', '-extfile', ext, '-out', cert]);
  }
  return { cert, key, certPem: fs.readFileSync(cert, 'utf8'), keyPem: fs.readFileSync(key, 'utf8') };
}

const whoami = (out: string) => out.replace(/\s+/g, ' ').trim();

t.test('client certificates, static tokens, anonymous requests and bad credentials', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'authn');
  const ca = clientCert(dir, 'ca', '/CN=test-client-ca');
  const bob = clientCert(dir, 'bob', '/CN=bob/O=devs/O=ops', ca);
  const stranger = clientCert(dir, 'stranger', '/CN=mallory/O=system:masters');
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, 'secret-alice,alice,uid-alice,"dev,qa"\nsecret-carol,carol,uid-carol\n');
  const server = await startApiServer(t, { args: ['--client-ca-file', ca.cert, '--token-auth-file', tokens] });

  const admin = kubectlFor(t, '1.32', server);
  t.match(whoami(await admin.ok(['auth', 'whoami'])), /Username ballast-admin Groups \[system:masters system:authenticated\]/, 'the admin kubeconfig is ballast-admin');

  const asBob = kubectlFor(t, '1.32', server, { cert: bob.certPem, key: bob.keyPem });
  t.match(whoami(await asBob.ok(['auth', 'whoami'])), /Username bob Groups \[devs ops system:authenticated\]/, 'CN is the user, O the groups');

  const asAlice = kubectlFor(t, '1.32', server, { token: 'secret-alice' });
  const alice = await asAlice.json(['auth', 'whoami', '-o', 'json']);
  t.same(alice.status.userInfo, { username: 'alice', uid: 'uid-alice', groups: ['dev', 'qa', 'system:authenticated'] }, 'token file user, uid and groups');
  t.match(whoami(await kubectlFor(t, '1.32', server, { token: 'secret-carol' }).ok(['auth', 'whoami'])), /Username carol/);

  // kubectl asks for a user name when its kubeconfig has no credential, so anonymous requests are made directly
  const review = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
  const anonymous = await server.requestWithoutCert('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review, { 'content-type': 'application/json' });
  t.same(JSON.parse(anonymous.body).status.userInfo, { username: 'system:anonymous', groups: ['system:unauthenticated'] }, 'no credential: anonymous');

  for (const [what, k] of [
    ['an unknown token', kubectlFor(t, '1.32', server, { token: 'nobody-knows-this' })],
    ['a certificate from another CA', kubectlFor(t, '1.32', server, { cert: stranger.certPem, key: stranger.keyPem })],
  ] as const) {
    const r = await k.run(['get', 'configmaps']);
    t.not(r.code, 0, `${what} is refused`);
    t.match(r.stderr, /error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)/, `${what}: kubectl's 401 message`);
  }

  const old = missingKubectl('1.20') ? undefined : kubectlFor(t, '1.20', server, { token: 'secret-alice' });
  if (old) {
    t.match(await old.ok(['get', 'namespaces', '-o', 'name']), /namespace\/default/, 'kubectl 1.20 with a token');
    const bad = await kubectlFor(t, '1.20', server, { token: 'wrong' }).run(['get', 'namespaces']);
    t.match(bad.stderr, /Unauthorized/);
  }
});

t.test('--anonymous-auth=false refuses requests without credentials', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const server = await startApiServer(t, { args: ['--anonymous-auth=false'] });
  const r = await server.requestWithoutCert('GET', '/version');
  t.equal(r.status, 401, 'no credential, no anonymous access');
  t.same(JSON.parse(r.body), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
  t.match(await kubectlFor(t, '1.32', server).ok(['get', '--raw', '/version']), /gitVersion/, 'the admin still gets in');
});
