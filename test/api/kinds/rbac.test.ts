import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { fillAggregatedRules } from '../../../src/api/kinds/rbac/aggregation';
import { reconcileBinding, reconcileRole } from '../../../src/api/kinds/rbac/bootstrap/reconcile';
import { rule } from '../../../src/api/kinds/rbac/policy-rule';
import { breakdownRule, covers, ruleAllows } from '../../../src/api/kinds/rbac/rule-matching';
import { subjectMatches } from '../../../src/api/kinds/rbac/subjects';
import { create, fields, kind } from './helpers';

const RBAC = 'rbac.authorization.k8s.io';
const role = (rules: unknown[]): KubeObject => ({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'r', namespace: 'ns' }, rules });
const clusterRole = (extra: Record<string, unknown>): KubeObject => ({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name: 'c' }, ...extra });

t.test('rules need verbs, and groups and resources or (cluster roles only) URLs', async (t) => {
  const r = kind(RBAC, 'v1', 'Role');
  const c = kind(RBAC, 'v1', 'ClusterRole');
  t.same(create(r, role([{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }])), []);
  const causes = create(r, role([{ apiGroups: [''], resources: [] }]));
  t.same(causes, [
    { reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value', field: 'rules[0].verbs' },
    { reason: 'FieldValueRequired', message: 'Required value: resource rules must supply at least one resource', field: 'rules[0].resources' },
  ]);
  t.same(fields(create(r, role([{ verbs: ['get'], resources: ['pods'] }]))), ['rules[0].apiGroups']);
  t.same(create(r, role([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }])), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs', field: 'rules[0].nonResourceURLs' },
  ]);
  t.same(create(c, clusterRole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] })), []);
  t.same(create(c, clusterRole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/x'], resources: ['pods'] }] }))[0].message,
    'Invalid value: []string{"/x"}: rules cannot apply to both regular resources and non-resource URLs');
});

t.test('an aggregationRule needs at least one valid selector', async (t) => {
  const c = kind(RBAC, 'v1', 'ClusterRole');
  t.same(create(c, clusterRole({ aggregationRule: {} })), [
    { reason: 'FieldValueRequired', message: 'Required value: at least one clusterRoleSelector required if aggregationRule is non-nil', field: 'aggregationRule.clusterRoleSelectors' },
  ]);
  t.same(fields(create(c, clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Bad' }] }] } }))), [
    'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator',
  ]);
  t.equal(c.nameValidation, 'pathSegment', "names are kube's ValidateRBACName: path segments");
});

const binding = (k: 'RoleBinding' | 'ClusterRoleBinding', roleRef: Record<string, unknown>, subjects: unknown[] = [], version = 'v1'): KubeObject => ({
  apiVersion: `${RBAC}/${version}`,
  kind: k,
  metadata: { name: 'b', ...(k === 'RoleBinding' ? { namespace: 'ns' } : {}) },
  roleRef,
  subjects,
});

t.test('bindings: roleRef defaults, kinds per binding type, subjects', async (t) => {
  const rb = kind(RBAC, 'v1', 'RoleBinding');
  const crb = kind(RBAC, 'v1', 'ClusterRoleBinding');
  const ok = binding('RoleBinding', { kind: 'Role', name: 'r' }, [{ kind: 'User', name: 'jane' }, { kind: 'ServiceAccount', name: 'sa' }]);
  t.same(create(rb, ok), []);
  t.same(ok.roleRef, { kind: 'Role', name: 'r', apiGroup: RBAC }, 'roleRef.apiGroup defaulted');
  t.same(ok.subjects, [{ kind: 'User', name: 'jane', apiGroup: RBAC }, { kind: 'ServiceAccount', name: 'sa' }], 'subject groups defaulted');
  t.same(create(crb, binding('ClusterRoleBinding', { kind: 'Role', name: 'r' })), [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Role": supported values: "ClusterRole"', field: 'roleRef.kind' },
  ]);
  t.same(fields(create(crb, binding('ClusterRoleBinding', { apiGroup: 'x', kind: 'ClusterRole', name: 'a/b' }))), ['roleRef.apiGroup', 'roleRef.name']);
  t.same(fields(create(crb, binding('ClusterRoleBinding', { kind: 'ClusterRole', name: '' }))), ['roleRef.name']);
  const subjects = create(crb, binding('ClusterRoleBinding', { kind: 'ClusterRole', name: 'c' }, [
    { kind: 'ServiceAccount', name: 'sa' },
    { kind: 'ServiceAccount', name: 'Bad_Name', namespace: 'x', apiGroup: 'v1' },
    { kind: 'Group', apiGroup: 'other', name: 'g' },
    { kind: 'Robot', name: 'r2' },
    { kind: 'User', name: '' },
  ]));
  t.same(fields(subjects), [
    'subjects[0].namespace',
    'subjects[1].name',
    'subjects[1].apiGroup',
    'subjects[2].apiGroup',
    'subjects[3].kind',
    'subjects[4].name',
  ]);
  t.equal(subjects[4].message, 'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"');
});

t.test('roleRef is immutable', async (t) => {
  const rb = kind(RBAC, 'v1', 'RoleBinding');
  const old = binding('RoleBinding', { apiGroup: RBAC, kind: 'Role', name: 'r' });
  const next = binding('RoleBinding', { apiGroup: RBAC, kind: 'ClusterRole', name: 'r' });
  t.same(rb.strategy.validate(next, old), [
    {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"r"}: cannot change roleRef',
      field: 'roleRef',
    },
  ]);
  t.same(rb.strategy.validate(old, old), []);
});

t.test('v1alpha1 subjects carry apiVersion, converted to and from the stored apiGroup as kube does', async (t) => {
  const alpha = kind(RBAC, 'v1alpha1', 'ClusterRoleBinding');
  const obj = binding('ClusterRoleBinding', { kind: 'ClusterRole', name: 'c' }, [
    { kind: 'User', name: 'jane' },
    { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
    { kind: 'Robot', apiVersion: 'robots.example.com/v2', name: 'r' },
  ], 'v1alpha1');
  t.same(create(alpha, obj).map((c) => c.field), ['subjects[2].kind']);
  t.same((obj.subjects as unknown[]).slice(0, 2), [
    { kind: 'User', name: 'jane', apiVersion: `${RBAC}/v1alpha1` },
    { kind: 'ServiceAccount', name: 'sa', namespace: 'ns', apiVersion: 'v1' },
  ], 'v1alpha1 defaults');
  const stored = alpha.toStorage!(obj);
  t.equal(stored.apiVersion, `${RBAC}/v1`);
  t.same(stored.subjects, [
    { kind: 'User', apiGroup: RBAC, name: 'jane' },
    { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
    { kind: 'Robot', apiGroup: 'robots.example.com', name: 'r' },
  ]);
  const back = alpha.fromStorage!(stored);
  t.same(back.subjects, [
    { kind: 'User', apiVersion: `${RBAC}/v1alpha1`, name: 'jane' },
    { kind: 'ServiceAccount', apiVersion: 'v1', name: 'sa', namespace: 'ns' },
    // kube keeps only the group of an unknown kind's version
    { kind: 'Robot', apiVersion: 'robots.example.com/', name: 'r' },
  ]);
  const beta = kind(RBAC, 'v1beta1', 'ClusterRoleBinding');
  t.same(beta.fromStorage!(stored), { ...stored, apiVersion: `${RBAC}/v1beta1` }, 'v1beta1 has the v1 fields');
});

t.test('tables: roles print their creation time, bindings role and subjects', async (t) => {
  const now = new Date('2024-05-01T12:00:00Z');
  const c = kind(RBAC, 'v1', 'ClusterRole');
  t.same(c.table!.columns.map((col) => [col.name, col.type, col.priority]), [['Name', 'string', 0], ['Created At', 'date', 0]]);
  t.same(c.table!.cells(clusterRole({ metadata: { name: 'c', creationTimestamp: '2024-05-01T10:00:00Z' } }), now), ['c', '2024-05-01T10:00:00Z']);
  const crb = kind(RBAC, 'v1', 'ClusterRoleBinding');
  t.same(crb.table!.columns.map((col) => [col.name, col.priority]), [['Name', 0], ['Role', 0], ['Age', 0], ['Users', 1], ['Groups', 1], ['ServiceAccounts', 1]]);
  const b = binding('ClusterRoleBinding', { kind: 'ClusterRole', name: 'view' }, [
    { kind: 'User', name: 'a' }, { kind: 'User', name: 'b' }, { kind: 'Group', name: 'g' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
  ]);
  b.metadata!.creationTimestamp = '2024-05-01T10:00:00Z';
  t.same(crb.table!.cells(b, now), ['b', 'ClusterRole/view', '120m', 'a, b', 'g', 'ns/sa']);
});

t.test('rule matching as the RBAC authorizer does it', async (t) => {
  const r = rule('get', 'list').groups('', 'apps').resources('pods', '*/scale').names('web').build();
  t.same(r, { verbs: ['get', 'list'], apiGroups: ['', 'apps'], resources: ['*/scale', 'pods'], resourceNames: ['web'] }, 'builder sorts');
  t.ok(ruleAllows(r, { verb: 'get', resourceRequest: true, apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' }));
  t.notOk(ruleAllows(r, { verb: 'get', resourceRequest: true, apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'api' }));
  t.notOk(ruleAllows(r, { verb: 'delete', resourceRequest: true, apiGroup: '', resource: 'pods', name: 'web' }));
  const urls = rule('get').urls('/healthz/*').build();
  t.ok(ruleAllows(urls, { verb: 'get', resourceRequest: false, path: '/healthz/etcd' }));
  t.notOk(ruleAllows(urls, { verb: 'get', resourceRequest: false, path: '/metrics' }));
  t.equal(breakdownRule(rule('get', 'list').groups('').resources('pods', 'secrets').build()).length, 4);
  const owner = [rule('*').groups('*').resources('*/scale').build(), rule('get').groups('').resources('pods').build()];
  t.same(covers(owner, [rule('update').groups('apps').resources('deployments/scale').build()]), { covered: true, uncovered: [] });
  t.same(covers(owner, [rule('get', 'list').groups('').resources('pods').build()]).uncovered, [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
  t.notOk(covers([rule('get').groups('').resources('pods').names('a').build()], [rule('get').groups('').resources('pods').build()]).covered, 'named rules do not cover all names');
  t.ok(subjectMatches({ kind: 'ServiceAccount', name: 'sa' }, { name: 'system:serviceaccount:ns:sa', groups: [] }, 'ns'));
  t.ok(subjectMatches({ kind: 'Group', name: 'devs' }, { name: 'x', groups: ['devs'] }, ''));
});

t.test('aggregation collects the selected roles in name order, each rule once', async (t) => {
  const label = (l: string) => ({ name: l, labels: { [l]: 'true' } });
  const roles: KubeObject[] = [
    { kind: 'ClusterRole', metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { b: 'true' } }, { matchLabels: { a: 'true' } }] } },
    { kind: 'ClusterRole', metadata: label('b'), rules: [{ verbs: ['get'], apiGroups: [''], resources: ['b'] }] },
    { kind: 'ClusterRole', metadata: label('a'), rules: [{ verbs: ['get'], apiGroups: [''], resources: ['a'] }, { verbs: ['get'], apiGroups: [''], resources: ['b'] }] },
  ];
  fillAggregatedRules(roles);
  t.same(roles[0].rules, [{ verbs: ['get'], apiGroups: [''], resources: ['a'] }, { verbs: ['get'], apiGroups: [''], resources: ['b'] }]);
});

t.test('reconciliation adds what is missing, unless autoupdate is false', async (t) => {
  const wanted = clusterRole({
    metadata: { name: 'c', labels: { l: '1' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
    rules: [rule('get', 'list').groups('').resources('pods').build()],
  });
  const existing = clusterRole({ metadata: { name: 'c', labels: { l: 'mine' } }, rules: [rule('get').groups('').resources('pods').build()] });
  const result = reconcileRole(existing, wanted)!;
  t.same(result.metadata!.labels, { l: 'mine' }, 'existing label values win');
  t.same(result.rules, [rule('get').groups('').resources('pods').build(), { verbs: ['list'], apiGroups: [''], resources: ['pods'] }]);
  t.equal(reconcileRole(result, wanted), undefined, 'nothing more to do');
  const protectedRole = { ...existing, metadata: { name: 'c', annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } } };
  t.equal(reconcileRole(protectedRole, wanted), undefined);
  const aggregated = clusterRole({ metadata: { name: 'admin' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'true' } }] }, rules: [] });
  const userAgg = reconcileRole(clusterRole({ metadata: { name: 'admin' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { y: 'true' } }] } }), aggregated)!;
  t.same(userAgg.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { y: 'true' } }, { matchLabels: { x: 'true' } }] }, 'missing selectors appended');

  const wantedBinding: KubeObject = { kind: 'ClusterRoleBinding', metadata: { name: 'b' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'c' }, subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'g' }] };
  const bound = reconcileBinding({ ...wantedBinding, subjects: [{ kind: 'User', apiGroup: RBAC, name: 'u' }] }, wantedBinding)!;
  t.same(bound.subjects, [{ kind: 'User', apiGroup: RBAC, name: 'u' }, { kind: 'Group', apiGroup: RBAC, name: 'g' }]);
  t.equal(reconcileBinding({ ...wantedBinding, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'other' } }, wantedBinding), undefined, 'a different roleRef is left alone');
});
