import t from 'tap';
import pino from 'pino';
import type { AuthorizationAttributes, Authorizer } from '../../src/api/reviews/authorizer';
import { ApiError } from '../../src/api/errors';
import type { ApiContext } from '../../src/http/context';
import { impersonation } from '../../src/http/middleware/impersonation';

/** allows the impersonations listed as `resource/name` (or `resource/subresource/name`) */
function allowing(...allowed: string[]): Authorizer & { asked: AuthorizationAttributes[] } {
  const asked: AuthorizationAttributes[] = [];
  return {
    asked,
    async authorize(a) {
      asked.push(a);
      const key = [a.resource, a.subresource, a.name].filter(Boolean).join('/');
      return { allowed: a.verb === 'impersonate' && allowed.includes(key) };
    },
  };
}

async function run(authz: Authorizer, headers: Record<string, string | string[]>) {
  const ctx = { req: { headers: { ...headers, host: 'x' } }, state: { user: { name: 'bob', groups: ['system:authenticated'] }, log: pino({ level: 'silent' }) } } as unknown as ApiContext;
  let called = false;
  await impersonation(authz)(ctx, async () => {
    called = true;
  });
  return { ctx, called };
}

t.test('no headers: the caller stays', async (t) => {
  const { ctx, called } = await run(allowing(), {});
  t.ok(called);
  t.equal(ctx.state.user?.name, 'bob');
});

t.test('user, groups, uid and extras, each authorized; headers removed', async (t) => {
  const authz = allowing('users/alice', 'groups/devs', 'groups/ops', 'userextras/scopes/read', 'uids/42');
  const { ctx, called } = await run(authz, { 'impersonate-user': 'alice', 'impersonate-group': 'devs, ops', 'impersonate-uid': '42', 'impersonate-extra-scopes': 'read' });
  t.ok(called);
  t.same(ctx.state.user, { name: 'alice', groups: ['devs', 'ops', 'system:authenticated'], uid: '42', extra: { scopes: ['read'] } });
  t.same(authz.asked.map((a) => [a.apiGroup, a.resource, a.name]), [['', 'users', 'alice'], ['', 'groups', 'devs'], ['', 'groups', 'ops'], ['authentication.k8s.io', 'userextras', 'read'], ['authentication.k8s.io', 'uids', '42']]);
  t.notOk(Object.keys(ctx.req.headers).some((h) => h.startsWith('impersonate-')), 'headers removed');
});

t.test('service accounts: checked in their namespace, their groups filled in', async (t) => {
  const authz = allowing('serviceaccounts/builder');
  const { ctx } = await run(authz, { 'impersonate-user': 'system:serviceaccount:ci:builder' });
  t.equal(authz.asked[0]!.namespace, 'ci');
  t.same(ctx.state.user?.groups, ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated']);
});

t.test('anonymous keeps system:unauthenticated', async (t) => {
  const { ctx } = await run(allowing('users/system:anonymous'), { 'impersonate-user': 'system:anonymous' });
  t.same(ctx.state.user?.groups, ['system:unauthenticated']);
});

t.test('refusals in kube words; groups without a user is a bad request', async (t) => {
  await t.rejects(run(allowing('users/alice'), { 'impersonate-user': 'alice', 'impersonate-group': 'admins' }), {
    message: 'groups "admins" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at the cluster scope',
  });
  await t.rejects(run(allowing(), { 'impersonate-user': 'alice' }), { message: 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope' });
  const err = await run(allowing(), { 'impersonate-group': 'x' }).catch((e: unknown) => e);
  t.ok(err instanceof ApiError && err.status.code === 400);
});
