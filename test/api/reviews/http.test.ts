/** The access reviews as the HTTP layer serves them: discovery, POST answers, other methods refused. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { builtinKinds } from '../../../src/api/kinds';
import { createRegistry } from '../../../src/api/registry';
import { AlwaysAllowAuthorizer, accessReviewKinds, withAccessReviews } from '../../../src/api/reviews';
import { Scheme } from '../../../src/api/scheme';
import { createApiServerApp } from '../../../src/http/app';
import { definitions } from '../../../src/schema';
import { MemoryStore } from '../../helpers/memory-store';

const version = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-ballast',
  gitCommit: 'abc',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'go1.23.4',
  compiler: 'gc',
  platform: 'linux/amd64',
};

async function serve(t: Test): Promise<string> {
  const store = new MemoryStore();
  const scheme = new Scheme([...builtinKinds(), ...accessReviewKinds()]);
  const registry = withAccessReviews(createRegistry({ store, scheme, definitions }), { authorizer: new AlwaysAllowAuthorizer(), definitions });
  await registry.bootstrap();
  const { app } = createApiServerApp({ scheme, registry, logger: pino({ level: 'silent' }), health: [], version });
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await registry.close();
    await store.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = { 'Content-Type': 'application/json', Accept: 'application/json' };

t.test('discovery lists the reviews with the single verb create', async (t) => {
  const base = await serve(t);
  const res = await fetch(`${base}/apis/authorization.k8s.io/v1`);
  t.equal(res.status, 200);
  const doc = (await res.json()) as { resources: Array<{ name: string; namespaced: boolean; kind: string; verbs: string[]; storageVersionHash?: string }> };
  t.same(
    doc.resources.map((r) => [r.name, r.namespaced, r.kind, r.verbs]),
    [
      ['localsubjectaccessreviews', true, 'LocalSubjectAccessReview', ['create']],
      ['selfsubjectaccessreviews', false, 'SelfSubjectAccessReview', ['create']],
      // kube serves SelfSubjectRulesReview beside the access reviews (kubectl auth can-i --list)
      ['selfsubjectrulesreviews', false, 'SelfSubjectRulesReview', ['create']],
      ['subjectaccessreviews', false, 'SubjectAccessReview', ['create']],
    ],
  );
  // nothing is stored for a review, so (as in kube) discovery publishes no storage version hash
  t.same(doc.resources.filter((r) => r.storageVersionHash !== undefined).map((r) => r.name), []);
  const apps = (await (await fetch(`${base}/apis/apps/v1`)).json()) as { resources: Array<{ name: string; storageVersionHash?: string }> };
  t.ok(apps.resources.find((r) => r.name === 'deployments')?.storageVersionHash, 'stored kinds keep their hash');
  const groups = (await (await fetch(`${base}/apis`)).json()) as { groups: Array<{ name: string }> };
  t.ok(groups.groups.some((g) => g.name === 'authorization.k8s.io'), 'the group is listed in /apis');
});

t.test('POST selfsubjectaccessreviews answers 201 with status.allowed (what kubectl auth can-i prints)', async (t) => {
  const base = await serve(t);
  const body = {
    kind: 'SelfSubjectAccessReview',
    apiVersion: 'authorization.k8s.io/v1',
    metadata: { creationTimestamp: null },
    spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
    status: { allowed: false },
  };
  const res = await fetch(`${base}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  t.equal(res.status, 201);
  const out = (await res.json()) as Record<string, unknown>;
  t.same(out.status, { allowed: true }, 'the client-sent status is replaced by the answer');
  t.same(out.spec, body.spec);
  t.equal(out.kind, 'SelfSubjectAccessReview');

  const local = await fetch(`${base}/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ spec: { user: 'bob', resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } } }),
  });
  t.equal(local.status, 201);
  t.same(((await local.json()) as { metadata: unknown }).metadata, { namespace: 'default' });

  const bad = await fetch(`${base}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, { method: 'POST', headers: json, body: '{"spec":{}}' });
  t.equal(bad.status, 422);
  t.match(((await bad.json()) as { message: string }).message, /exactly one of nonResourceAttributes or resourceAttributes must be specified/);
});

t.test('GET, PUT, DELETE and watch on a review are 405 MethodNotAllowed', async (t) => {
  const base = await serve(t);
  const url = `${base}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`;
  for (const [method, path] of [
    ['GET', ''],
    ['GET', '?watch=true'],
    ['DELETE', ''],
    ['GET', '/x'],
    ['PUT', '/x'],
  ]) {
    const res = await fetch(`${url}${path}`, { method, headers: json, ...(method === 'PUT' ? { body: '{}' } : {}) });
    t.equal(res.status, 405, `${method} ${path}`);
    t.equal(((await res.json()) as { reason: string }).reason, 'MethodNotAllowed');
  }
});
