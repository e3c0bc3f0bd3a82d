import t from 'tap';
import { makeFixture, write } from '../helpers/registry-fixture';
import { InformerNodeGraph } from '../../src/auth/authz/node-graph-informers';
import { waitFor } from '../e2e/harness';

t.test('the graph is fed by pod, volume and attachment informers and follows their changes', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const graph = new InformerNodeGraph({
    registry: f.registry,
    pods: f.kind('pods'),
    persistentVolumes: f.kind('persistentvolumes'),
    volumeAttachments: f.kind('volumeattachments', 'storage.k8s.io'),
  });
  await f.registry.create(f.target('pods', 'default'), {
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data' } }, { name: 's', secret: { secretName: 'token' } }] },
  }, write);
  graph.start();
  t.teardown(() => graph.stop());
  await graph.synced;
  t.ok(graph.hasPath('n1', 'pod', 'default', 'web'), 'listed at start');
  t.ok(graph.hasPath('n1', 'secret', 'default', 'token'));
  t.notOk(graph.hasPath('n2', 'secret', 'default', 'token'));

  await f.registry.create(f.target('persistentvolumes'), {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-1' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' }, claimRef: { namespace: 'default', name: 'data' } },
  }, write);
  await waitFor('the volume', () => graph.hasPath('n1', 'persistentvolume', '', 'pv-1'), 5000);
  await f.registry.create({ kind: f.kind('volumeattachments', 'storage.k8s.io') }, {
    apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttachment', metadata: { name: 'va' },
    spec: { attacher: 'a', nodeName: 'n1', source: { persistentVolumeName: 'pv-1' } },
  }, write);
  await waitFor('the attachment', () => graph.hasPath('n1', 'volumeattachment', '', 'va'), 5000);

  await f.registry.delete(f.target('pods', 'default', 'web'), { ...write, gracePeriodSeconds: 0 });
  await waitFor('the pod gone', () => !graph.hasPath('n1', 'secret', 'default', 'token'), 5000);
  t.notOk(graph.hasPath('n1', 'persistentvolume', '', 'pv-1'), 'the volume is no longer reachable');
});
