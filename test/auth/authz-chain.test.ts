import t from 'tap';
import type { Authorizer, Decision } from '../../src/api/reviews/authorizer';
import { AlwaysDenyAuthorizer, PrivilegedGroupsAuthorizer } from '../../src/auth/authz/always';
import { buildAuthorizer, validateAuthorizationConfig } from '../../src/auth/authz/config';
import { UnionAuthorizer } from '../../src/auth/authz/union';

const fixed = (d: Decision): Authorizer => ({ authorize: async () => d });
const attrs = { user: { name: 'alice', groups: ['system:authenticated'] }, verb: 'get', resourceRequest: true, resource: 'pods' };

t.test('the first authorizer that allows or denies decides', async (t) => {
  const allow = new UnionAuthorizer([fixed({ allowed: false, reason: 'a' }), fixed({ allowed: true, reason: 'yes' }), fixed({ allowed: false, denied: true })]);
  t.same(await allow.authorize(attrs), { allowed: true, reason: 'yes' });
  const deny = new UnionAuthorizer([fixed({ allowed: false, denied: true, reason: 'no' }), fixed({ allowed: true })]);
  t.same(await deny.authorize(attrs), { allowed: false, denied: true, reason: 'no' });
});

t.test('no opinion from all: not allowed, reasons joined one a line, errors kept', async (t) => {
  const none = new UnionAuthorizer([fixed({ allowed: false, reason: 'first' }), fixed({ allowed: false }), fixed({ allowed: false, reason: 'second', evaluationError: 'boom' })]);
  t.same(await none.authorize(attrs), { allowed: false, reason: 'first\nsecond', evaluationError: 'boom' });
  const throwing = new UnionAuthorizer([{ authorize: async () => { throw new Error('down'); } }, fixed({ allowed: true })]);
  t.same(await throwing.authorize(attrs), { allowed: true }, 'a failing authorizer has no opinion');
});

t.test('rules are concatenated; an authorizer without rulesFor makes them incomplete', async (t) => {
  const rules: Authorizer = { authorize: async () => ({ allowed: false }), rulesFor: async () => ({ resourceRules: [{ verbs: ['get'] }], nonResourceRules: [], incomplete: false }) };
  t.same(await new UnionAuthorizer([rules, rules]).rulesFor(undefined, 'ns'), { resourceRules: [{ verbs: ['get'] }, { verbs: ['get'] }], nonResourceRules: [], incomplete: false });
  t.equal((await new UnionAuthorizer([rules, fixed({ allowed: true })]).rulesFor(undefined, 'ns')).incomplete, true);
});

t.test('AlwaysDeny and system:masters', async (t) => {
  t.same(await new AlwaysDenyAuthorizer().authorize(), { allowed: false, reason: 'Everything is forbidden.' });
  const masters = new PrivilegedGroupsAuthorizer(['system:masters']);
  t.equal((await masters.authorize({ ...attrs, user: { name: 'x', groups: ['system:masters'] } })).allowed, true);
  t.equal((await masters.authorize(attrs)).allowed, false);
  const chain = buildAuthorizer({ modes: ['AlwaysDeny'] }, {});
  t.equal((await chain.authorize({ ...attrs, user: { name: 'x', groups: ['system:masters'] } })).allowed, true, 'masters pass AlwaysDeny');
  t.same(await chain.authorize(attrs), { allowed: false, reason: 'Everything is forbidden.' });
});

t.test('flag checks in kube words', async (t) => {
  t.throws(() => validateAuthorizationConfig({ modes: [] }), { message: 'at least one authorization-mode must be passed' });
  t.throws(() => validateAuthorizationConfig({ modes: ['ABAC'] }), { message: "authorization-mode ABAC's authorization policy file not passed" });
  t.throws(() => validateAuthorizationConfig({ modes: ['Webhook'] }), { message: "authorization-mode Webhook's authorization config file not passed" });
  t.throws(() => validateAuthorizationConfig({ modes: ['RBAC'], policyFile: '/p' }), { message: 'cannot specify --authorization-policy-file without mode ABAC' });
  t.throws(() => validateAuthorizationConfig({ modes: ['RBAC'], webhookConfigFile: '/w' }), { message: 'cannot specify --authorization-webhook-config-file without mode Webhook' });
  t.throws(() => validateAuthorizationConfig({ modes: ['RBAC', 'RBAC'] }), { message: 'authorization-mode ["RBAC" "RBAC"] has mode specified more than once' });
  t.doesNotThrow(() => validateAuthorizationConfig({ modes: ['Node', 'RBAC'] }));
});
