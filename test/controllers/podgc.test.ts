import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { PodGcController, terminatedPodsToDelete } from '../../src/controllers/podgc/pod-gc-controller';
import type { ControllerDefinition } from '../../src/controllers/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';

const pod = (name: string, extra: { nodeName?: string; phase?: string; created?: string } = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', creationTimestamp: extra.created },
  spec: { nodeName: extra.nodeName, containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase: extra.phase },
});

t.test('terminated pods to delete: the oldest beyond the threshold, ties by name', async (t) => {
  const pods = [
    pod('c', { phase: 'Succeeded', created: '2020-01-01T00:00:02Z' }),
    pod('b', { phase: 'Failed', created: '2020-01-01T00:00:01Z' }),
    pod('a', { phase: 'Failed', created: '2020-01-01T00:00:01Z' }),
    pod('running', { phase: 'Running', created: '2020-01-01T00:00:00Z' }),
    pod('pending', { phase: 'Pending', created: '2020-01-01T00:00:00Z' }),
  ];
  t.same(terminatedPodsToDelete(pods, 1).map((p) => p.metadata?.name), ['a', 'b']);
  t.same(terminatedPodsToDelete(pods, 3), []);
});

t.test('pod garbage collector against the real server', async (t) => {
  const server = await startApiServer(t);
  // kube's periods (20 s, 40 s quarantine) shortened for the test
  const podgc: ControllerDefinition = { name: 'podgc', start: (ctx) => new PodGcController({ ctx, gcPeriodMs: 300, quarantineMs: 600 }).run() };
  const { client } = startControllers(t, server, [podgc], { terminatedPodGcThreshold: 2 });
  const names = async () => (await client.list(RESOURCES.pods, 'default')).items.map((p) => p.metadata?.name ?? '').sort();

  await t.test('keeps only the threshold of terminated pods, deleting the oldest', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('running'));
    for (const [i, phase] of ['Succeeded', 'Failed', 'Succeeded', 'Failed'].entries()) {
      await client.create(RESOURCES.pods, 'default', pod(`done-${i + 1}`));
      await client.patch(RESOURCES.pods, 'default', `done-${i + 1}`, 'merge', { status: { phase } }, { subresource: 'status' });
    }
    await waitFor('two terminated pods left', async () => (await names()).length === 3);
    t.same(await names(), ['done-3', 'done-4', 'running']);
  });

  await t.test('force-deletes the pods of a deleted node, after the quarantine', async (t) => {
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'doomed' } });
    await client.create(RESOURCES.nodes, undefined, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'alive' } });
    await client.create(RESOURCES.pods, 'default', pod('on-doomed', { nodeName: 'doomed' }));
    await client.create(RESOURCES.pods, 'default', pod('on-alive', { nodeName: 'alive' }));
    await client.delete(RESOURCES.nodes, undefined, 'doomed');
    const deletedAt = Date.now();
    await waitFor('the orphaned pod gone', async () => !(await names()).includes('on-doomed'));
    t.ok(Date.now() - deletedAt >= 500, 'not before the quarantine');
    t.ok((await names()).includes('on-alive'), 'a pod of an existing node stays');
  });
});
