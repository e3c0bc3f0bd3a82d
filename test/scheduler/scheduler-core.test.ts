/**
 * The scheduling loop against the real API server, with the core plugins and a small filter and
 * score written here (the in-tree plugins have their own tests): binding, events, the PodScheduled
 * condition, the FailedScheduling message, retry on cluster events, and profiles by scheduler name.
 */
import t from 'tap';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { unresolvable } from '../../src/scheduler/framework/status';
import type { PluginFactory } from '../../src/scheduler/framework/types';
import type { ProfileConfig } from '../../src/scheduler/runtime';
import { startApiServer, waitFor } from '../e2e/harness';
import { startScheduler } from '../helpers/scheduler';
import { makeNode } from './helpers';

/** a filter: nodes labelled ready=yes only */
const readyOnly: PluginFactory = () => ({
  name: 'ReadyLabel',
  filter: (_s, _p, info) => (info.node?.metadata?.labels?.ready === 'yes' ? undefined : unresolvable('node(s) were not labelled ready')),
});
/** a score: the node's `rank` label */
const rankScore: PluginFactory = () => ({ name: 'Rank', score: (_s, _p, info) => Number(info.node?.metadata?.labels?.rank ?? 0) });

function profile(schedulerName: string): ProfileConfig {
  return {
    schedulerName,
    plugins: { queueSort: [{ name: 'PrioritySort' }], filter: [{ name: 'ReadyLabel' }], score: [{ name: 'Rank', weight: 1 }], bind: [{ name: 'DefaultBinder' }] },
    pluginConfig: {},
  };
}

function pod(name: string, schedulerName?: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { schedulerName, containers: [{ name: 'c', image: 'busybox' }] } };
}

t.test('scheduling loop against the real server', async (t) => {
  const server = await startApiServer(t);
  const { client } = startScheduler(t, server, [profile('default-scheduler'), profile('second')], { plugins: { ReadyLabel: readyOnly, Rank: rankScore } });
  const get = (name: string) => client.get(RESOURCES.pods, 'default', name);
  const events = async (name: string, reason: string) =>
    (await client.list(RESOURCES.events, 'default')).items.filter((e) => e.reason === reason && (e.involvedObject as { name?: string }).name === name);
  const nodeOf = (p: KubeObject) => (p.spec as { nodeName?: string }).nodeName;
  const condition = (p: KubeObject) => ((p.status as { conditions?: Array<Record<string, unknown>> }).conditions ?? []).find((c) => c.type === 'PodScheduled');

  await t.test('no nodes: FailedScheduling, then bound once a node appears', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('early'));
    await waitFor('FailedScheduling', async () => (await events('early', 'FailedScheduling')).length > 0);
    const [ev] = await events('early', 'FailedScheduling');
    t.equal(ev.message, 'no nodes available to schedule pods');
    t.equal(ev.type, 'Warning');
    t.match((ev.source as { component?: string }).component, 'default-scheduler');
    t.match(condition(await get('early')), { status: 'False', reason: 'Unschedulable', message: 'no nodes available to schedule pods' });
    await client.create(RESOURCES.nodes, undefined, makeNode('n1', { labels: { ready: 'yes', rank: '10' } }));
    await waitFor('bound', async () => nodeOf(await get('early')) === 'n1');
    t.match(condition(await get('early')), { status: 'True' });
    await waitFor('Scheduled event', async () => (await events('early', 'Scheduled')).length === 1);
    t.equal((await events('early', 'Scheduled'))[0].message, 'Successfully assigned default/early to n1');
  });

  await t.test('the highest score wins; filtered nodes are counted in the message', async (t) => {
    await client.create(RESOURCES.nodes, undefined, makeNode('n2', { labels: { ready: 'yes', rank: '90' } }));
    await client.create(RESOURCES.nodes, undefined, makeNode('n3', { labels: { ready: 'no', rank: '100' } }));
    await client.create(RESOURCES.pods, 'default', pod('best'));
    await waitFor('bound', async () => nodeOf(await get('best')) === 'n2');
    t.pass('bound to n2 (n3 scores higher but is filtered)');
  });

  await t.test('unschedulable: kube\'s message; a node change brings the pod back', async (t) => {
    await client.patch(RESOURCES.nodes, undefined, 'n1', 'merge', { metadata: { labels: { ready: 'no' } } });
    await client.patch(RESOURCES.nodes, undefined, 'n2', 'merge', { metadata: { labels: { ready: 'no' } } });
    await waitFor('nodes seen', async () => true);
    await client.create(RESOURCES.pods, 'default', pod('stuck'));
    await waitFor('FailedScheduling', async () => (await events('stuck', 'FailedScheduling')).length > 0);
    t.equal((await events('stuck', 'FailedScheduling'))[0].message, '0/3 nodes are available: 3 node(s) were not labelled ready.');
    await client.patch(RESOURCES.nodes, undefined, 'n3', 'merge', { metadata: { labels: { ready: 'yes' } } });
    await waitFor('bound after the node changed', async () => nodeOf(await get('stuck')) === 'n3');
  });

  await t.test('a second profile serves its scheduler name; unknown names are left alone', async (t) => {
    await client.create(RESOURCES.pods, 'default', pod('by-second', 'second'));
    await client.create(RESOURCES.pods, 'default', pod('nobody', 'not-ours'));
    await waitFor('bound by the second profile', async () => nodeOf(await get('by-second')) === 'n3');
    await waitFor('Scheduled event', async () => (await events('by-second', 'Scheduled')).length === 1);
    t.match((await events('by-second', 'Scheduled'))[0].source, { component: 'second' });
    t.equal(nodeOf(await get('nobody')), undefined, 'a pod for another scheduler stays pending');
    t.same(await events('nobody', 'FailedScheduling'), []);
  });
});
