import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';

const template = (labels: Record<string, string>) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'c', image: 'busybox' }] },
});

function replicaSet(name: string, replicas: number, labels: Record<string, string>): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name }, spec: { replicas, selector: { matchLabels: labels }, template: template(labels) } };
}

const controllerRef = (pod: KubeObject) => pod.metadata?.ownerReferences?.find((r) => r.controller);

t.test('replicaset and replicationcontroller controllers against the real server', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['replicaset', 'replicationcontroller', 'resourcequota']);
  const node = startFakeNode(t, client);
  const podsOf = async (selector: string) => (await client.list(RESOURCES.pods, 'default', { labelSelector: selector })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const events = async (reason: string) => (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === reason);

  await t.test('creates the pods, owns them, and reports status', async (t) => {
    const rs = await client.create(RESOURCES.replicaSets, 'default', replicaSet('web', 3, { app: 'web' }));
    const pods = await waitFor('3 pods', async () => {
      const p = await podsOf('app=web');
      return p.length === 3 && p;
    });
    for (const pod of pods) {
      t.match(pod.metadata?.name, /^web-[a-z0-9]{5}$/, 'generateName web-');
      t.match(controllerRef(pod), { kind: 'ReplicaSet', name: 'web', uid: rs.metadata?.uid, controller: true, blockOwnerDeletion: true });
    }
    const status = await waitFor('status', async () => {
      const s = (await client.get(RESOURCES.replicaSets, 'default', 'web')).status as Record<string, number>;
      return s.availableReplicas === 3 && s;
    });
    t.match(status, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
    const created = await waitFor('events', async () => {
      const e = await events('SuccessfulCreate');
      return e.length >= 3 && e;
    });
    t.ok(created.every((e) => /^Created pod: web-/.test(String(e.message))), 'kube message');
    t.ok(created.some((e) => (e.source as { component?: string })?.component === 'replicaset-controller'), 'source');
  });

  await t.test('replaces a deleted pod, and does not double-create', async (t) => {
    const [victim] = await podsOf('app=web');
    await client.delete(RESOURCES.pods, 'default', victim!.metadata!.name!);
    await waitFor('a replacement', async () => {
      const p = await podsOf('app=web');
      return p.length === 3 && !p.some((x) => x.metadata?.name === victim!.metadata!.name) && p;
    });
    await waitFor('status again', async () => ((await client.get(RESOURCES.replicaSets, 'default', 'web')).status as { readyReplicas?: number }).readyReplicas === 3);
    t.equal((await podsOf('app=web')).length, 3);
  });

  await t.test('a pod being deleted no longer counts', async (t) => {
    const [victim] = await podsOf('app=web');
    const name = victim!.metadata!.name!;
    await client.patch(RESOURCES.pods, 'default', name, 'merge', { metadata: { finalizers: ['test.ballast.dev/hold'] } });
    await client.delete(RESOURCES.pods, 'default', name);
    await waitFor('a replacement while the old pod lingers', async () => {
      const all = (await client.list(RESOURCES.pods, 'default', { labelSelector: 'app=web' })).items;
      return all.length === 4 && all.filter((p) => !p.metadata?.deletionTimestamp).length === 3;
    });
    await client.patch(RESOURCES.pods, 'default', name, 'merge', { metadata: { finalizers: null } });
    await waitFor('gone', async () => (await client.list(RESOURCES.pods, 'default', { labelSelector: 'app=web' })).items.length === 3);
    t.pass('replaced at once');
  });

  await t.test('scales down, unready pods first', async (t) => {
    // one new pod stays Pending: scaling down must remove it before the running ones
    node.hold((p) => p.metadata?.labels?.app === 'web');
    await client.patch(RESOURCES.replicaSets, 'default', 'web', 'merge', { spec: { replicas: 4 } });
    const pending = await waitFor('a 4th pod', async () => {
      const p = await podsOf('app=web');
      return p.length === 4 && p.find((x) => (x.status as { phase?: string }).phase !== 'Running');
    });
    await client.patch(RESOURCES.replicaSets, 'default', 'web', 'merge', { spec: { replicas: 2 } });
    const left = await waitFor('2 pods', async () => {
      const p = await podsOf('app=web');
      return p.length === 2 && p;
    });
    t.notOk(left.some((p) => p.metadata?.name === pending.metadata?.name), 'the pending pod went first');
    const deleted = await waitFor('delete events', async () => {
      const e = await events('SuccessfulDelete');
      return e.length >= 2 && e;
    });
    t.ok(deleted.some((e) => e.message === `Deleted pod: ${pending.metadata?.name}`));
    node.release();
  });

  await t.test('adopts a matching orphan instead of creating, and releases a pod that stops matching', async (t) => {
    await client.create(RESOURCES.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', labels: { app: 'adopt' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await waitFor('the orphan ready', () => node.readied.has('orphan'));
    await client.create(RESOURCES.replicaSets, 'default', replicaSet('adopt', 1, { app: 'adopt' }));
    await waitFor('adoption', async () => controllerRef(await client.get(RESOURCES.pods, 'default', 'orphan'))?.name === 'adopt');
    await waitFor('status', async () => ((await client.get(RESOURCES.replicaSets, 'default', 'adopt')).status as { readyReplicas?: number }).readyReplicas === 1);
    t.same((await podsOf('app=adopt')).map((p) => p.metadata?.name), ['orphan'], 'no pod created');
    await client.patch(RESOURCES.pods, 'default', 'orphan', 'merge', { metadata: { labels: { app: 'other' } } });
    await waitFor('release', async () => !controllerRef(await client.get(RESOURCES.pods, 'default', 'orphan')));
    await waitFor('a replacement', async () => (await podsOf('app=adopt')).length === 1);
  });

  await t.test('minReadySeconds delays availability', async (t) => {
    const rs = replicaSet('slow', 1, { app: 'slow' });
    (rs.spec as Record<string, unknown>).minReadySeconds = 2;
    await client.create(RESOURCES.replicaSets, 'default', rs);
    await waitFor('ready', async () => ((await client.get(RESOURCES.replicaSets, 'default', 'slow')).status as { readyReplicas?: number }).readyReplicas === 1);
    const s = (await client.get(RESOURCES.replicaSets, 'default', 'slow')).status as { availableReplicas?: number };
    t.not(s.availableReplicas, 1, 'not yet available');
    await waitFor('available', async () => ((await client.get(RESOURCES.replicaSets, 'default', 'slow')).status as { availableReplicas?: number }).availableReplicas === 1, 10_000);
  });

  await t.test('quota refusals: FailedCreate and the ReplicaFailure condition', async (t) => {
    await client.create(RESOURCES.namespaces, undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'q' } });
    await client.create(RESOURCES.resourceQuotas, 'q', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'pods' }, spec: { hard: { pods: '1' } } });
    // enforced once the resourcequota controller has accounted for it
    await waitFor('quota status', async () => ((await client.get(RESOURCES.resourceQuotas, 'q', 'pods')).status as { used?: { pods?: string } } | undefined)?.used?.pods === '0');
    await client.create(RESOURCES.replicaSets, 'q', replicaSet('big', 3, { app: 'big' }));
    const cond = await waitFor('ReplicaFailure', async () => {
      const s = (await client.get(RESOURCES.replicaSets, 'q', 'big')).status as { conditions?: { type: string }[] };
      return s.conditions?.find((c) => c.type === 'ReplicaFailure');
    });
    t.match(cond, { status: 'True', reason: 'FailedCreate' });
    const failed = (await client.list(RESOURCES.events, 'q')).items.filter((e) => e.reason === 'FailedCreate');
    t.ok(failed.some((e) => String(e.message).startsWith('Error creating: ')), 'kube message');
  });

  await t.test('replication controllers', async (t) => {
    await client.create(RESOURCES.replicationControllers, 'default', {
      apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc' },
      spec: { replicas: 2, selector: { app: 'rc' }, template: template({ app: 'rc' }) },
    });
    const pods = await waitFor('2 pods', async () => {
      const p = await podsOf('app=rc');
      return p.length === 2 && p;
    });
    t.match(controllerRef(pods[0]!), { kind: 'ReplicationController', name: 'rc' });
    const created = await waitFor('rc events', async () => (await events('SuccessfulCreate')).find((e) => (e.involvedObject as { kind?: string }).kind === 'ReplicationController'));
    t.equal((created.source as { component?: string }).component, 'replication-controller');
    await client.delete(RESOURCES.pods, 'default', pods[0]!.metadata!.name!);
    await waitFor('replacement', async () => {
      const p = await podsOf('app=rc');
      return p.length === 2 && !p.some((x) => x.metadata?.name === pods[0]!.metadata!.name);
    });
    await waitFor('status', async () => ((await client.get(RESOURCES.replicationControllers, 'default', 'rc')).status as { readyReplicas?: number }).readyReplicas === 2);
  });
});
