import t from 'tap';
import type { Test } from 'tap';
import { ApiError } from '../../../src/api/errors';
import type { KubeObject } from '../../../src/api/kind';
import { builtinKinds } from '../../../src/api/kinds';
import { createRegistry } from '../../../src/api/registry';
import type { RegistryWithLifecycle } from '../../../src/api/registry';
import type { Target, WriteOptions } from '../../../src/api/registry/types';
import { AlwaysAllowAuthorizer, accessReviewKinds, withAccessReviews } from '../../../src/api/reviews';
import type { AuthorizationAttributes, Authorizer, Decision } from '../../../src/api/reviews';
import { Scheme } from '../../../src/api/scheme';
import { definitions } from '../../../src/schema';
import { MemoryStore } from '../../helpers/memory-store';

const W: WriteOptions = { dryRun: false };

/** records what it was asked and answers with a fixed decision */
class RecordingAuthorizer implements Authorizer {
  readonly asked: AuthorizationAttributes[] = [];
  constructor(readonly decision: Decision | Error) {}
  async authorize(attributes: AuthorizationAttributes): Promise<Decision> {
    this.asked.push(attributes);
    if (this.decision instanceof Error) throw this.decision;
    return this.decision;
  }
}

async function setup(t: Test, authorizer: Authorizer = new AlwaysAllowAuthorizer()) {
  const store = new MemoryStore();
  const scheme = new Scheme([...builtinKinds(), ...accessReviewKinds()]);
  const inner = createRegistry({ store, scheme, definitions, namespaceRetryMs: 20 });
  const registry: RegistryWithLifecycle = withAccessReviews(inner, { authorizer, definitions });
  await registry.bootstrap();
  t.teardown(async () => {
    await registry.close();
    await registry.idle();
    await store.close();
  });
  const target = (resource: string, namespace?: string): Target => {
    const group = resource.endsWith('accessreviews') ? 'authorization.k8s.io' : '';
    const kind = scheme.byResource(group, 'v1', resource);
    if (!kind) throw new Error(resource);
    return namespace === undefined ? { kind } : { kind, namespace };
  };
  return { store, registry, target };
}

async function rejection(t: Test, p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof ApiError, 'rejects with an ApiError');
  return err as ApiError;
}

const ssar = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec });

t.test('a SelfSubjectAccessReview is answered by AlwaysAllow with 201 and is never stored', async (t) => {
  const { store, registry, target } = await setup(t);
  const before = await store.currentRevision();
  const result = await registry.create(
    target('selfsubjectaccessreviews'),
    { ...ssar({ resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } }), metadata: { creationTimestamp: null } },
    W,
  );
  t.equal(result.created, true);
  t.same(result.object, {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    metadata: { creationTimestamp: null },
    spec: { resourceAttributes: { verb: 'create', resource: 'pods', namespace: 'default' } },
    status: { allowed: true },
  });
  t.equal(await store.currentRevision(), before, 'nothing was written');
  const keys = await store.list('/registry/');
  t.notOk(keys.items.some((kv) => kv.key.includes('accessreview')), 'no review key in the store');
});

t.test('the authorizer sees kube-shaped attributes and its decision becomes the status', async (t) => {
  const authz = new RecordingAuthorizer({ allowed: false, denied: true, reason: 'nope' });
  const { registry, target } = await setup(t, authz);
  const r1 = await registry.create(
    target('subjectaccessreviews'),
    {
      spec: {
        user: 'alice',
        groups: ['devs'],
        uid: 'u1',
        extra: { scopes: ['a'] },
        resourceAttributes: { verb: 'list', group: 'apps', resource: 'deployments', namespace: 'ns', labelSelector: { rawSelector: 'app=web' } },
      },
    },
    W,
  );
  t.same(r1.object.status, { allowed: false, denied: true, reason: 'nope' });
  t.same(authz.asked[0], {
    verb: 'list',
    resourceRequest: true,
    namespace: 'ns',
    apiGroup: 'apps',
    apiVersion: '*',
    resource: 'deployments',
    subresource: '',
    name: '',
    labelSelector: 'app=web',
    user: { name: 'alice', groups: ['devs'], uid: 'u1', extra: { scopes: ['a'] } },
  });

  await registry.create(target('selfsubjectaccessreviews'), ssar({ nonResourceAttributes: { path: '/healthz', verb: 'get' } }), W);
  // the caller of a SelfSubjectAccessReview comes from the request-user provider (kube asks about the
  // request's user); until authentication exists that is the admin client certificate's identity
  t.same(authz.asked[1], { verb: 'get', resourceRequest: false, path: '/healthz', user: { name: 'ballast-admin', groups: ['system:masters', 'system:authenticated'] } });
});

t.test('an authorizer failure is reported in status.evaluationError, not as a failed request', async (t) => {
  const { registry, target } = await setup(t, new RecordingAuthorizer(new Error('webhook down')));
  const r = await registry.create(target('selfsubjectaccessreviews'), ssar({ resourceAttributes: { verb: 'get', resource: 'pods' } }), W);
  t.same(r.object.status, { allowed: false, evaluationError: 'webhook down' });
});

t.test('invalid reviews are 422 with kube messages', async (t) => {
  const { registry, target } = await setup(t);
  const e1 = await rejection(t, registry.create(target('selfsubjectaccessreviews'), ssar({}), W));
  t.equal(e1.code, 422);
  t.equal(e1.status.reason, 'Invalid');
  t.equal(
    e1.message,
    'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
  );
  t.same(e1.status.details?.kind, 'SelfSubjectAccessReview');
  t.same(e1.status.details?.group, 'authorization.k8s.io');

  const e2 = await rejection(t, registry.create(target('subjectaccessreviews'), { spec: { resourceAttributes: { verb: 'get' } } }, W));
  t.equal(e2.code, 422);
  t.match(e2.message, /spec\.user: Invalid value: "": at least one of user or group must be specified/);
});

t.test('LocalSubjectAccessReview: namespace from the request, mismatches refused', async (t) => {
  const { registry, target } = await setup(t);
  const spec = { user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'team-a' } };
  const ok = await registry.create(target('localsubjectaccessreviews', 'team-a'), { spec }, W);
  t.same(ok.object.metadata, { namespace: 'team-a' }, 'namespace filled from the URL');
  t.same(ok.object.status, { allowed: true });

  const e1 = await rejection(t, registry.create(target('localsubjectaccessreviews', 'team-b'), { spec }, W));
  t.equal(e1.code, 422);
  t.match(e1.message, /spec\.resourceAttributes\.namespace: Invalid value: "team-a": must match metadata.namespace/);

  const e2 = await rejection(t, registry.create(target('localsubjectaccessreviews', 'team-b'), { metadata: { namespace: 'team-a' }, spec }, W));
  t.equal(e2.code, 400);
  t.equal(e2.message, 'the namespace of the provided object does not match the namespace sent on the request');

  const e3 = await rejection(t, registry.create(target('localsubjectaccessreviews'), { spec: { ...spec, resourceAttributes: { verb: 'get' } } }, W));
  t.equal(e3.code, 400);
  t.equal(e3.message, 'namespace is required on this type: ');
});

t.test('the decoder checks: wrong kind and types are 400; unknown fields follow fieldValidation', async (t) => {
  const { registry, target } = await setup(t);
  const sar = target('selfsubjectaccessreviews');
  const e1 = await rejection(t, registry.create(sar, { apiVersion: 'v1', kind: 'SelfSubjectAccessReview', spec: {} }, W));
  t.equal(e1.code, 400);
  t.match(e1.message, /the API version in the data \(v1\) does not match the expected API version \(authorization.k8s.io\/v1\)/);

  const e2 = await rejection(t, registry.create(sar, ssar({ resourceAttributes: 'pods' }), W));
  t.equal(e2.code, 400);
  t.match(e2.message, /^SelfSubjectAccessReview in version "v1" cannot be handled as a SelfSubjectAccessReview: /);

  const withUnknown = ssar({ resourceAttributes: { verb: 'get', resource: 'pods', colour: 'red' } });
  const e3 = await rejection(t, registry.create(sar, withUnknown, { dryRun: false, fieldValidation: 'Strict' }));
  t.equal(e3.code, 400);
  t.equal(e3.message, 'strict decoding error: unknown field "spec.resourceAttributes.colour"');

  const warned = await registry.create(sar, withUnknown, W);
  t.same(warned.warnings, ['unknown field "spec.resourceAttributes.colour"']);
  t.same(warned.object.spec, { resourceAttributes: { verb: 'get', resource: 'pods' } }, 'unknown field dropped');
  t.same(withUnknown.spec, { resourceAttributes: { verb: 'get', resource: 'pods', colour: 'red' } }, 'the caller body is not modified');

  const ignored = await registry.create(sar, withUnknown, { dryRun: false, fieldValidation: 'Ignore' });
  t.equal(ignored.warnings, undefined);
});

t.test('every other verb on a review is 405 MethodNotAllowed', async (t) => {
  const { registry, target } = await setup(t);
  const tg = { ...target('selfsubjectaccessreviews'), name: 'x' };
  const sink = { send: () => true, end: () => {} };
  const calls: Array<[string, () => Promise<unknown>]> = [
    ['get', () => registry.get(tg, {})],
    ['list', () => registry.list(tg, {})],
    ['watch', () => registry.watch(tg, {}, sink)],
    ['update', () => registry.update(tg, {}, W)],
    ['patch', () => registry.patch(tg, 'merge', '{}', W)],
    ['delete', () => registry.delete(tg, W)],
    ['deletecollection', () => registry.deleteCollection(tg, {}, W)],
    ['get', () => registry.getStatus(tg, {})],
    ['update', () => registry.updateScale(tg, {}, W)],
  ];
  for (const [verb, call] of calls) {
    const e = await rejection(t, call());
    t.equal(e.code, 405, verb);
    t.equal(e.status.reason, 'MethodNotAllowed');
    t.equal(e.message, `${verb} is not supported on resources of kind "selfsubjectaccessreviews.authorization.k8s.io"`);
  }
});

t.test('every other kind passes through to the wrapped registry, lifecycle methods included', async (t) => {
  const { store, registry, target } = await setup(t);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } };
  const created = await registry.create(target('configmaps', 'default'), cm, W);
  t.equal(created.created, true);
  t.ok(created.object.metadata?.uid, 'stored by the real registry');
  const got = await registry.get({ ...target('configmaps', 'default'), name: 'c1' }, {});
  t.same(got.data, { a: '1' });
  const list = await registry.list(target('configmaps', 'default'), {});
  t.same(list.items.map((i) => i.metadata?.name), ['c1']);
  const kv = await store.get('/registry/core/configmaps/default/c1');
  t.ok(kv, 'in the store');
  t.equal(typeof registry.idle, 'function');
  await registry.idle();
});
