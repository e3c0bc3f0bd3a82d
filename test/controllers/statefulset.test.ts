import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';

function statefulSet(name: string, replicas: number, extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name },
    spec: {
      replicas,
      serviceName: `${name}-svc`,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      ...extra,
    },
  };
}

const imageOf = (pod: KubeObject) => (pod.spec as { containers: { image: string }[] }).containers[0]!.image;
const controllerRef = (o: KubeObject) => o.metadata?.ownerReferences?.find((r) => r.controller);

t.test('statefulset controller against the real server', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['statefulset', 'garbagecollector']);
  const node = startFakeNode(t, client);
  const podsOf = async (app: string) =>
    (await client.list(RESOURCES.pods, 'default', { labelSelector: `app=${app}` })).items
      .filter((p) => !p.metadata?.deletionTimestamp)
      .sort((a, b) => (a.metadata!.name! < b.metadata!.name! ? -1 : 1));
  const statusOf = async (name: string) => (await client.get(RESOURCES.statefulSets, 'default', name)).status as Record<string, unknown>;
  const events = async (reason: string) => (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === reason);

  await t.test('OrderedReady: pods come up one at a time, with identity and storage', async (t) => {
    node.hold((p) => p.metadata?.labels?.app === 'web');
    const claimTemplate = { metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const set = await client.create(RESOURCES.statefulSets, 'default', statefulSet('web', 3, { volumeClaimTemplates: [claimTemplate] }));
    const [first] = await waitFor('web-0', async () => {
      const p = await podsOf('web');
      return p.length === 1 && p;
    });
    t.equal(first!.metadata?.name, 'web-0');
    t.equal(first!.metadata?.labels?.['statefulset.kubernetes.io/pod-name'], 'web-0');
    t.match(first!.metadata?.labels?.['controller-revision-hash'], /^web-[a-z0-9]+$/);
    t.match(first!.spec, { hostname: 'web-0', subdomain: 'web-svc' });
    t.match((first!.spec as { volumes: unknown[] }).volumes, [{ name: 'data', persistentVolumeClaim: { claimName: 'data-web-0' } }]);
    t.match(controllerRef(first!), { kind: 'StatefulSet', name: 'web', uid: set.metadata?.uid });
    const claim = await client.get(RESOURCES.persistentVolumeClaims, 'default', 'data-web-0');
    t.same(claim.metadata?.labels, { app: 'web' }, 'the claim carries the selector labels');
    // while web-0 is not ready, nothing more happens
    await waitFor('a status of one pod', async () => (await statusOf('web')).replicas === 1);
    t.equal((await podsOf('web')).length, 1, 'web-1 waits for web-0 to be ready');
    node.release();
    const pods = await waitFor('3 pods', async () => {
      const p = await podsOf('web');
      return p.length === 3 && p;
    });
    t.same(pods.map((p) => p.metadata?.name), ['web-0', 'web-1', 'web-2']);
    const status = await waitFor('status', async () => {
      const s = await statusOf('web');
      return s.readyReplicas === 3 && s;
    });
    t.match(status, { replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, observedGeneration: 1 });
    t.equal(status.currentRevision, status.updateRevision);
    t.equal(status.currentRevision, pods[0]!.metadata?.labels?.['controller-revision-hash']);
    const revisions = (await client.list(RESOURCES.controllerRevisions, 'default', { labelSelector: 'app=web' })).items;
    t.equal(revisions.length, 1, 'one ControllerRevision');
    t.match(revisions[0], { metadata: { name: status.currentRevision }, revision: 1 });
    const created = await waitFor('events', async () => {
      const e = await events('SuccessfulCreate');
      return e.length >= 6 && e;
    });
    const messages = created.map((e) => e.message);
    t.ok(messages.includes('create Pod web-1 in StatefulSet web successful'), 'pod event');
    t.ok(messages.includes('create Claim data-web-2 Pod web-2 in StatefulSet web success'), 'claim event');
  });

  await t.test('scales down from the highest ordinal, keeping the claims', async (t) => {
    const order: string[] = [];
    const abort = new AbortController();
    const rv = (await client.list(RESOURCES.pods, 'default')).metadata?.resourceVersion;
    const watching = (async () => {
      for await (const ev of client.watch(RESOURCES.pods, 'default', { resourceVersion: rv, signal: abort.signal })) {
        if (ev.type === 'DELETED') order.push(ev.object.metadata?.name ?? '');
      }
    })().catch(() => undefined);
    await client.patch(RESOURCES.statefulSets, 'default', 'web', 'merge', { spec: { replicas: 1 } });
    await waitFor('1 pod', async () => (await podsOf('web')).length === 1 && order.length === 2);
    abort.abort();
    await watching;
    t.same(order, ['web-2', 'web-1'], 'reverse order');
    t.ok(await client.get(RESOURCES.persistentVolumeClaims, 'default', 'data-web-2'), 'claims stay');
    const deleted = await waitFor('delete events', async () => (await events('SuccessfulDelete')).find((e) => e.message === 'delete Pod web-2 in StatefulSet web successful'));
    t.ok(deleted);
    await client.patch(RESOURCES.statefulSets, 'default', 'web', 'merge', { spec: { replicas: 3 } });
    await waitFor('3 again', async () => (await statusOf('web')).readyReplicas === 3);
  });

  await t.test('rolling update from the highest ordinal, then partitions', async (t) => {
    const before = await statusOf('web');
    await client.patch(RESOURCES.statefulSets, 'default', 'web', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } });
    const status = await waitFor('rolled', async () => {
      const s = await statusOf('web');
      return s.updatedReplicas === 3 && s.readyReplicas === 3 && s.currentRevision === s.updateRevision && s.currentRevision !== before.currentRevision && s;
    });
    const pods = await podsOf('web');
    t.ok(pods.every((p) => imageOf(p) === 'busybox:2'), 'all pods updated');
    t.ok(pods.every((p) => p.metadata?.labels?.['controller-revision-hash'] === status.updateRevision));
    const revisions = (await client.list(RESOURCES.controllerRevisions, 'default', { labelSelector: 'app=web' })).items;
    t.same(revisions.map((r) => r.revision).sort(), [1, 2]);

    await client.patch(RESOURCES.statefulSets, 'default', 'web', 'merge', {
      spec: { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } }, template: { spec: { containers: [{ name: 'c', image: 'busybox:3' }] } } },
    });
    await waitFor('web-2 updated', async () => {
      const p = await podsOf('web');
      return p.length === 3 && imageOf(p[2]!) === 'busybox:3' && (await statusOf('web')).readyReplicas === 3;
    });
    const partitioned = await podsOf('web');
    t.same(partitioned.map(imageOf), ['busybox:2', 'busybox:2', 'busybox:3'], 'ordinals below the partition keep the old revision');
    const s = await waitFor('status', async () => {
      const x = await statusOf('web');
      return x.updatedReplicas === 1 && x;
    });
    t.match(s, { currentReplicas: 2, updatedReplicas: 1 });
    t.not(s.currentRevision, s.updateRevision);
  });

  await t.test('a failed pod is replaced', async (t) => {
    const [old] = await podsOf('web');
    await client.patch(RESOURCES.pods, 'default', 'web-0', 'merge', { status: { phase: 'Failed' } }, { subresource: 'status' });
    const fresh = await waitFor('web-0 recreated', async () => {
      const p = (await podsOf('web')).find((x) => x.metadata?.name === 'web-0');
      return p && p.metadata?.uid !== old!.metadata?.uid && p;
    });
    t.ok(fresh, 'new web-0');
  });

  await t.test('Parallel creates without waiting; OnDelete waits for deletions', async (t) => {
    node.hold((p) => p.metadata?.labels?.app === 'par');
    await client.create(RESOURCES.statefulSets, 'default', statefulSet('par', 3, { podManagementPolicy: 'Parallel', updateStrategy: { type: 'OnDelete' } }));
    await waitFor('3 pending pods', async () => (await podsOf('par')).length === 3);
    node.release();
    await waitFor('ready', async () => (await statusOf('par')).readyReplicas === 3);
    await client.patch(RESOURCES.statefulSets, 'default', 'par', 'merge', { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }] } } } });
    await waitFor('new update revision', async () => {
      const s = await statusOf('par');
      return s.observedGeneration === 2 && s.updateRevision !== s.currentRevision;
    });
    t.ok((await podsOf('par')).every((p) => imageOf(p) === 'busybox'), 'nothing replaced by itself');
    await client.delete(RESOURCES.pods, 'default', 'par-1');
    await waitFor('par-1 on the new template', async () => {
      const p = (await podsOf('par')).find((x) => x.metadata?.name === 'par-1');
      return p && imageOf(p) === 'busybox:2';
    });
    t.equal(imageOf((await podsOf('par'))[0]!), 'busybox', 'par-0 untouched');
  });

  await t.test('adopts an orphan member and releases one that stops matching', async (t) => {
    await client.create(RESOURCES.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'solo-0', labels: { app: 'solo' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await client.create(RESOURCES.statefulSets, 'default', statefulSet('solo', 1));
    await waitFor('adopted', async () => controllerRef(await client.get(RESOURCES.pods, 'default', 'solo-0'))?.name === 'solo');
    await client.patch(RESOURCES.pods, 'default', 'solo-0', 'merge', { metadata: { labels: { app: 'gone' } } });
    await waitFor('released', async () => !controllerRef(await client.get(RESOURCES.pods, 'default', 'solo-0')));
    t.pass('adopted, then released');
  });

  await t.test('deleting the set lets the garbage collector remove its pods and revisions', async (t) => {
    await client.delete(RESOURCES.statefulSets, 'default', 'par', { propagationPolicy: 'Foreground' });
    await waitFor('pods gone', async () => (await podsOf('par')).length === 0);
    await waitFor('revisions gone', async () => (await client.list(RESOURCES.controllerRevisions, 'default', { labelSelector: 'app=par' })).items.length === 0);
    t.pass('collected');
  });
});
