/**
 * Preemption with the default profile against the real API server: a high-priority pod that fits
 * nowhere evicts a lower-priority pod, is nominated to its node (status.nominatedNodeName), the
 * victim gets kube's Preempted event, and the pod is bound once the victim is gone. The test
 * plays the node agent: it finishes the victims' graceful deletion.
 */
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { startApiServer, waitFor } from '../e2e/harness';
import { defaultProfiles, startScheduler } from '../helpers/scheduler';
import { makeNode } from './helpers';

const PRIORITY_CLASSES = { group: 'scheduling.k8s.io', version: 'v1', resource: 'priorityclasses', kind: 'PriorityClass', namespaced: false } as const;

function pod(name: string, priorityClassName: string, cpu: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: name } }, spec: { priorityClassName, containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu } } }] } };
}

t.test('DefaultPreemption against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startScheduler(t, server, defaultProfiles());
  for (const name of ['n1', 'n2']) {
    await client.create(RESOURCES.nodes, undefined, makeNode(name, { cpu: '2' }));
    await client.patch(RESOURCES.nodes, undefined, name, 'merge', { spec: { taints: null } });
  }
  for (const [name, value] of [['low', 100], ['high', 1_000_000]] as const) {
    await client.create(PRIORITY_CLASSES, undefined, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });
  }
  const get = (name: string) => client.get(RESOURCES.pods, 'default', name);
  const nodeOf = async (name: string) => ((await get(name)).spec as { nodeName?: string }).nodeName;
  const events = async (name: string, reason: string) =>
    (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === reason && (e.involvedObject as { name?: string }).name === name);

  await client.create(RESOURCES.pods, 'default', pod('low-a', 'low', '1500m'));
  await client.create(RESOURCES.pods, 'default', pod('low-b', 'low', '1500m'));
  await waitFor('both low pods bound', async () => (await nodeOf('low-a')) && (await nodeOf('low-b')));
  t.not(await nodeOf('low-a'), await nodeOf('low-b'), 'one per node');
  t.equal(((await get('low-a')).spec as { priority?: number }).priority, 100, 'the Priority admission plugin resolved the class');

  await client.create(RESOURCES.pods, 'default', pod('urgent', 'high', '1500m'));
  await waitFor('FailedScheduling', async () => (await events('urgent', 'FailedScheduling')).length > 0);
  t.equal((await events('urgent', 'FailedScheduling'))[0].message, '0/2 nodes are available: 2 Insufficient cpu.');
  const nominated = await waitFor('nominated', async () => ((await get('urgent')).status as { nominatedNodeName?: string }).nominatedNodeName);
  const victims: KubeObject[] = [];
  for (const name of ['low-a', 'low-b']) {
    const p = await get(name);
    if (p.metadata?.deletionTimestamp) victims.push(p);
  }
  t.equal(victims.length, 1, 'exactly one victim');
  const victim = victims[0];
  t.equal((victim.spec as { nodeName?: string }).nodeName, nominated, 'the victim ran on the nominated node');
  await waitFor('Preempted event', async () => (await events(victim.metadata!.name!, 'Preempted')).length === 1);
  t.equal((await events(victim.metadata!.name!, 'Preempted'))[0].message, `Preempted by default/urgent on node ${nominated}`);
  t.equal(await nodeOf('urgent'), undefined, 'not bound while the victim is still terminating');
  // the node agent finishes the graceful deletion
  await client.delete(RESOURCES.pods, 'default', victim.metadata!.name!, { gracePeriodSeconds: 0 });
  await waitFor('bound to the nominated node', async () => (await nodeOf('urgent')) === nominated, 30_000);
  t.pass(`urgent runs on ${nominated}`);
});
