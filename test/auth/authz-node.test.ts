import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { NodeAuthorizer } from '../../src/auth/authz/node';

const pods: KubeObject[] = [
  {
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'app' },
    spec: {
      nodeName: 'n1',
      imagePullSecrets: [{ name: 'pull' }],
      volumes: [{ name: 'c', configMap: { name: 'settings' } }, { name: 'd', persistentVolumeClaim: { claimName: 'data' } }],
      containers: [{ name: 'x', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'password', key: 'p' } } }] }],
    },
  },
  { kind: 'Pod', metadata: { name: 'other', namespace: 'app' }, spec: { nodeName: 'n2', volumes: [{ name: 's', secret: { secretName: 'theirs' } }] } },
];
const claims: Record<string, KubeObject> = { 'app/data': { kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'app' }, spec: { volumeName: 'pv-1' } } };
const graph = {
  podsOnNode: (node: string) => pods.filter((p) => (p.spec as { nodeName: string }).nodeName === node),
  persistentVolumeClaim: (ns: string, name: string) => claims[`${ns}/${name}`],
};
const authz = new NodeAuthorizer({ graph });
const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const ask = async (verb: string, resource: string, extra: Record<string, string> = {}, user = n1) =>
  (await authz.authorize({ user, verb, resourceRequest: true, apiGroup: '', resource, ...extra })).allowed;

t.test('its own node and status, nobody else\'s', async (t) => {
  t.ok(await ask('get', 'nodes', { name: 'n1' }));
  t.ok(await ask('patch', 'nodes', { name: 'n1', subresource: 'status' }));
  t.notOk(await ask('get', 'nodes', { name: 'n2' }));
  t.notOk(await ask('delete', 'nodes', { name: 'n1' }));
  t.ok(await ask('watch', 'nodes', { fieldSelector: 'metadata.name=n1' }));
  t.notOk(await ask('list', 'nodes'));
});

t.test('pods bound to it and what they use', async (t) => {
  t.ok(await ask('get', 'pods', { namespace: 'app', name: 'web' }));
  t.ok(await ask('update', 'pods', { namespace: 'app', name: 'web', subresource: 'status' }));
  t.notOk(await ask('get', 'pods', { namespace: 'app', name: 'other' }));
  t.ok(await ask('list', 'pods', { fieldSelector: 'spec.nodeName=n1' }));
  t.notOk(await ask('list', 'pods'));
  t.ok(await ask('get', 'secrets', { namespace: 'app', name: 'password' }));
  t.ok(await ask('get', 'secrets', { namespace: 'app', name: 'pull' }));
  t.ok(await ask('watch', 'configmaps', { namespace: 'app', fieldSelector: 'metadata.name=settings' }));
  t.notOk(await ask('get', 'secrets', { namespace: 'app', name: 'theirs' }));
  t.notOk(await ask('list', 'secrets', { namespace: 'app' }));
  t.ok(await ask('get', 'persistentvolumeclaims', { namespace: 'app', name: 'data' }));
  t.ok(await ask('get', 'persistentvolumes', { name: 'pv-1' }));
  t.notOk(await ask('get', 'persistentvolumes', { name: 'pv-2' }));
});

t.test('events, its lease, CSRs; other users have no opinion', async (t) => {
  t.ok(await ask('create', 'events', { namespace: 'app' }));
  t.ok(await ask('update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'n1' }));
  t.notOk(await ask('update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'n2' }));
  t.ok(await ask('create', 'certificatesigningrequests', { apiGroup: 'certificates.k8s.io' }));
  t.notOk(await ask('get', 'nodes', { name: 'n1' }, { name: 'system:node:n1', groups: ['system:authenticated'] }), 'group required');
  t.notOk(await ask('get', 'namespaces', { name: 'app' }));
});
