import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';

function replicaSet(name: string, replicas: number): KubeObject {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name },
    spec: { replicas, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  };
}

const budget = (name: string, app: string, bound: Record<string, number | string>): KubeObject => ({
  apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { selector: { matchLabels: { app } }, ...bound },
});

interface BudgetStatus {
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
}

t.test('disruption controller against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['replicaset', 'disruption']);
  const node = startFakeNode(t, client);
  const statusOf = async (name: string) => (await client.get(RESOURCES.podDisruptionBudgets, 'default', name)).status as BudgetStatus;
  const statusIs = (name: string, want: Partial<BudgetStatus>) =>
    waitFor(`${name} status ${JSON.stringify(want)}`, async () => {
      const s = await statusOf(name);
      return Object.entries(want).every(([k, v]) => JSON.stringify(s[k as keyof BudgetStatus]) === JSON.stringify(v)) && s;
    });
  const podsOf = async (app: string) => (await client.list(RESOURCES.pods, 'default', { labelSelector: `app=${app}` })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const evict = (pod: string) =>
    client.create(RESOURCES.pods, 'default', { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: pod, namespace: 'default' } }, 'eviction', pod);

  await client.create(RESOURCES.replicaSets, 'default', replicaSet('min', 3));
  await client.create(RESOURCES.replicaSets, 'default', replicaSet('max', 3));

  await t.test('minAvailable 2: the pods are the expected count', async (t) => {
    await client.create(RESOURCES.podDisruptionBudgets, 'default', budget('min', 'min', { minAvailable: 2 }));
    const s = await statusIs('min', { currentHealthy: 3 });
    t.match(s, { expectedPods: 3, desiredHealthy: 2, disruptionsAllowed: 1, observedGeneration: 1 });
  });

  await t.test('maxUnavailable 50%: the ReplicaSet\'s scale, rounded up', async (t) => {
    await client.create(RESOURCES.podDisruptionBudgets, 'default', budget('max', 'max', { maxUnavailable: '50%' }));
    const s = await statusIs('max', { currentHealthy: 3 });
    t.match(s, { expectedPods: 3, desiredHealthy: 1, disruptionsAllowed: 2 });
  });

  await t.test('evictions take from the budget, and are refused once it is spent', async (t) => {
    const [first, second] = await podsOf('min');
    // the evicted pod's replacement stays Pending until released: once it is ready the budget
    // rightly allows a disruption again, and a fast server got there before the second eviction
    node.hold((p) => p.metadata?.labels?.app === 'min' && !node.readied.has(p.metadata?.name ?? ''));
    await evict(first!.metadata!.name!);
    const after = await statusOf('min');
    t.equal(after.disruptionsAllowed, 0, 'the API server took one disruption');
    await t.rejects(evict(second!.metadata!.name!), { code: 429, message: "Cannot evict pod as it would violate the pod's disruption budget." });
    node.release();
    // the ReplicaSet replaces the evicted pod; once it is ready the budget allows one again
    const s = await statusIs('min', { currentHealthy: 3, disruptionsAllowed: 1 });
    t.same(s.disruptedPods ?? {}, {}, 'the evicted pod left disruptedPods once gone');
    t.ok(await evict(second!.metadata!.name!), 'allowed again');
  });

  await t.test('a spec change is observed; scaling the ReplicaSet changes the expected pods', async (t) => {
    const pdb = await client.get(RESOURCES.podDisruptionBudgets, 'default', 'max');
    await client.update(RESOURCES.podDisruptionBudgets, { ...pdb, spec: { ...(pdb.spec as object), maxUnavailable: 1 } });
    t.match(await statusIs('max', { observedGeneration: 2 }), { desiredHealthy: 2, disruptionsAllowed: 1 });
    const rs = await client.get(RESOURCES.replicaSets, 'default', 'max');
    await client.update(RESOURCES.replicaSets, { ...rs, spec: { ...(rs.spec as object), replicas: 5 } });
    t.match(await statusIs('max', { currentHealthy: 5 }), { expectedPods: 5, desiredHealthy: 4, disruptionsAllowed: 1 });
  });

  await t.test('pods without a controller: a percentage cannot be computed, the budget fails safe', async (t) => {
    await client.create(RESOURCES.pods, 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', labels: { app: 'bare' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
    await waitFor('bare ready', async () => ((await client.get(RESOURCES.pods, 'default', 'bare')).status as { phase?: string }).phase === 'Running');
    await client.create(RESOURCES.podDisruptionBudgets, 'default', budget('bare', 'bare', { minAvailable: '50%' }));
    t.match(await statusIs('bare', { observedGeneration: 1 }), { disruptionsAllowed: 0 });
    const events = await waitFor('events', async () => {
      const e = (await client.list(RESOURCES.events, 'default')).items.filter((x) => (x.involvedObject as { name?: string }).name === 'bare' && (x.involvedObject as { kind?: string }).kind === 'PodDisruptionBudget');
      return e.length >= 2 && e;
    });
    t.match(events.find((e) => e.reason === 'NoControllerRef'), { type: 'Warning', message: 'found no controller ref for pod "bare"', source: { component: 'controllermanager' } });
    t.match(events.find((e) => e.reason === 'CalculateExpectedPodCountFailed'), { type: 'Warning', message: 'Failed to calculate the number of expected pods: found no controller ref for pod "bare"' });
    await t.rejects(evict('bare'), { code: 429 });
  });

  await t.test('a custom controller: its scale subresource gives the expected pods', async (t) => {
    await client.create(RESOURCES.customResourceDefinitions, undefined, {
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'pools.example.com' },
      spec: {
        group: 'example.com', scope: 'Namespaced', names: { plural: 'pools', singular: 'pool', kind: 'Pool' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        }],
      },
    });
    const pools = { group: 'example.com', version: 'v1', resource: 'pools', kind: 'Pool', namespaced: true };
    const pool = await waitFor('the Pool kind served', () => client.create(pools, 'default', { apiVersion: 'example.com/v1', kind: 'Pool', metadata: { name: 'p' }, spec: { replicas: 4 } }).catch(() => undefined));
    for (const name of ['p-1', 'p-2']) {
      await client.create(RESOURCES.pods, 'default', {
        apiVersion: 'v1', kind: 'Pod',
        metadata: { name, labels: { app: 'pool' }, ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Pool', name: 'p', uid: pool.metadata!.uid!, controller: true }] },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
    }
    await client.create(RESOURCES.podDisruptionBudgets, 'default', budget('pool', 'pool', { maxUnavailable: 1 }));
    t.match(await statusIs('pool', { currentHealthy: 2 }), { expectedPods: 4, desiredHealthy: 3, disruptionsAllowed: 0 });
  });

  await t.test('no pods: NoPods, nothing allowed', async (t) => {
    await client.create(RESOURCES.podDisruptionBudgets, 'default', budget('none', 'none', { minAvailable: 1 }));
    t.match(await statusIs('none', { observedGeneration: 1 }), { expectedPods: 0, currentHealthy: 0, desiredHealthy: 1, disruptionsAllowed: 0 });
    const e = await waitFor('NoPods', async () => (await client.list(RESOURCES.events, 'default')).items.find((x) => x.reason === 'NoPods'));
    t.equal(e.message, 'No matching pods found');
  });
});
