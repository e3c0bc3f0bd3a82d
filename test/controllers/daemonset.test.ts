import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { missingKubectl, startApiServer, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { startFakeNode } from '../helpers/fake-node';

const node = (name: string, taints: unknown[] = []): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: { taints } });

const daemonSet = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    ...extra,
  },
});

interface Term {
  matchFields?: { key: string; operator: string; values: string[] }[];
}

const targetOf = (pod: KubeObject) =>
  ((pod.spec as { affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Term[] } } } }).affinity?.nodeAffinity
    ?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms?.[0]?.matchFields?.[0]?.values?.[0]);
const imageOf = (pod: KubeObject) => (pod.spec as { containers: { image: string }[] }).containers[0]!.image;

t.test('daemonset controller against the real server', { skip: missingKubectl('1.32') }, async (t) => {
  const server = await startApiServer(t);
  const { client } = startControllers(t, server, ['daemonset', 'garbagecollector']);
  startFakeNode(t, client);
  const podsOf = async (app: string) => (await client.list(RESOURCES.pods, 'default', { labelSelector: `app=${app}` })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const statusOf = async (name: string) => (await client.get(RESOURCES.daemonSets, 'default', name)).status as Record<string, number>;
  const events = async (reason: string) => (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === reason);
  // the server taints new nodes not-ready (daemon pods wait for that to go); the test plays the node lifecycle controller
  for (const n of [node('n1'), node('n2'), node('n3', [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }])]) {
    await client.create(RESOURCES.nodes, undefined, n);
    await client.patch(RESOURCES.nodes, undefined, n.metadata!.name!, 'merge', { spec: { taints: (n.spec as { taints: unknown[] }).taints } });
  }

  await t.test('one pod per eligible node, with affinity, tolerations and labels', async (t) => {
    const ds = await client.create(RESOURCES.daemonSets, 'default', daemonSet('agent'));
    const pods = await waitFor('2 pods', async () => {
      const p = await podsOf('agent');
      return p.length === 2 && p;
    });
    t.same(pods.map(targetOf).sort(), ['n1', 'n2'], 'the tainted node gets none');
    const pod = pods[0]!;
    t.match(pod.metadata?.name, /^agent-[a-z0-9]{5}$/);
    t.match(pod.metadata?.ownerReferences, [{ kind: 'DaemonSet', name: 'agent', uid: ds.metadata?.uid, controller: true }]);
    t.equal(ds.metadata?.annotations?.['deprecated.daemonset.template.generation'], '1', 'the server sets the template generation');
    t.equal(pod.metadata?.labels?.['pod-template-generation'], '1');
    t.ok(pod.metadata?.labels?.['controller-revision-hash'], 'hash label');
    const tolerations = (pod.spec as { tolerations: { key: string; effect: string }[] }).tolerations;
    t.same(tolerations.map((x) => `${x.key}:${x.effect}`).sort(), [
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    const status = await waitFor('status', async () => {
      const s = await statusOf('agent');
      return s.numberAvailable === 2 && s;
    });
    t.match(status, { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2, numberMisscheduled: 0, observedGeneration: 1 });
    t.notOk(status.numberUnavailable, 'none unavailable');
    const revisions = (await client.list(RESOURCES.controllerRevisions, 'default', { labelSelector: 'app=agent' })).items;
    t.equal(revisions.length, 1);
    t.equal(revisions[0]!.metadata?.labels?.['controller-revision-hash'], pod.metadata?.labels?.['controller-revision-hash']);
    const created = await waitFor('events', async () => {
      const e = await events('SuccessfulCreate');
      return e.length >= 2 && e;
    });
    t.ok(created.every((e) => /^Created pod: agent-/.test(String(e.message))));
  });

  await t.test('a NoExecute taint evicts; removing it brings the pod back', async (t) => {
    await client.patch(RESOURCES.nodes, undefined, 'n2', 'merge', { spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] } });
    await waitFor('n2 pod deleted', async () => (await podsOf('agent')).map(targetOf).join() === 'n1');
    await waitFor('desired 1', async () => (await statusOf('agent')).desiredNumberScheduled === 1);
    await client.patch(RESOURCES.nodes, undefined, 'n2', 'merge', { spec: { taints: null } });
    await waitFor('n2 pod back', async () => (await podsOf('agent')).length === 2);
    t.pass('evicted and recreated');
  });

  await t.test('a rolling update within maxUnavailable, with a new revision', async (t) => {
    const before = await podsOf('agent');
    const oldHash = before[0]!.metadata?.labels?.['controller-revision-hash'];
    let maxDown = 0;
    const watcher = setInterval(() => {
      void statusOf('agent').then((s) => (maxDown = Math.max(maxDown, s.numberUnavailable ?? 0)), () => undefined);
    }, 30);
    await client.patch(RESOURCES.daemonSets, 'default', 'agent', 'merge', {
      spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox:2' }], tolerations: [{ key: 'dedicated', operator: 'Exists' }] } } },
    });
    const pods = await waitFor('3 updated pods', async () => {
      const p = await podsOf('agent');
      const s = await statusOf('agent');
      return p.length === 3 && p.every((x) => imageOf(x) === 'busybox:2') && s.updatedNumberScheduled === 3 && s.numberAvailable === 3 && p;
    });
    clearInterval(watcher);
    t.ok(pods.every((p) => p.metadata?.labels?.['pod-template-generation'] === '2'), 'generation 2');
    const updated = await client.get(RESOURCES.daemonSets, 'default', 'agent');
    t.equal(updated.metadata?.annotations?.['deprecated.daemonset.template.generation'], '2', 'a new template is a new template generation');
    t.ok(pods.every((p) => p.metadata?.labels?.['controller-revision-hash'] !== oldHash), 'new hash');
    t.ok(maxDown <= 2, `unavailability stayed bounded (${maxDown})`);
    const revisions = (await client.list(RESOURCES.controllerRevisions, 'default', { labelSelector: 'app=agent' })).items;
    t.same(revisions.map((r) => r.revision).sort(), [1, 2]);
  });

  await t.test('a failed pod is reported and replaced', async (t) => {
    const victim = (await podsOf('agent')).find((p) => targetOf(p) === 'n2');
    await client.patch(RESOURCES.pods, 'default', victim!.metadata!.name!, 'merge', { status: { phase: 'Failed' } }, { subresource: 'status' });
    const ev = await waitFor('FailedDaemonPod', async () => (await events('FailedDaemonPod'))[0]);
    t.equal(ev.message, `Found failed daemon pod default/${victim!.metadata!.name} on node ${targetOf(victim!)}, will try to kill it`);
    t.equal(ev.type, 'Warning');
    await waitFor('replaced', async () => {
      const p = await podsOf('agent');
      return p.length === 3 && !p.some((x) => x.metadata?.name === victim!.metadata!.name);
    });
  });

  await t.test('a deleted node loses its unscheduled pod; OnDelete waits for deletions', async (t) => {
    await client.delete(RESOURCES.nodes, undefined, 'n3');
    await waitFor('n3 pod gone', async () => !(await podsOf('agent')).some((p) => targetOf(p) === 'n3'));
    await waitFor('desired 2', async () => (await statusOf('agent')).desiredNumberScheduled === 2);
    await client.patch(RESOURCES.daemonSets, 'default', 'agent', 'merge', {
      spec: { updateStrategy: { type: 'OnDelete', rollingUpdate: null }, template: { spec: { containers: [{ name: 'c', image: 'busybox:3' }] } } },
    });
    await waitFor('observed', async () => (await statusOf('agent')).observedGeneration === 3);
    const pods = await podsOf('agent');
    t.ok(pods.every((p) => imageOf(p) === 'busybox:2'), 'nothing replaced by itself');
    t.equal((await statusOf('agent')).updatedNumberScheduled ?? 0, 0, 'no pod up to date');
    await client.delete(RESOURCES.pods, 'default', pods[0]!.metadata!.name!);
    await waitFor('a pod on the new template', async () => (await podsOf('agent')).some((p) => imageOf(p) === 'busybox:3'));
  });

  await t.test('a pod bound by the scheduler still counts for its node', async (t) => {
    const [pod] = await podsOf('agent');
    const target = targetOf(pod!);
    await client.create(RESOURCES.pods, 'default', { apiVersion: 'v1', kind: 'Binding', metadata: { name: pod!.metadata!.name! }, target: { apiVersion: 'v1', kind: 'Node', name: target } }, 'binding', pod!.metadata!.name!);
    await waitFor('bound', async () => ((await client.get(RESOURCES.pods, 'default', pod!.metadata!.name!)).spec as { nodeName?: string }).nodeName === target);
    const status = await waitFor('status', async () => {
      const s = await statusOf('agent');
      return s.numberAvailable === 2 && s;
    });
    t.match(status, { desiredNumberScheduled: 2, currentNumberScheduled: 2, numberMisscheduled: 0 });
    t.equal((await podsOf('agent')).length, 2, 'no pod added for a bound one');
  });
});
