import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { WebhookAuthorizer, loadWebhookKubeconfig, subjectAccessReview } from '../../src/auth/authz/webhook';
import { writeWebhookKubeconfig } from '../helpers/webhook-kubeconfig';

const alice = { name: 'alice', uid: 'u1', groups: ['devs'] };

t.test('the SubjectAccessReview sent, by version', async (t) => {
  const attrs = { user: alice, verb: 'list', resourceRequest: true, namespace: 'ns', apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments' };
  t.same(subjectAccessReview(attrs, 'v1').spec, { resourceAttributes: { namespace: 'ns', verb: 'list', group: 'apps', version: 'v1', resource: 'deployments', subresource: '', name: '' }, user: 'alice', uid: 'u1', groups: ['devs'] });
  t.same(subjectAccessReview({ user: alice, verb: 'get', resourceRequest: false, path: '/healthz' }, 'v1beta1'), {
    apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SubjectAccessReview', spec: { nonResourceAttributes: { path: '/healthz', verb: 'get' }, user: 'alice', uid: 'u1', group: ['devs'] }, status: { allowed: false },
  });
});

t.test('answers over HTTPS from a kubeconfig, cached by TTL; errors are no opinion', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'authz-webhook-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const key = path.join(dir, 'tls.key');
  const cert = path.join(dir, 'tls.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=webhook', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const seen: Array<Record<string, unknown>> = [];
  const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const review = JSON.parse(body);
      seen.push(review);
      const verb = review.spec.resourceAttributes?.verb;
      const status = verb === 'get' ? { allowed: true, reason: 'fine' } : verb === 'delete' ? { allowed: false, denied: true, reason: 'never' } : { allowed: false };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ...review, status }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const kubeconfig = path.join(dir, 'webhook.kubeconfig');
  writeWebhookKubeconfig(kubeconfig, `https://127.0.0.1:${port}/authorize`, 'tls.crt', 'sekret');
  let now = 1000;
  const webhook = new WebhookAuthorizer({ target: loadWebhookKubeconfig(kubeconfig), version: 'v1', authorizedTtlMs: 5000, unauthorizedTtlMs: 100, now: () => now });
  const ask = (verb: string) => webhook.authorize({ user: alice, verb, resourceRequest: true, namespace: 'ns', apiGroup: '', resource: 'pods' });
  t.same(await ask('get'), { allowed: true, reason: 'fine' });
  t.same(await ask('delete'), { allowed: false, denied: true, reason: 'never' });
  t.same(await ask('list'), { allowed: false });
  t.equal(seen.length, 3);
  await ask('get');
  await ask('delete');
  t.equal(seen.length, 3, 'both answers cached');
  now += 200;
  await ask('get');
  await ask('delete');
  t.equal(seen.length, 4, 'the denial expired first');
  t.equal(seen[0]!.apiVersion, 'authorization.k8s.io/v1');

  const down = new WebhookAuthorizer({ target: { url: 'https://127.0.0.1:1/' }, version: 'v1', authorizedTtlMs: 0, unauthorizedTtlMs: 0 });
  const failed = await down.authorize({ user: alice, verb: 'get', resourceRequest: false, path: '/' });
  t.equal(failed.allowed, false);
  t.equal(failed.denied, undefined, 'no opinion');
  t.match(failed.evaluationError, /^error contacting webhook: /);
  t.throws(() => loadWebhookKubeconfig(path.join(dir, 'none')), { message: `--authorization-webhook-config-file ${path.join(dir, 'none')}: no such file or directory` });
});
