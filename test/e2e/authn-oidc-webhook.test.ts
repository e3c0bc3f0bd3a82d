/**
 * The remaining authenticators end to end: one server with OIDC (an HTTPS issuer served by the
 * test), a TokenReview webhook (also served by the test) and front-proxy (request-header)
 * authentication; kubectl 1.32 with tokens, a proxy's raw HTTPS request with its certificate.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { makeCa, makeCert } from '../helpers/test-pki';
import type { TestCert } from '../helpers/test-pki';
import { TestIssuer } from '../auth/oidc-test-issuer';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';
import type { ApiServerProcess } from './harness';
import { writeWebhookKubeconfig } from '../helpers/webhook-kubeconfig';

/** a TokenReview webhook: tokens "webhook-<name>" are the user <name> in group webhook-users */
async function tokenWebhook(t: Test, dir: string): Promise<string> {
  const ca = makeCa(dir, 'webhook-ca');
  const serving = makeCert(dir, 'webhook-serving', ca, { commonName: 'webhook', ips: ['127.0.0.1'], usage: 'server' });
  const server = https.createServer({ key: serving.key, cert: serving.cert }, (req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const review = JSON.parse(body);
      const token: string = review.spec?.token ?? '';
      const status = token.startsWith('webhook-')
        ? { authenticated: true, user: { username: token.slice('webhook-'.length), uid: 'w-1', groups: ['webhook-users'] } }
        : { authenticated: false };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const file = path.join(dir, 'token-webhook.kubeconfig');
  writeWebhookKubeconfig(file, `https://127.0.0.1:${port}/authenticate`, ca.certFile);
  return file;
}

/** a raw HTTPS request to the server made with a client certificate */
function requestAs(server: ApiServerProcess, client: TestCert, method: string, urlPath: string, body: string | undefined, headers: Record<string, string>) {
  const ca = fs.readFileSync(path.join(server.dataDir, 'pki', 'ca.crt'));
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = https.request(`${server.url}${urlPath}`, { method, ca, cert: client.cert, key: client.key, headers, timeout: 10_000 }, (res) => {
      let data = '';
      res.on('data', (d: Buffer) => (data += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const selfReview = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });

t.test('OIDC, webhook token and front-proxy users', { skip: missingKubectl('1.32') }, async (t) => {
  const dir = tempDir(t, 'authn-e2e');
  const issuer = await TestIssuer.create();
  await issuer.start();
  t.teardown(() => issuer.stop());
  const webhookConfig = await tokenWebhook(t, dir);
  const proxyCa = makeCa(dir, 'front-proxy-ca');
  const proxy = makeCert(dir, 'front-proxy', proxyCa, { commonName: 'front-proxy-client', usage: 'client' });
  const server = await startApiServer(t, {
    args: [
      `--oidc-issuer-url=${issuer.url}`, '--oidc-client-id=ballast', `--oidc-ca-file=${issuer.ca.certFile}`,
      '--oidc-username-prefix=oidc:', '--oidc-groups-claim=groups', '--oidc-groups-prefix=oidc:', '--oidc-required-claim=tenant=blue',
      `--authentication-token-webhook-config-file=${webhookConfig}`, '--authentication-token-webhook-version=v1',
      `--requestheader-client-ca-file=${proxyCa.certFile}`, '--requestheader-allowed-names=front-proxy-client',
      '--requestheader-username-headers=X-Remote-User', '--requestheader-group-headers=X-Remote-Group', '--requestheader-extra-headers-prefix=X-Remote-Extra-',
    ],
  });

  const oidcToken = await issuer.token({ sub: 'alice', aud: 'ballast', groups: ['dev', 'ops'], tenant: 'blue' });
  const whoami = async (token: string) => {
    const r = await kubectlFor(t, '1.32', server, { token }).run(['auth', 'whoami', '-o', 'json']);
    return r.code === 0 ? JSON.parse(r.stdout).status.userInfo : r.stderr;
  };
  t.same(await whoami(oidcToken), { username: 'oidc:alice', groups: ['oidc:dev', 'oidc:ops', 'system:authenticated'] }, 'the OIDC user, prefixed');
  const bob = await whoami('webhook-bob');
  t.equal(bob.username, 'bob', 'the webhook\'s user');
  t.same(bob.groups, ['webhook-users', 'system:authenticated']);
  const wrongTenant = await issuer.token({ sub: 'eve', aud: 'ballast', tenant: 'red' });
  t.match(await whoami(wrongTenant), /error: You must be logged in to the server \(Unauthorized\)/, 'a required claim that does not match');
  t.match(await whoami('not-a-known-token'), /error: You must be logged in to the server \(Unauthorized\)/, 'a token no one knows');

  // TokenReview goes through the same token chain
  const review = async (token: string) => JSON.parse((await server.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }), { 'content-type': 'application/json' })).body).status;
  const oidcReview = await review(oidcToken);
  t.equal(oidcReview.authenticated, true);
  t.equal(oidcReview.user.username, 'oidc:alice');
  const webhookReview = await review('webhook-carol');
  t.equal(webhookReview.authenticated, true);
  t.equal(webhookReview.user.username, 'carol');

  // a front proxy names the user in headers
  const proxied = await requestAs(server, proxy, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', selfReview, {
    'content-type': 'application/json', 'X-Remote-User': 'dave', 'X-Remote-Group': 'team-a', 'X-Remote-Extra-Scope': 'read',
  });
  t.equal(proxied.status, 201, proxied.body);
  t.same(JSON.parse(proxied.body).status.userInfo, { username: 'dave', groups: ['team-a', 'system:authenticated'], extra: { scope: ['read'] } });
  const bare = await requestAs(server, proxy, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', selfReview, { 'content-type': 'application/json' });
  t.equal(bare.status, 401, 'the proxy certificate alone is no user');

  // published for aggregated servers
  const cm = JSON.parse((await server.request('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).body);
  t.equal(cm.data['requestheader-client-ca-file'], proxyCa.cert);
  t.equal(cm.data['requestheader-username-headers'], '["X-Remote-User"]');
  t.equal(cm.data['requestheader-allowed-names'], '["front-proxy-client"]');
  t.equal(cm.data['requestheader-extra-headers-prefix'], '["X-Remote-Extra-"]');
  t.match(cm.data['client-ca-file'], /BEGIN CERTIFICATE/);
  // a bad front-proxy CA stops start-up (the generated certificates of the server above are reused: quicker)
  const garbage = path.join(dir, 'not-a-ca.pem');
  fs.writeFileSync(garbage, 'hello\n');
  const ca = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--data-dir', path.join(dir, 'data2'), '--cert-dir', path.join(server.dataDir, 'pki'), '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1', `--requestheader-client-ca-file=${garbage}`], { encoding: 'utf8', timeout: 30_000 });
  t.not(ca.status, 0);
  t.match(ca.stderr, new RegExp(`^Error: --requestheader-client-ca-file ${garbage}: data does not contain any valid RSA or ECDSA certificates$`, 'm'));
});

t.test('a bad --oidc-issuer-url stops start-up with one line', async (t) => {
  const dir = tempDir(t, 'authn-e2e-flags');
  const port = String(await freePort());
  const r = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--data-dir', path.join(dir, 'data'), '--secure-port', port, '--bind-address', '127.0.0.1', '--oidc-issuer-url=http://idp.example', '--oidc-client-id=ballast'], { encoding: 'utf8', timeout: 30_000 });
  t.not(r.status, 0);
  t.match(r.stderr, /^Error: invalid authentication config: 'oidc-issuer-url' \("http:\/\/idp\.example"\) has invalid scheme \("http"\), require 'https'$/m);
});
