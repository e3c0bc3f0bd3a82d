import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { WebhookTokenAuthenticator, loadTokenWebhookKubeconfig } from '../../src/auth/authn/webhook-token';
import { makeCa, makeCert } from '../helpers/test-pki';
import { writeWebhookKubeconfig } from '../helpers/webhook-kubeconfig';

interface Webhook {
  kubeconfig: string;
  seen: Array<Record<string, any>>;
}

/** an HTTPS TokenReview webhook: "good-*" tokens are users, "bad" is refused with an error, others are not authenticated */
async function webhook(t: Test): Promise<Webhook> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'authn-webhook-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ca = makeCa(dir, 'ca');
  const serving = makeCert(dir, 'serving', ca, { commonName: 'webhook', ips: ['127.0.0.1'], usage: 'server' });
  const seen: Array<Record<string, any>> = [];
  const server = https.createServer({ key: serving.key, cert: serving.cert }, (req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const review = JSON.parse(body);
      review.authorization = req.headers.authorization;
      seen.push(review);
      const token: string = review.spec.token;
      const status = token.startsWith('good-')
        ? { authenticated: true, user: { username: token.slice(5), uid: '42', groups: ['devs'], extra: { scopes: ['a', 'b'] } }, ...(token === 'good-aud' ? { audiences: ['elsewhere'] } : {}) }
        : token === 'bad'
          ? { authenticated: false, error: 'token revoked' }
          : { authenticated: false };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = path.join(dir, 'webhook.kubeconfig');
  writeWebhookKubeconfig(kubeconfig, `https://127.0.0.1:${port}/authenticate`, 'ca.crt', 'sekret');
  return { kubeconfig, seen };
}

t.test('v1: the review sent and the user read back', async (t) => {
  const w = await webhook(t);
  const authn = new WebhookTokenAuthenticator({ target: loadTokenWebhookKubeconfig(w.kubeconfig), version: 'v1', cacheTtlMs: 0, implicitAudiences: ['api'] });
  const r = await authn.authenticateToken('good-alice', ['api']);
  t.same(r, { user: { name: 'alice', uid: '42', groups: ['devs'], extra: { scopes: ['a', 'b'] } }, audiences: ['api'] });
  t.equal(w.seen[0].apiVersion, 'authentication.k8s.io/v1');
  t.equal(w.seen[0].kind, 'TokenReview');
  t.same(w.seen[0].spec, { token: 'good-alice', audiences: ['api'] });
  t.equal(w.seen[0].authorization, 'Bearer sekret', 'the kubeconfig\'s credentials');
  t.equal(await authn.authenticateToken('nobody', []), undefined, 'not authenticated: not recognized');
  await t.rejects(authn.authenticateToken('bad', []), { name: 'AuthenticationError', message: 'token revoked' });
  t.equal(await authn.authenticateToken('good-aud', ['api']), undefined, 'the webhook vouches for other audiences only');
});

t.test('v1beta1 and the answer cache', async (t) => {
  const w = await webhook(t);
  let now = 1_000;
  const authn = new WebhookTokenAuthenticator({ target: loadTokenWebhookKubeconfig(w.kubeconfig), version: 'v1beta1', cacheTtlMs: 120_000, now: () => now });
  t.equal((await authn.authenticateToken('good-bob', []))?.user.name, 'bob');
  t.equal(w.seen[0].apiVersion, 'authentication.k8s.io/v1beta1');
  t.equal(await authn.authenticateToken('nobody', []), undefined);
  await t.rejects(authn.authenticateToken('bad', []));
  t.equal(w.seen.length, 3);
  t.equal((await authn.authenticateToken('good-bob', []))?.user.name, 'bob');
  t.equal(await authn.authenticateToken('nobody', []), undefined);
  t.equal(w.seen.length, 3, 'success and failure are cached');
  await t.rejects(authn.authenticateToken('bad', []));
  t.equal(w.seen.length, 4, 'errors are not cached');
  await authn.authenticateToken('good-bob', ['other']);
  t.equal(w.seen.length, 5, 'the audiences are part of the key');
  now += 120_001;
  await authn.authenticateToken('good-bob', []);
  t.equal(w.seen.length, 6, 'asked again after the TTL');
});

t.test('a webhook that cannot be reached is an authentication failure', async (t) => {
  const authn = new WebhookTokenAuthenticator({ target: { url: 'https://127.0.0.1:1/authenticate' }, version: 'v1', cacheTtlMs: 60_000, retries: 1, retryDelayMs: 10 });
  await t.rejects(authn.authenticateToken('good-x', []), { name: 'AuthenticationError', message: /^webhook token authenticator: POST https:\/\/127\.0\.0\.1:1\/authenticate: .*ECONNREFUSED/ });
});

t.test('kubeconfig errors name the flag', async (t) => {
  t.throws(() => loadTokenWebhookKubeconfig('/nonexistent/webhook.kubeconfig'), { message: '--authentication-token-webhook-config-file /nonexistent/webhook.kubeconfig: no such file or directory' });
});

t.test('a webhook that does not answer in time fails once, without retries', async (t) => {
  let calls = 0;
  const net = await import('node:net');
  const silent = net.createServer((socket) => {
    calls++;
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => silent.close());
  const port = (silent.address() as AddressInfo).port;
  const authn = new WebhookTokenAuthenticator({ target: { url: `https://127.0.0.1:${port}/` }, version: 'v1', cacheTtlMs: 0, retries: 2, retryDelayMs: 10, timeoutMs: 200 });
  await t.rejects(authn.authenticateToken('x', []), { name: 'AuthenticationError', message: /timeout/ });
  t.equal(calls, 1);
});
