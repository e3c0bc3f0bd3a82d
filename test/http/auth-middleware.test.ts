import t from 'tap';
import type { AuthorizationAttributes, Authorizer } from '../../src/api/reviews/authorizer';
import { AuthenticationError, authenticatorChain } from '../../src/auth/authenticator';
import type { RequestAuthenticator } from '../../src/auth/authenticator';
import { getJson, startTestServer } from './helpers';

/** `Authorization: Bearer good` is alice; `Bearer bad` is a bad credential; anything else unknown */
const tokens: RequestAuthenticator = {
  async authenticate(req) {
    const auth = req.headers.authorization;
    if (auth === 'Bearer good') return { user: { name: 'alice', groups: ['devs'] } };
    if (auth === 'Bearer bad') throw new AuthenticationError('invalid bearer token');
    return undefined;
  },
};

/** alice may list widgets in namespace a; everyone may get /version */
class TestAuthorizer implements Authorizer {
  seen: AuthorizationAttributes[] = [];
  async authorize(a: AuthorizationAttributes) {
    this.seen.push(a);
    if (!a.resourceRequest) return { allowed: a.path === '/version' };
    if (a.user?.name === 'alice' && a.verb === 'list' && a.resource === 'widgets' && a.namespace === 'a') return { allowed: true };
    return { allowed: false, reason: a.user?.name === 'alice' ? 'no rule allows it' : undefined };
  }
}

t.test('authentication: recognized, unknown (anonymous or 401) and bad credentials', async (t) => {
  for (const anonymous of [true, false]) {
    const authz = new TestAuthorizer();
    const s = await startTestServer({ authenticator: authenticatorChain([tokens], { anonymous }), authorizer: authz });
    t.teardown(() => s.close());
    const ok = await getJson(`${s.url}/apis/test.ballast.io/v1/namespaces/a/widgets`, { headers: { authorization: 'Bearer good' } });
    t.equal(ok.status, 200);
    t.same(authz.seen.at(-1)!.user, { name: 'alice', groups: ['devs', 'system:authenticated'] }, 'system:authenticated is added');

    const bad = await getJson(`${s.url}/version`, { headers: { authorization: 'Bearer bad' } });
    t.equal(bad.status, 401, 'a bad credential is refused even with anonymous access on');
    t.same(bad.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });

    const none = await getJson(`${s.url}/version`);
    if (anonymous) {
      t.equal(none.status, 200, 'anonymous request allowed');
      t.same(authz.seen.at(-1)!.user, { name: 'system:anonymous', groups: ['system:unauthenticated'] });
    } else {
      t.equal(none.status, 401, 'no credential and no anonymous access');
    }
  }
});

t.test('authorization: 403 in kube words, with the reason', async (t) => {
  const s = await startTestServer({ authenticator: authenticatorChain([tokens], { anonymous: true }), authorizer: new TestAuthorizer() });
  t.teardown(() => s.close());
  const alice = { headers: { authorization: 'Bearer good' } };
  const ns = await getJson(`${s.url}/apis/test.ballast.io/v1/namespaces/b/widgets/w1`, alice);
  t.equal(ns.status, 403);
  t.same(ns.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'widgets.test.ballast.io "w1" is forbidden: User "alice" cannot get resource "widgets" in API group "test.ballast.io" in the namespace "b": no rule allows it',
    reason: 'Forbidden',
    details: { name: 'w1', group: 'test.ballast.io', kind: 'widgets' },
    code: 403,
  });
  const cluster = await getJson(`${s.url}/apis/test.ballast.io/v1/widgets`);
  t.equal(cluster.body.message, 'widgets.test.ballast.io is forbidden: User "system:anonymous" cannot list resource "widgets" in API group "test.ballast.io" at the cluster scope');
  const status = await getJson(`${s.url}/apis/test.ballast.io/v1/namespaces/a/widgets/w/status`, { method: 'PUT', body: '{}', headers: { 'content-type': 'application/json' } });
  t.match(status.body.message, /cannot update resource "widgets\/status" in API group/);
  const path = await getJson(`${s.url}/healthz`);
  t.equal(path.status, 403);
  t.equal(path.body.message, 'forbidden: User "system:anonymous" cannot get path "/healthz"');
  t.same(path.body.details, {});
});
