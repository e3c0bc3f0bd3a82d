/**
 * The reviews beside the v1 access reviews: TokenReview and SelfSubjectReview (authentication.k8s.io
 * v1 and v1beta1), SelfSubjectRulesReview and the v1beta1 access reviews (authorization.k8s.io).
 */
import t from 'tap';
import type { Test } from 'tap';
import { ApiError } from '../../../src/api/errors';
import { builtinKinds } from '../../../src/api/kinds';
import { createRegistry } from '../../../src/api/registry';
import type { WriteOptions } from '../../../src/api/registry/types';
import { AlwaysAllowAuthorizer, FixedUserProvider, accessReviewKinds, withAccessReviews } from '../../../src/api/reviews';
import type { AccessReviewsOptions, AuthorizationAttributes, Authorizer, Decision } from '../../../src/api/reviews';
import { Scheme } from '../../../src/api/scheme';
import { definitions } from '../../../src/schema';
import { MemoryStore } from '../../helpers/memory-store';

const W: WriteOptions = { dryRun: false };

async function setup(t: Test, opts: Partial<AccessReviewsOptions> = {}) {
  const store = new MemoryStore();
  const scheme = new Scheme([...builtinKinds(), ...accessReviewKinds()]);
  const registry = withAccessReviews(createRegistry({ store, scheme, definitions, namespaceRetryMs: 20 }), { authorizer: new AlwaysAllowAuthorizer(), definitions, ...opts });
  await registry.bootstrap();
  t.teardown(async () => {
    await registry.close();
    await registry.idle();
    await store.close();
  });
  const target = (group: string, version: string, resource: string, namespace?: string) => {
    const kind = scheme.byResource(group, version, resource);
    if (!kind) throw new Error(resource);
    return namespace === undefined ? { kind } : { kind, namespace };
  };
  return { scheme, registry, target };
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

t.test('discovery: both groups and versions serve their reviews, create only', async (t) => {
  const { scheme } = await setup(t);
  const names = (group: string, version: string) => scheme.kinds.filter((k) => k.group === group && k.version === version).map((k) => `${k.resource}:${k.verbs!.join()}`);
  t.same(names('authentication.k8s.io', 'v1'), ['selfsubjectreviews:create', 'tokenreviews:create']);
  t.same(names('authentication.k8s.io', 'v1beta1'), ['selfsubjectreviews:create', 'tokenreviews:create']);
  t.same(names('authorization.k8s.io', 'v1beta1'), [
    'localsubjectaccessreviews:create', 'selfsubjectaccessreviews:create', 'selfsubjectrulesreviews:create', 'subjectaccessreviews:create',
  ]);
});

t.test('TokenReview: a token is required; without an authenticator the review comes back as sent', async (t) => {
  const { registry, target } = await setup(t);
  const err = await rejection(registry.create(target('authentication.k8s.io', 'v1', 'tokenreviews'), { spec: {} }, W));
  t.same([err.code, err.message], [400, 'token is required for TokenReview in authentication']);
  const res = await registry.create(target('authentication.k8s.io', 'v1', 'tokenreviews'), { spec: { token: 'abc' } }, W);
  t.same(res.object, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', metadata: {}, spec: { token: 'abc' } });
  t.equal(res.created, true);
});

t.test('TokenReview with an authenticator: user, audiences, errors', async (t) => {
  const asked: Array<[string, string[]]> = [];
  const { registry, target } = await setup(t, {
    apiAudiences: ['https://kubernetes.default.svc'],
    tokenAuthenticator: {
      async authenticateToken(token, audiences) {
        asked.push([token, audiences]);
        if (token === 'broken') throw new Error('token expired');
        if (token === 'elsewhere') return { user: { name: 'x', groups: [] }, audiences: ['other'] };
        return token === 'good' ? { user: { name: 'jane', uid: 'u1', groups: ['devs'] }, audiences: audiences.slice(0, 1) } : undefined;
      },
    },
  });
  const tr = target('authentication.k8s.io', 'v1beta1', 'tokenreviews');
  const good = await registry.create(tr, { spec: { token: 'good' } }, W);
  t.same(good.object.status, { authenticated: true, user: { username: 'jane', uid: 'u1', groups: ['devs'] }, audiences: ['https://kubernetes.default.svc'] });
  t.same(asked[0], ['good', ['https://kubernetes.default.svc']], 'the server audiences when the review names none');
  t.same((await registry.create(tr, { spec: { token: 'nobody', audiences: ['a'] } }, W)).object.status, {});
  t.same((await registry.create(tr, { spec: { token: 'broken' } }, W)).object.status, { error: 'token expired' });
  const err = await rejection(registry.create(tr, { spec: { token: 'elsewhere' } }, W));
  t.same([err.code, err.message], [500, 'Internal error occurred: error validating audiences']);
});

t.test('SelfSubjectReview answers the request user (kubectl auth whoami)', async (t) => {
  const { registry, target } = await setup(t);
  const res = await registry.create(target('authentication.k8s.io', 'v1', 'selfsubjectreviews'), { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, W);
  t.same(res.object.status, { userInfo: { username: 'ballast-admin', groups: ['system:masters', 'system:authenticated'] } });
  t.match(res.object.metadata?.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  const other = await setup(t, { users: new FixedUserProvider({ user: { name: 'jane', groups: ['devs'], extra: { scope: ['x'] } } }) });
  const beta = await other.registry.create(other.target('authentication.k8s.io', 'v1beta1', 'selfsubjectreviews'), {}, W);
  t.same(beta.object.apiVersion, 'authentication.k8s.io/v1beta1');
  t.same(beta.object.status, { userInfo: { username: 'jane', groups: ['devs'], extra: { scope: ['x'] } } });
});

t.test("SelfSubjectRulesReview: AlwaysAllow answers kube's * rules, complete", async (t) => {
  const { registry, target } = await setup(t);
  const ssrr = target('authorization.k8s.io', 'v1', 'selfsubjectrulesreviews');
  const res = await registry.create(ssrr, { spec: { namespace: 'default' } }, W);
  t.same(res.object, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: {},
    spec: {},
    status: {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    },
  });
  const err = await rejection(registry.create(ssrr, { spec: {} }, W));
  t.same([err.code, err.message], [400, 'no namespace on request']);

  // an authorizer that cannot list rules (a webhook) makes the answer incomplete
  const webhookLike: Authorizer = { authorize: async () => ({ allowed: false }) };
  const other = await setup(t, { authorizer: webhookLike });
  const incomplete = await other.registry.create(other.target('authorization.k8s.io', 'v1beta1', 'selfsubjectrulesreviews'), { spec: { namespace: 'x' } }, W);
  t.same(incomplete.object.status, { resourceRules: [], nonResourceRules: [], incomplete: true });
});

t.test('v1beta1 access reviews name the groups `group`', async (t) => {
  const asked: AuthorizationAttributes[] = [];
  const authorizer: Authorizer = {
    async authorize(a): Promise<Decision> {
      asked.push(a);
      return { allowed: true, reason: 'yes' };
    },
  };
  const { registry, target } = await setup(t, { authorizer });
  const sar = target('authorization.k8s.io', 'v1beta1', 'subjectaccessreviews');
  const spec = { group: ['devs'], resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'ns' } };
  const res = await registry.create(sar, { apiVersion: 'authorization.k8s.io/v1beta1', kind: 'SubjectAccessReview', spec }, W);
  t.same(res.object.spec, spec, 'the answer keeps the v1beta1 form');
  t.same(res.object.status, { allowed: true, reason: 'yes' });
  t.same(asked[0].user, { name: '', groups: ['devs'] });
  const err = await rejection(registry.create(sar, { spec: { resourceAttributes: { verb: 'get' } } }, W));
  t.same([err.code, err.status.details?.causes?.[0]?.field], [422, 'spec.user']);
});
