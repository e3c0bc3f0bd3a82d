import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { NodeAuthorizer } from '../../src/auth/authz/node';
import { MemoryNodeGraph } from '../../src/auth/authz/node-graph';

function setup() {
  const graph = new MemoryNodeGraph();
  const pods: KubeObject[] = [
    {
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'app' },
      spec: {
        nodeName: 'n1',
        serviceAccountName: 'web-sa',
        imagePullSecrets: [{ name: 'pull' }],
        volumes: [
          { name: 'c', configMap: { name: 'settings' } },
          { name: 'd', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
        containers: [{ name: 'x', env: [{ name: 'P', valueFrom: { secretKeyRef: { name: 'password', key: 'p' } } }] }],
      },
    },
    { kind: 'Pod', metadata: { name: 'other', namespace: 'app' }, spec: { nodeName: 'n2', serviceAccountName: 'other-sa', volumes: [{ name: 's', secret: { secretName: 'theirs' } }] } },
    { kind: 'Pod', metadata: { name: 'pending', namespace: 'app' }, spec: { volumes: [{ name: 's', secret: { secretName: 'unscheduled' } }] } },
  ];
  for (const p of pods) graph.setPod(`app/${p.metadata!.name}`, p);
  graph.setVolume('pv-1', {
    kind: 'PersistentVolume',
    metadata: { name: 'pv-1' },
    spec: { claimRef: { namespace: 'app', name: 'data' }, csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 'csi-secret', namespace: 'storage' } }, rbd: { secretRef: { name: 'ceph' } } },
  });
  graph.setVolume('pv-2', { kind: 'PersistentVolume', metadata: { name: 'pv-2' }, spec: { claimRef: { namespace: 'app', name: 'nobody' } } });
  graph.setAttachment('va-1', { kind: 'VolumeAttachment', metadata: { name: 'va-1' }, spec: { nodeName: 'n1' } });
  graph.setAttachment('va-2', { kind: 'VolumeAttachment', metadata: { name: 'va-2' }, spec: { nodeName: 'n2' } });
  const authz = new NodeAuthorizer({ graph });
  const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  const ask = async (verb: string, resource: string, extra: Record<string, string> = {}, user = n1) =>
    (await authz.authorize({ user, verb, resourceRequest: true, apiGroup: '', resource, ...extra })).allowed;
  return { graph, authz, ask, n1 };
}

t.test('its own node: reads by name, writes left to NodeRestriction', async (t) => {
  const { ask } = setup();
  t.ok(await ask('get', 'nodes', { name: 'n1' }));
  t.ok(await ask('watch', 'nodes', { fieldSelector: 'metadata.name=n1' }));
  t.ok(await ask('create', 'nodes'));
  t.ok(await ask('patch', 'nodes', { name: 'n1', subresource: 'status' }));
  t.notOk(await ask('get', 'nodes', { name: 'n2' }));
  t.notOk(await ask('list', 'nodes'));
  t.notOk(await ask('delete', 'nodes', { name: 'n1' }));
});

t.test('the reasons kube gives', async (t) => {
  const { authz, n1 } = setup();
  const d = await authz.authorize({ user: n1, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'nodes', name: 'n2' });
  t.same(d, { allowed: false, reason: "node 'n1' cannot read 'n2', only its own Node object" });
  const s = await authz.authorize({ user: n1, verb: 'get', resourceRequest: true, apiGroup: '', resource: 'secrets', namespace: 'app', name: 'theirs' });
  t.same(s, { allowed: false, reason: "no relationship found between node 'n1' and this object" });
  t.notOk(s.denied, 'no opinion, never a deny');
});

t.test('pods bound to it', async (t) => {
  const { ask } = setup();
  t.ok(await ask('get', 'pods', { namespace: 'app', name: 'web' }));
  t.ok(await ask('update', 'pods', { namespace: 'app', name: 'web', subresource: 'status' }));
  t.ok(await ask('create', 'pods', { namespace: 'app', subresource: 'eviction', name: 'web' }));
  t.ok(await ask('create', 'pods', { namespace: 'app' }), 'mirror pods: NodeRestriction narrows');
  t.notOk(await ask('get', 'pods', { namespace: 'app', name: 'other' }));
  t.notOk(await ask('get', 'pods', { namespace: 'app', name: 'pending' }));
  t.ok(await ask('list', 'pods', { fieldSelector: 'spec.nodeName=n1' }));
  t.ok(await ask('watch', 'pods', { fieldSelector: 'status.phase!=Failed,spec.nodeName=n1' }));
  t.notOk(await ask('list', 'pods', { fieldSelector: 'spec.nodeName=n2' }));
  t.notOk(await ask('list', 'pods'));
});

t.test('secrets, configmaps, claims and volumes its pods use', async (t) => {
  const { ask } = setup();
  t.ok(await ask('get', 'secrets', { namespace: 'app', name: 'password' }));
  t.ok(await ask('get', 'secrets', { namespace: 'app', name: 'pull' }));
  t.ok(await ask('watch', 'configmaps', { namespace: 'app', fieldSelector: 'metadata.name=settings' }));
  t.notOk(await ask('get', 'secrets', { namespace: 'app', name: 'theirs' }));
  t.notOk(await ask('get', 'secrets', { namespace: 'app', name: 'unscheduled' }), 'unscheduled pods give nothing');
  t.notOk(await ask('list', 'secrets', { namespace: 'app' }));
  t.notOk(await ask('update', 'secrets', { namespace: 'app', name: 'password' }));
  t.ok(await ask('get', 'persistentvolumeclaims', { namespace: 'app', name: 'data' }));
  t.ok(await ask('get', 'persistentvolumeclaims', { namespace: 'app', name: 'web-scratch' }), 'ephemeral volume claim <pod>-<volume>');
  t.notOk(await ask('list', 'persistentvolumeclaims', { namespace: 'app', fieldSelector: 'metadata.name=data' }), 'claims: get only');
  t.ok(await ask('patch', 'persistentvolumeclaims', { namespace: 'app', name: 'data', subresource: 'status' }));
  t.ok(await ask('get', 'persistentvolumes', { name: 'pv-1' }));
  t.notOk(await ask('get', 'persistentvolumes', { name: 'pv-2' }));
  t.ok(await ask('get', 'secrets', { namespace: 'storage', name: 'csi-secret' }), 'pod -> claim -> volume -> CSI secret');
  t.ok(await ask('get', 'secrets', { namespace: 'app', name: 'ceph' }), 'a volume secret without namespace: the claim\'s');
});

t.test('service account tokens, volume attachments, CSINode, lease', async (t) => {
  const { ask } = setup();
  t.ok(await ask('create', 'serviceaccounts', { namespace: 'app', name: 'web-sa', subresource: 'token' }));
  t.notOk(await ask('create', 'serviceaccounts', { namespace: 'app', name: 'other-sa', subresource: 'token' }));
  t.notOk(await ask('get', 'serviceaccounts', { namespace: 'app', name: 'web-sa' }));
  t.ok(await ask('get', 'volumeattachments', { apiGroup: 'storage.k8s.io', name: 'va-1' }));
  t.notOk(await ask('get', 'volumeattachments', { apiGroup: 'storage.k8s.io', name: 'va-2' }));
  t.ok(await ask('update', 'csinodes', { apiGroup: 'storage.k8s.io', name: 'n1' }));
  t.ok(await ask('create', 'csinodes', { apiGroup: 'storage.k8s.io' }));
  t.notOk(await ask('delete', 'csinodes', { apiGroup: 'storage.k8s.io', name: 'n2' }));
  t.ok(await ask('update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'n1' }));
  t.notOk(await ask('update', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'kube-node-lease', name: 'n2' }));
  t.notOk(await ask('get', 'leases', { apiGroup: 'coordination.k8s.io', namespace: 'default', name: 'n1' }));
});

t.test('the static node rules for the rest; other users have no opinion', async (t) => {
  const { ask, authz } = setup();
  t.ok(await ask('create', 'events', { namespace: 'app' }));
  t.ok(await ask('create', 'certificatesigningrequests', { apiGroup: 'certificates.k8s.io' }));
  t.ok(await ask('list', 'runtimeclasses', { apiGroup: 'node.k8s.io' }));
  t.ok(await ask('watch', 'services'));
  t.notOk(await ask('get', 'namespaces', { name: 'app' }));
  t.notOk(await ask('get', 'nodes', { name: 'n1' }, { name: 'system:node:n1', groups: ['system:authenticated'] }), 'group required');
  t.notOk(await ask('create', 'events', {}, { name: 'system:node:', groups: ['system:nodes'] }), 'a node user without a name');
  t.same(await authz.rulesFor!({ name: 'alice', groups: [] }, 'app'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  t.equal((await authz.rulesFor!({ name: 'system:node:n1', groups: ['system:nodes'] }, 'app')).incomplete, true);
});

t.test('the graph follows changes', async (t) => {
  const { ask, graph } = setup();
  graph.setPod('app/web', undefined);
  t.notOk(await ask('get', 'secrets', { namespace: 'app', name: 'password' }));
  t.notOk(await ask('get', 'persistentvolumes', { name: 'pv-1' }));
  graph.setPod('app/other', { kind: 'Pod', metadata: { name: 'other', namespace: 'app' }, spec: { nodeName: 'n1', volumes: [{ name: 's', secret: { secretName: 'theirs' } }] } });
  t.ok(await ask('get', 'secrets', { namespace: 'app', name: 'theirs' }), 'rescheduled to n1');
  graph.setAttachment('va-1', undefined);
  t.notOk(await ask('get', 'volumeattachments', { apiGroup: 'storage.k8s.io', name: 'va-1' }));
  graph.setVolume('pv-2', { kind: 'PersistentVolume', metadata: { name: 'pv-2' }, spec: { claimRef: { namespace: 'app', name: 'data' } } });
  graph.setPod('app/web2', { kind: 'Pod', metadata: { name: 'web2', namespace: 'app' }, spec: { nodeName: 'n1', volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }] } });
  t.ok(await ask('get', 'persistentvolumes', { name: 'pv-2' }), 'a volume bound later');
});
