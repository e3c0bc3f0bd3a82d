/**
 * The other authorization modes end to end: ABAC from --authorization-policy-file (and the
 * start-up error of a bad line or a missing file), and the flag checks kube makes.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';
import { writeWebhookKubeconfig } from '../helpers/webhook-kubeconfig';

function ballast(...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN_JS, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stderr: r.stderr };
}

t.test('ABAC policies from a file', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'abac');
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, 'secret-alice,alice,uid-alice\nsecret-bob,bob,uid-bob\n');
  const policy = path.join(dir, 'policy.jsonl');
  fs.writeFileSync(policy, [
    '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"group":"system:authenticated","readonly":true,"nonResourcePath":"*"}}',
    '{"apiVersion":"abac.authorization.kubernetes.io/v1beta1","kind":"Policy","spec":{"user":"alice","namespace":"*","resource":"*","apiGroup":"*","readonly":true}}',
    '',
  ].join('\n'));
  const server = await startApiServer(t, { args: ['--authorization-mode=ABAC', '--authorization-policy-file', policy, '--token-auth-file', tokens] });
  t.match(await kubectlFor(t, '1.32', server, { token: 'secret-alice' }).ok(['get', 'namespaces', '-o', 'name']), /namespace\/default/, 'alice reads');
  const write = await server.requestWithoutCert('POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'x' } }), { authorization: 'Bearer secret-alice', 'content-type': 'application/json' });
  t.equal(write.status, 403);
  t.equal(JSON.parse(write.body).message, 'configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "default": No policy matched.');
  const bob = await server.requestWithoutCert('GET', '/api/v1/namespaces', undefined, { authorization: 'Bearer secret-bob' });
  t.equal(bob.status, 403, 'bob has no policy');
});

t.test('a webhook authorizer served over HTTPS by the test', async (t) => {
  const dir = tempDir(t, 'authz-webhook');
  const key = path.join(dir, 'tls.key');
  const cert = path.join(dir, 'tls.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=webhook', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert], { stdio: 'ignore' });
  const reviews: Array<{ apiVersion: string; spec: { user?: string; resourceAttributes?: { verb: string; resource: string } } }> = [];
  const webhook = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const review = JSON.parse(body);
      reviews.push(review);
      const ra = review.spec.resourceAttributes;
      const allowed = review.spec.user === 'alice' && ra?.resource === 'configmaps' && ra.verb === 'list';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ...review, status: allowed ? { allowed: true } : { allowed: false, reason: 'the test webhook says no' } }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  t.teardown(() => webhook.close());
  const config = path.join(dir, 'webhook.kubeconfig');
  writeWebhookKubeconfig(config, `https://127.0.0.1:${(webhook.address() as AddressInfo).port}/authorize`, cert);
  const tokens = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokens, 'secret-alice,alice,uid-alice\n');
  const server = await startApiServer(t, { args: ['--authorization-mode=Webhook', '--authorization-webhook-config-file', config, '--authorization-webhook-version', 'v1', '--token-auth-file', tokens] });
  const headers = { authorization: 'Bearer secret-alice' };
  t.equal((await server.requestWithoutCert('GET', '/api/v1/namespaces/default/configmaps', undefined, headers)).status, 200, 'the webhook allows');
  const refused = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/secrets', undefined, headers);
  t.equal(refused.status, 403);
  t.equal(JSON.parse(refused.body).message, 'secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "default": the test webhook says no');
  t.ok(reviews.some((r) => r.apiVersion === 'authorization.k8s.io/v1' && r.spec.user === 'alice'), 'v1 SubjectAccessReviews were sent');
});

t.test('start-up errors: a bad policy line, missing files, mode without its flag', async (t) => {
  const dir = tempDir(t, 'abac-bad');
  const policy = path.join(dir, 'policy.jsonl');
  fs.writeFileSync(policy, '{"user":"alice"}\nnot json\n');
  const common = ['apiserver', '--data-dir', path.join(dir, 'data'), '--secure-port', String(await freePort()), '--bind-address', '127.0.0.1'];
  const bad = ballast(...common, '--authorization-mode=ABAC', '--authorization-policy-file', policy);
  t.equal(bad.code, 1);
  t.match(bad.stderr, new RegExp(`^Error: error reading policy file ${policy}, line 2: not json: `, 'm'));
  t.notMatch(bad.stderr, /^\s+at /m, 'no stack');
  const noFile = ballast(...common, '--authorization-mode=RBAC,ABAC');
  t.match(noFile.stderr, /^Error: authorization-mode ABAC's authorization policy file not passed$/m);
  const noWebhook = ballast(...common, '--authorization-mode=Webhook');
  t.match(noWebhook.stderr, /^Error: authorization-mode Webhook's authorization config file not passed$/m);
});
