import t from 'tap';
import { RESOURCES } from '../../../src/client/resources';
import type { KubeObject } from '../../../src/client/types';
import { CycleState, type NodeScore, type Plugin } from '../../../src/scheduler/framework/types';
import { POD_PLUGINS } from '../../../src/scheduler/plugins/pod';
import { newSelectorSpread } from '../../../src/scheduler/plugins/pod/selector-spread';
import { Snapshot, fakeHandle, makeNode, makePod, type FakeHandleOptions } from '../helpers';

const svc = (name: string, selector: Record<string, string> | undefined, namespace = 'default') => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace },
  spec: selector ? { selector } : {},
});
const web = (name: string, node: string, extra: Record<string, string> = {}) => makePod(name, { node, labels: { app: 'web', ...extra } });

function scoreAll(nodes: KubeObject[], pods: KubeObject[], pod: KubeObject, o: FakeHandleOptions = {}): Record<string, number> {
  const snapshot = Snapshot.of(nodes, pods);
  const plugin: Plugin = newSelectorSpread(undefined, fakeHandle(snapshot, o));
  const state = new CycleState();
  t.equal(plugin.preScore!(state, pod, snapshot.list()), undefined);
  const scores: NodeScore[] = snapshot.list().map((n) => ({ name: n.name, score: plugin.score!(state, pod, n) as number }));
  t.equal(plugin.normalizeScore!(state, pod, scores), undefined);
  return Object.fromEntries(scores.map((s) => [s.name, s.score]));
}

t.test('registered under its kube name', async (t) => {
  t.equal(POD_PLUGINS.SelectorSpread, newSelectorSpread);
  t.equal(newSelectorSpread(undefined, fakeHandle(Snapshot.of([]))).name, 'SelectorSpread');
});

t.test('nodes with fewer pods of the same service score higher', async (t) => {
  const nodes = [makeNode('n1'), makeNode('n2'), makeNode('n3')];
  const pods = [web('w1', 'n1'), web('w2', 'n1'), web('w3', 'n2'), makePod('other', { node: 'n3', labels: { app: 'db' } })];
  const objects = [{ ref: RESOURCES.services, items: [svc('web', { app: 'web' })] }];
  t.same(scoreAll(nodes, pods, makePod('new', { labels: { app: 'web' } }), { objects }), { n1: 0, n2: 50, n3: 100 });
});

t.test('nothing selects the pod: every node scores 100', async (t) => {
  const nodes = [makeNode('n1'), makeNode('n2')];
  const objects = [{ ref: RESOURCES.services, items: [svc('web', { app: 'web' }), svc('headless', undefined)] }];
  t.same(scoreAll(nodes, [web('w1', 'n1')], makePod('new', { labels: { app: 'other' } }), { objects }), { n1: 100, n2: 100 });
  // a service in another namespace does not select it
  const elsewhere = [{ ref: RESOURCES.services, items: [svc('web', { app: 'web' }, 'other')] }];
  t.same(scoreAll(nodes, [web('w1', 'n1')], makePod('new', { labels: { app: 'web' } }), { objects: elsewhere }), { n1: 100, n2: 100 });
});

t.test('replica sets and stateful sets add their selectors', async (t) => {
  const nodes = [makeNode('n1'), makeNode('n2')];
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web', tier: 'front' } } } };
  const pods = [web('w1', 'n1', { tier: 'front' }), web('w2', 'n2', { tier: 'back' })];
  // the RS selector counts only tier=front pods: n1 1, n2 0
  t.same(scoreAll(nodes, pods, makePod('new', { labels: { app: 'web', tier: 'front' } }), { objects: [{ ref: RESOURCES.replicaSets, items: [rs] }] }), { n1: 0, n2: 100 });
  const ss = { ...rs, kind: 'StatefulSet' };
  t.same(scoreAll(nodes, pods, makePod('new', { labels: { app: 'web', tier: 'front' } }), { objects: [{ ref: RESOURCES.statefulSets, items: [ss] }] }), { n1: 0, n2: 100 });
  const rc = { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } };
  t.same(scoreAll(nodes, [web('w1', 'n1'), web('w2', 'n1'), web('w3', 'n2')], makePod('new', { labels: { app: 'web' } }), { objects: [{ ref: RESOURCES.replicationControllers, items: [rc] }] }), { n1: 0, n2: 50 });
});

t.test('zones weigh two thirds', async (t) => {
  const z = (name: string, zone: string) => makeNode(name, { labels: { 'topology.kubernetes.io/zone': zone } });
  const nodes = [z('a1', 'a'), z('a2', 'a'), z('b1', 'b')];
  const pods = [web('w1', 'a1'), web('w2', 'a1'), web('w3', 'b1')];
  const objects = [{ ref: RESOURCES.services, items: [svc('web', { app: 'web' })] }];
  // node: a1 0, a2 100, b1 50; zone: a (2) 0, b (1) 50
  // a1 0; a2 100/3 + 0 = 33; b1 50/3 + 2/3*50 = 50
  t.same(scoreAll(nodes, pods, makePod('new', { labels: { app: 'web' } }), { objects }), { a1: 0, a2: 33, b1: 50 });
});

t.test('pods with topology spread constraints are skipped; terminating pods do not count', async (t) => {
  const nodes = [makeNode('n1'), makeNode('n2')];
  const objects = [{ ref: RESOURCES.services, items: [svc('web', { app: 'web' })] }];
  const constrained = makePod('new', { labels: { app: 'web' }, spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'x', whenUnsatisfiable: 'DoNotSchedule' }] } });
  t.same(scoreAll(nodes, [web('w1', 'n1')], constrained, { objects }), { n1: 0, n2: 0 });
  const dying = web('w1', 'n1');
  dying.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
  t.same(scoreAll(nodes, [dying], makePod('new', { labels: { app: 'web' } }), { objects }), { n1: 100, n2: 100 });
});
