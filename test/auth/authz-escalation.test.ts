import t from 'tap';
import type { KindDefinition, KubeObject } from '../../src/api/kind';
import type { Registry, WriteOptions } from '../../src/api/registry/types';
import type { Authorizer } from '../../src/api/reviews/authorizer';
import { RbacAuthorizer } from '../../src/auth/authz/rbac';
import { StaticRbacObjects } from '../../src/auth/authz/rbac-index';
import { compactRules, compactString, withRbacEscalationChecks } from '../../src/auth/rbac-escalation';

const kind = (k: string, resource: string, namespaced: boolean) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: k, resource, namespaced }) as unknown as KindDefinition;
const roles = kind('Role', 'roles', true);
const clusterRoles = kind('ClusterRole', 'clusterroles', false);
const bindings = kind('RoleBinding', 'rolebindings', true);

const objects: KubeObject[] = [
  { kind: 'ClusterRole', metadata: { name: 'pods' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }] },
  { kind: 'ClusterRole', metadata: { name: 'secrets' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] },
  { kind: 'ClusterRole', metadata: { name: 'rbac-writer' }, rules: [{ verbs: ['create', 'update'], apiGroups: ['rbac.authorization.k8s.io'], resources: ['*'] }] },
  { kind: 'ClusterRoleBinding', metadata: { name: 'a' }, roleRef: { kind: 'ClusterRole', name: 'pods' }, subjects: [{ kind: 'User', name: 'alice' }] },
  { kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef: { kind: 'ClusterRole', name: 'rbac-writer' }, subjects: [{ kind: 'User', name: 'alice' }] },
];

function setup(extra: Authorizer | undefined = undefined) {
  const rbac = new RbacAuthorizer({ objects: new StaticRbacObjects(objects) });
  const writes: KubeObject[] = [];
  const inner = {
    async create(_t: unknown, body: KubeObject, o: WriteOptions) {
      if (!o.dryRun) writes.push(body);
      return { object: body, created: true };
    },
    async get() {
      throw new Error('not found');
    },
  } as unknown as Registry;
  const registry = withRbacEscalationChecks(inner, { authorizer: extra ?? rbac, resolver: rbac.resolver });
  return { registry, writes };
}

const alice = { name: 'alice', groups: ['system:authenticated'] };
const role = (rules: unknown[]): KubeObject => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules });

t.test('compact form of missing rules', async (t) => {
  const compact = compactRules([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }, { verbs: ['list'], apiGroups: [''], resources: ['secrets'] }]);
  t.same(compact.map(compactString), ['{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}']);
  t.equal(compactString({ verbs: ['get'], nonResourceURLs: ['/x'] }), '{NonResourceURLs:["/x"], Verbs:["get"]}');
});

t.test('roles: held rules pass, others are refused in kube words', async (t) => {
  const { registry, writes } = setup();
  await registry.create({ kind: roles, namespace: 'ns' }, role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), { dryRun: false, user: alice });
  t.equal(writes.length, 1);
  await t.rejects(registry.create({ kind: roles, namespace: 'ns' }, role([{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] }]), { dryRun: false, user: alice }), {
    message: 'roles.rbac.authorization.k8s.io "r" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}',
  });
  t.equal(writes.length, 1, 'nothing written');
  await registry.create({ kind: clusterRoles }, { ...role([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), kind: 'ClusterRole' }, { dryRun: false, user: { name: 'root', groups: ['system:masters'] } });
  await registry.create({ kind: clusterRoles }, { ...role([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), kind: 'ClusterRole' }, { dryRun: false });
  t.equal(writes.length, 3, 'system:masters and unauthenticated servers are not checked');
});

t.test('escalate and bind verbs', async (t) => {
  const escalate: Authorizer = { authorize: async (a) => ({ allowed: a.verb === 'escalate' || a.verb === 'bind' }) };
  const { registry, writes } = setup(escalate);
  await registry.create({ kind: roles, namespace: 'ns' }, role([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }]), { dryRun: false, user: alice });
  t.equal(writes.length, 1, 'escalate allows any rules');
  const binding = (ref: string): KubeObject => ({ kind: 'RoleBinding', metadata: { name: 'b', namespace: 'ns' }, roleRef: { kind: 'ClusterRole', name: ref, apiGroup: 'rbac.authorization.k8s.io' }, subjects: [] });
  await registry.create({ kind: bindings, namespace: 'ns' }, binding('secrets'), { dryRun: false, user: alice });
  t.equal(writes.length, 2, 'bind allows any role');
  const plain = setup();
  await plain.registry.create({ kind: bindings, namespace: 'ns' }, binding('pods'), { dryRun: false, user: alice });
  t.equal(plain.writes.length, 1, 'a role whose rules are held');
  await t.rejects(plain.registry.create({ kind: bindings, namespace: 'ns' }, binding('secrets'), { dryRun: false, user: alice }), { message: /^rolebindings\.rbac\.authorization\.k8s\.io "b" is forbidden: user "alice" .*\n\{APIGroups:\[""\], Resources:\["secrets"\], Verbs:\["get"\]\}$/ });
  await t.rejects(plain.registry.create({ kind: bindings, namespace: 'ns' }, binding('missing'), { dryRun: false, user: alice }), { message: 'rolebindings.rbac.authorization.k8s.io "b" is forbidden: clusterrole.rbac.authorization.k8s.io "missing" not found' });
});
