/**
 * Bootstrap RBAC at registry level: a fresh store gets kube's roles and bindings; at the next start
 * a role missing a rule (or a binding missing a subject) gets it back, and an object annotated
 * autoupdate "false" is left as the user made it.
 */
import t from 'tap';
import { builtinBootstrapObjects } from '../../../src/api/kinds/bootstrap';
import type { KubeObject } from '../../../src/api/kind';
import { covers } from '../../../src/api/kinds/rbac/rule-matching';
import { FeatureGates } from '../../../src/options/feature-gates';
import { makeFixture, storeKinds, write } from '../../helpers/registry-fixture';

const RBAC = 'rbac.authorization.k8s.io';

for (const backend of storeKinds()) {
  t.test(`bootstrap RBAC (${backend})`, async (t) => {
    const f = await makeFixture(backend, { bootstrapObjects: builtinBootstrapObjects });
    t.teardown(() => f.close());
    const target = (resource: string, name?: string, namespace?: string) => ({ kind: f.kind(resource, RBAC), name, namespace });

    t.test('a fresh store has the roles and bindings of kube 1.20', async (t) => {
      const roles = await f.registry.list(target('clusterroles'), {});
      const names = roles.items.map((r) => r.metadata!.name!);
      for (const n of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:node',
        'system:kube-scheduler', 'system:kube-controller-manager', 'system:volume-scheduler', 'system:aggregate-to-edit',
        'system:controller:deployment-controller', 'system:controller:namespace-controller', 'system:certificates.k8s.io:kube-apiserver-client-approver']) {
        t.ok(names.includes(n), n);
      }
      t.equal(names.length, 59);
      const admin = roles.items.find((r) => r.metadata!.name === 'admin')!;
      t.same(admin.metadata!.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults' });
      t.same(admin.metadata!.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
      t.same(admin.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }] });
      // what kube's aggregation controller fills in: admin covers edit and view
      const rulesOf = (n: string) => roles.items.find((r) => r.metadata!.name === n)!.rules as unknown[];
      t.ok(covers(rulesOf('admin'), rulesOf('edit')).covered, 'admin covers edit');
      t.ok(covers(rulesOf('edit'), rulesOf('view')).covered, 'edit covers view');
      t.ok(covers(rulesOf('admin'), rulesOf('system:aggregate-to-admin')).covered, 'admin covers aggregate-to-admin');

      const bindings = await f.registry.list(target('clusterrolebindings'), {});
      const admins = bindings.items.find((b) => b.metadata!.name === 'cluster-admin')!;
      t.same(admins.subjects, [{ kind: 'Group', apiGroup: RBAC, name: 'system:masters' }]);
      t.same(admins.roleRef, { apiGroup: RBAC, kind: 'ClusterRole', name: 'cluster-admin' });
      const controller = bindings.items.find((b) => b.metadata!.name === 'system:controller:job-controller')!;
      t.same(controller.subjects, [{ kind: 'ServiceAccount', name: 'job-controller', namespace: 'kube-system' }]);

      const roleNames = (await f.registry.list(target('roles'), {})).items.map((r) => `${r.metadata!.namespace}/${r.metadata!.name}`).sort();
      t.same(roleNames, [
        'kube-public/system:controller:bootstrap-signer',
        'kube-system/extension-apiserver-authentication-reader',
        'kube-system/system::leader-locking-kube-controller-manager',
        'kube-system/system::leader-locking-kube-scheduler',
        'kube-system/system:controller:bootstrap-signer',
        'kube-system/system:controller:cloud-provider',
        'kube-system/system:controller:token-cleaner',
      ]);
      const reader = await f.registry.get(target('rolebindings', 'system::extension-apiserver-authentication-reader', 'kube-system'), {});
      t.same(reader.roleRef, { apiGroup: RBAC, kind: 'Role', name: 'extension-apiserver-authentication-reader' });
    });

    t.test('a role missing a rule gets it back; an autoupdate=false role is left alone', async (t) => {
      const node = await f.registry.get(target('clusterroles', 'system:node'), {});
      const removed = (node.rules as unknown[])[0];
      await f.registry.update(target('clusterroles', 'system:node'), { ...node, rules: (node.rules as unknown[]).slice(1) }, write);

      const view = await f.registry.get(target('clusterroles', 'system:discovery'), {});
      const mine: KubeObject = {
        ...view,
        metadata: { ...view.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } },
        rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }],
      };
      const kept = (await f.registry.update(target('clusterroles', 'system:discovery'), mine, write)).object;

      const binding = await f.registry.get(target('clusterrolebindings', 'system:basic-user'), {});
      await f.registry.update(target('clusterrolebindings', 'system:basic-user'), { ...binding, subjects: [] }, write);

      await f.registry.bootstrap(); // the next start

      const back = await f.registry.get(target('clusterroles', 'system:node'), {});
      t.ok(covers(back.rules as unknown[], [removed]).covered, 'the removed rule is covered again');
      t.equal((back.rules as unknown[]).length, (node.rules as unknown[]).length, 'added back as kube adds it (one verb per rule)');
      const after = await f.registry.get(target('clusterroles', 'system:discovery'), {});
      t.same(after, kept, 'the protected role is untouched');
      const bindingAfter = await f.registry.get(target('clusterrolebindings', 'system:basic-user'), {});
      t.same(bindingAfter.subjects, [{ kind: 'Group', apiGroup: RBAC, name: 'system:authenticated' }]);

      const untouched = await f.registry.get(target('clusterroles', 'cluster-admin'), {});
      await f.registry.bootstrap();
      t.equal((await f.registry.get(target('clusterroles', 'cluster-admin'), {})).metadata!.resourceVersion, untouched.metadata!.resourceVersion, 'nothing rewritten when nothing is missing');
    });
  });
}

t.test('the gated controllers\' roles exist only with their feature gates on', async (t) => {
  const roleNames = (gates?: FeatureGates) =>
    builtinBootstrapObjects(gates).filter((b) => b.object.kind === 'ClusterRole').map((b) => b.object.metadata!.name!);
  const byDefault = roleNames(new FeatureGates());
  t.notOk(byDefault.includes('system:controller:ttl-after-finished-controller'), 'TTLAfterFinished is alpha, off, in 1.20');
  t.notOk(byDefault.includes('system:controller:ephemeral-volume-controller'));
  const gated = roleNames(new FeatureGates({ TTLAfterFinished: true, GenericEphemeralVolume: true }));
  t.ok(gated.includes('system:controller:ttl-after-finished-controller'));
  t.ok(gated.includes('system:controller:ephemeral-volume-controller'));
  const bindings = builtinBootstrapObjects(new FeatureGates({ TTLAfterFinished: true })).filter((b) => b.object.kind === 'ClusterRoleBinding');
  t.ok(bindings.some((b) => b.object.metadata!.name === 'system:controller:ttl-after-finished-controller'), 'bound to kube-system/ttl-after-finished-controller');
});
