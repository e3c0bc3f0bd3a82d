/**
 * `kubectl auth can-i` against the real server: kubectl posts a SelfSubjectAccessReview (JSON from
 * 1.20, protobuf from 1.32) and prints status.allowed. The server runs kube's AlwaysAllow mode, so
 * every answer is `yes`.
 */
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer } from './harness';
import type { KubectlVersion } from './harness';

const SSAR_PATH = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

t.test('kubectl auth can-i', async (t) => {
  const server = await startApiServer(t);
  for (const version of ['1.20', '1.32'] as KubectlVersion[]) {
    t.test(`kubectl ${version}`, { skip: missingKubectl(version) ?? false }, async (t) => {
      const k = kubectlFor(t, version, server);
      t.equal((await k.ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes');
      t.equal((await k.ok(['auth', 'can-i', 'delete', 'deployments.apps', '-n', 'kube-system'])).trim(), 'yes');
      t.equal((await k.ok(['auth', 'can-i', 'get', '/healthz'])).trim(), 'yes', 'non-resource URL');
      // kube's own answers for unknown resources still come from the authorizer
      t.match((await k.run(['auth', 'can-i', 'list', 'widgets.example.com'])).stdout, /^yes/m);
    });
  }
});

t.test('the review endpoints over plain HTTPS: JSON in, JSON out, other methods refused', async (t) => {
  const server = await startApiServer(t);
  const json = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const ssar = await server.request(
    'POST',
    SSAR_PATH,
    JSON.stringify({ spec: { resourceAttributes: { verb: 'watch', resource: 'configmaps', namespace: 'default' } } }),
    json,
  );
  t.equal(ssar.status, 201);
  t.same(JSON.parse(ssar.body).status, { allowed: true });

  const sar = await server.request(
    'POST',
    '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    JSON.stringify({ spec: { user: 'alice', nonResourceAttributes: { path: '/metrics', verb: 'get' } } }),
    json,
  );
  t.equal(sar.status, 201);
  t.same(JSON.parse(sar.body).status, { allowed: true });

  const lsar = await server.request(
    'POST',
    '/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews',
    JSON.stringify({ spec: { groups: ['devs'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'kube-system' } } }),
    json,
  );
  t.equal(lsar.status, 422);
  t.match(JSON.parse(lsar.body).message, /spec\.resourceAttributes\.namespace: Invalid value: "kube-system": must match metadata\.namespace/);

  const get = await server.request('GET', SSAR_PATH, undefined, json);
  t.equal(get.status, 405);
  t.equal(JSON.parse(get.body).reason, 'MethodNotAllowed');
});
