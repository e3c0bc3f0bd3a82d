/**
 * The other authorization modes end to end: ABAC from --authorization-policy-file (and the
 * start-up error of a bad line or a missing file), and the flag checks kube makes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir } from './harness';

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
