import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { RbacAuthorizer } from '../../src/auth/authz/rbac';
import { StaticRbacObjects } from '../../src/auth/authz/rbac-index';

const objects: KubeObject[] = [
  { kind: 'ClusterRole', metadata: { name: 'reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }] },
  { kind: 'ClusterRole', metadata: { name: 'health' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }] },
  { kind: 'Role', metadata: { name: 'cm', namespace: 'ns1' }, rules: [{ verbs: ['update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] }] },
  { kind: 'ClusterRoleBinding', metadata: { name: 'devs-read' }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'Group', name: 'devs' }] },
  { kind: 'ClusterRoleBinding', metadata: { name: 'all-health' }, roleRef: { kind: 'ClusterRole', name: 'health' }, subjects: [{ kind: 'Group', name: 'system:unauthenticated' }] },
  { kind: 'ClusterRoleBinding', metadata: { name: 'dangling' }, roleRef: { kind: 'ClusterRole', name: 'gone' }, subjects: [{ kind: 'User', name: 'carol' }] },
  { kind: 'RoleBinding', metadata: { name: 'cm-sa', namespace: 'ns1' }, roleRef: { kind: 'Role', name: 'cm' }, subjects: [{ kind: 'ServiceAccount', name: 'bot' }] },
  { kind: 'RoleBinding', metadata: { name: 'read-here', namespace: 'ns2' }, roleRef: { kind: 'ClusterRole', name: 'reader' }, subjects: [{ kind: 'User', name: 'alice' }] },
];
const rbac = new RbacAuthorizer({ objects: new StaticRbacObjects(objects) });
const alice = { name: 'alice', groups: ['system:authenticated'] };
const dev = { name: 'dave', groups: ['devs'] };
const bot = { name: 'system:serviceaccount:ns1:bot', groups: [] };
const res = (user: typeof alice, verb: string, resource: string, namespace?: string, extra: Record<string, string> = {}) => ({ user, verb, resourceRequest: true, apiGroup: '', resource, namespace, ...extra });

t.test('cluster role bindings, with kube reasons', async (t) => {
  t.same(await rbac.authorize(res(dev, 'list', 'pods', 'any')), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "devs-read" of ClusterRole "reader" to Group "devs"' });
  t.same(await rbac.authorize(res(dev, 'get', 'pods', 'x', { subresource: 'log' })), { allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "devs-read" of ClusterRole "reader" to Group "devs"' });
  t.same(await rbac.authorize(res(dev, 'delete', 'pods', 'any')), { allowed: false }, 'no opinion');
  t.same(await rbac.authorize(res(dev, 'get', 'pods', 'x', { subresource: 'exec' })), { allowed: false });
});

t.test('role bindings only in their namespace; service accounts of the binding namespace', async (t) => {
  t.equal((await rbac.authorize(res(alice, 'get', 'pods', 'ns2'))).reason, 'RBAC: allowed by RoleBinding "read-here/ns2" of ClusterRole "reader" to User "alice"');
  t.equal((await rbac.authorize(res(alice, 'get', 'pods', 'ns1'))).allowed, false);
  t.equal((await rbac.authorize(res(alice, 'get', 'pods'))).allowed, false, 'not cluster-wide');
  t.equal((await rbac.authorize(res(bot, 'update', 'configmaps', 'ns1', { name: 'one' }))).reason, 'RBAC: allowed by RoleBinding "cm-sa/ns1" of Role "cm" to ServiceAccount "bot/ns1"');
  t.equal((await rbac.authorize(res(bot, 'update', 'configmaps', 'ns1', { name: 'two' }))).allowed, false, 'resourceNames');
});

t.test('non-resource paths and missing roles', async (t) => {
  const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
  t.equal((await rbac.authorize({ user: anon, verb: 'get', resourceRequest: false, path: '/healthz' })).allowed, true);
  t.equal((await rbac.authorize({ user: anon, verb: 'get', resourceRequest: false, path: '/api/v1' })).allowed, true, 'prefix star');
  t.equal((await rbac.authorize({ user: anon, verb: 'get', resourceRequest: false, path: '/version' })).allowed, false);
  t.same(await rbac.authorize(res({ name: 'carol', groups: [] }, 'get', 'pods')), { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' });
});

t.test('rulesFor lists cluster and namespace rules', async (t) => {
  const rules = await rbac.rulesFor(alice, 'ns2');
  t.same(rules, { resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }], nonResourceRules: [], incomplete: false });
  const carol = await rbac.rulesFor({ name: 'carol', groups: ['system:unauthenticated'] }, 'ns1');
  t.same(carol.nonResourceRules, [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/api/*'] }]);
  t.equal(carol.incomplete, true);
  t.equal(carol.evaluationError, 'clusterrole.rbac.authorization.k8s.io "gone" not found');
});
