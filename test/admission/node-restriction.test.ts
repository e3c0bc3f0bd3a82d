import t from 'tap';
import type { Test } from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';
import { forbiddenNodeLabels } from '../../src/admission/plugins/node-labels';

const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const admin = { name: 'admin', groups: ['system:masters'] };
const as = (user: typeof n1) => ({ dryRun: false, user });

async function setup(t: Test) {
  const f = await admissionFixture(['NodeRestriction']);
  t.teardown(() => f.close());
  const node = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, ...extra } });
  await f.registry.create(f.target('nodes'), node('n1'), as(n1));
  await f.registry.create(f.target('nodes'), node('n2'), as(admin));
  const pod = (name: string, nodeName: string, spec: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' },
    spec: { nodeName, containers: [{ name: 'c', image: 'x' }], ...spec },
  });
  await f.registry.create(f.target('pods', 'default'), pod('mine', 'n1'), as(admin));
  await f.registry.create(f.target('pods', 'default'), pod('theirs', 'n2'), as(admin));
  return { f, node, pod };
}

t.test('its own Node only, no taints, no restricted labels', async (t) => {
  const { f, node } = await setup(t);
  await rejects(t, f.registry.create(f.target('nodes'), node('n3'), as(n1)), 403, 'Forbidden', 'nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
  await rejects(t, f.registry.patch(f.target('nodes', undefined, 'n2'), 'merge', '{"metadata":{"labels":{"a":"b"}}}', as(n1)), 403, 'Forbidden', 'nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');
  await rejects(t, f.registry.delete(f.target('nodes', undefined, 'n2'), as(n1)), 403, 'Forbidden');
  await rejects(t, f.registry.patch(f.target('nodes', undefined, 'n1'), 'merge', '{"metadata":{"labels":{"node-restriction.kubernetes.io/x":"y"}}}', as(n1)), 403, 'Forbidden',
    'nodes "n1" is forbidden: is not allowed to modify labels: node-restriction.kubernetes.io/x');
  await rejects(t, f.registry.patch(f.target('nodes', undefined, 'n1'), 'merge', '{"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}}', as(n1)), 403, 'Forbidden',
    'nodes "n1" is forbidden: node "n1" is not allowed to modify taints');
  const ok = await f.registry.patch(f.target('nodes', undefined, 'n1'), 'merge', '{"metadata":{"labels":{"kubernetes.io/hostname":"n1","node.kubernetes.io/pool":"a","example.com/x":"y"}}}', as(n1));
  t.equal((ok.object.metadata?.labels as Record<string, string>)['node.kubernetes.io/pool'], 'a');
  await f.registry.patchStatus(f.target('nodes', undefined, 'n1'), 'merge', '{"status":{"phase":"Running"}}', as(n1));
  await rejects(t, f.registry.create(f.target('nodes'), node('n1b', { labels: { 'node-role.kubernetes.io/master': '' } }), as({ ...n1, name: 'system:node:n1b' })), 403, 'Forbidden',
    'nodes "n1b" is forbidden: node "n1b" is not allowed to set the following labels: node-role.kubernetes.io/master');
  await f.registry.patch(f.target('nodes', undefined, 'n2'), 'merge', '{"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}}', as(admin));
  t.pass('other users are not restricted');
});

t.test('the label rules', async (t) => {
  t.same(forbiddenNodeLabels(['a', 'example.com/b', 'kubernetes.io/hostname', 'kubelet.kubernetes.io/x', 'x.node.kubernetes.io/y']), []);
  t.same(forbiddenNodeLabels(['node-restriction.kubernetes.io/a', 'foo.k8s.io/b', 'kubernetes.io/role', 'a.node-restriction.kubernetes.io/c']), [
    'a.node-restriction.kubernetes.io/c', 'foo.k8s.io/b', 'kubernetes.io/role', 'node-restriction.kubernetes.io/a',
  ]);
});

t.test('mirror pods bound to itself, using nothing else', async (t) => {
  const { f, pod } = await setup(t);
  const nodeUid = (await f.registry.get(f.target('nodes', undefined, 'n1'), {})).metadata?.uid;
  const owner = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: nodeUid, controller: true };
  const mirror = (name: string, nodeName: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => {
    const p = pod(name, nodeName, spec);
    p.metadata = { ...p.metadata, annotations: { 'kubernetes.io/config.mirror': 'hash' }, ownerReferences: [owner], ...meta } as KubeObject['metadata'];
    return p;
  };
  const target = f.target('pods', 'default');
  await rejects(t, f.registry.create(target, pod('plain', 'n1'), as(n1)), 403, 'Forbidden',
    'pods "plain" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
  await rejects(t, f.registry.create(target, mirror('elsewhere', 'n2'), as(n1)), 403, 'Forbidden', 'pods "elsewhere" is forbidden: node "n1" can only create pods with spec.nodeName set to itself');
  await rejects(t, f.registry.create(target, mirror('secret', 'n1', { volumes: [{ name: 's', secret: { secretName: 's' } }] }), as(n1)), 403, 'Forbidden',
    'pods "secret" is forbidden: node "n1" can not create pods that reference secrets');
  await rejects(t, f.registry.create(target, mirror('cm', 'n1', { volumes: [{ name: 's', configMap: { name: 'c' } }] }), as(n1)), 403, 'Forbidden', /reference configmaps/);
  await rejects(t, f.registry.create(target, mirror('pvc', 'n1', { volumes: [{ name: 's', persistentVolumeClaim: { claimName: 'c' } }] }), as(n1)), 403, 'Forbidden', /reference persistentvolumeclaims/);
  await rejects(t, f.registry.create(target, mirror('sa', 'n1', { serviceAccountName: 'default' }), as(n1)), 403, 'Forbidden', /reference a service account/);
  await rejects(t, f.registry.create(target, mirror('noowner', 'n1', {}, { ownerReferences: [] }), as(n1)), 403, 'Forbidden', /an owner reference set to itself/);
  await rejects(t, f.registry.create(target, mirror('uid', 'n1', {}, { ownerReferences: [{ ...owner, uid: 'other' }] }), as(n1)), 403, 'Forbidden', `pods "uid" is forbidden: node n1 UID mismatch: expected other got ${nodeUid}`);
  t.ok((await f.registry.create(target, mirror('static', 'n1'), as(n1))).created);
});

t.test('status, deletes and evictions of its own pods', async (t) => {
  const { f } = await setup(t);
  await f.registry.patchStatus(f.target('pods', 'default', 'mine'), 'merge', '{"status":{"phase":"Running"}}', as(n1));
  await rejects(t, f.registry.patchStatus(f.target('pods', 'default', 'theirs'), 'merge', '{"status":{"phase":"Running"}}', as(n1)), 403, 'Forbidden',
    'pods "theirs" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');
  await rejects(t, f.registry.patch(f.target('pods', 'default', 'mine'), 'merge', '{"metadata":{"labels":{"a":"b"}}}', as(n1)), 403, 'Forbidden',
    'pods "mine" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods');
  const eviction = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });
  await rejects(t, f.registry.createSubresource(f.target('pods', 'default', 'theirs'), 'eviction', eviction('theirs'), as(n1)), 403, 'Forbidden',
    'pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself');
  await rejects(t, f.registry.delete(f.target('pods', 'default', 'theirs'), as(n1)), 403, 'Forbidden', 'pods "theirs" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself');
  await f.registry.delete(f.target('pods', 'default', 'mine'), as(n1));
  t.pass('deleted its own pod');
});

t.test('claim status, leases and CSINodes', async (t) => {
  const { f } = await setup(t);
  const leases = { kind: f.kind('leases', 'coordination.k8s.io'), namespace: 'kube-node-lease' };
  const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: 'kube-node-lease' } });
  await f.registry.create({ kind: f.kind('namespaces') }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kube-node-lease' } }, as(admin)).catch(() => undefined);
  t.ok((await f.registry.create(leases, lease('n1'), as(n1))).created);
  await rejects(t, f.registry.create(leases, lease('n2'), as(n1)), 403, 'Forbidden', 'leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
  await rejects(t, f.registry.create({ ...leases, namespace: 'default' }, { ...lease('n1'), metadata: { name: 'n1', namespace: 'default' } }, as(n1)), 403, 'Forbidden', /can only access leases in the "kube-node-lease" system namespace/);
  const csinodes = { kind: f.kind('csinodes', 'storage.k8s.io') };
  const csinode = (name: string) => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name }, spec: { drivers: [] } });
  t.ok((await f.registry.create(csinodes, csinode('n1'), as(n1))).created);
  await rejects(t, f.registry.create(csinodes, csinode('n2'), as(n1)), 403, 'Forbidden', /can only access CSINode with the same name as the requesting node/);
  const claims = f.target('persistentvolumeclaims', 'default');
  await f.registry.create(claims, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }, as(admin));
  await f.registry.patchStatus(f.target('persistentvolumeclaims', 'default', 'data'), 'merge', '{"status":{"capacity":{"storage":"1Gi"}}}', as(n1));
  await rejects(t, f.registry.patchStatus(f.target('persistentvolumeclaims', 'default', 'data'), 'merge', '{"status":{"phase":"Lost"}}', as(n1)), 403, 'Forbidden',
    /node "n1" is not allowed to update fields other than status.capacity and status.conditions/);
  await rejects(t, f.registry.patch(f.target('persistentvolumeclaims', 'default', 'data'), 'merge', '{"metadata":{"labels":{"a":"b"}}}', as(n1)), 403, 'Forbidden', /may only update PVC status/);
});
