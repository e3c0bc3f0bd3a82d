import t from 'tap';
import { RESOURCES } from '../../../src/client/resources';
import type { KubeObject } from '../../../src/client/types';
import { PodInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type NodeScore, type Plugin } from '../../../src/scheduler/framework/types';
import { POD_PLUGINS } from '../../../src/scheduler/plugins/pod';
import { newServiceAffinity } from '../../../src/scheduler/plugins/pod/service-affinity';
import { Snapshot, fakeHandle, makeNode, makePod } from '../helpers';

const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } };
const objects = [{ ref: RESOURCES.services, items: [svc] }];
const region = (name: string, r: string, zone = 'z') => makeNode(name, { labels: { region: r, zone } });
const web = (name: string, node: string) => makePod(name, { node, labels: { app: 'web' } });

function setup(nodes: KubeObject[], pods: KubeObject[], args: unknown): { plugin: Plugin; snapshot: Snapshot } {
  const snapshot = Snapshot.of(nodes, pods);
  return { plugin: newServiceAffinity(args, fakeHandle(snapshot, { objects })), snapshot };
}

function filterAll(plugin: Plugin, snapshot: Snapshot, pod: KubeObject): Record<string, Status | undefined> {
  const state = new CycleState();
  t.equal(plugin.preFilter!(state, pod), undefined);
  return Object.fromEntries(snapshot.list().map((n) => [n.name, plugin.filter!(state, pod, n)]));
}

t.test('registered under its kube name', async (t) => {
  t.equal(POD_PLUGINS.ServiceAffinity, newServiceAffinity);
  t.equal(setup([], [], undefined).plugin.name, 'ServiceAffinity');
});

t.test('filter: the service pods already placed pin the affinity labels', async (t) => {
  const { plugin, snapshot } = setup([region('r1a', 'r1'), region('r1b', 'r1'), region('r2a', 'r2')], [web('w1', 'r1a')], { affinityLabels: ['region'] });
  const r = filterAll(plugin, snapshot, makePod('new', { labels: { app: 'web' } }));
  t.equal(r.r1a, undefined);
  t.equal(r.r1b, undefined);
  t.equal(r.r2a?.code, Code.Unschedulable);
  t.same(r.r2a?.reasons, ["node(s) didn't match service affinity"]);
});

t.test('filter: the first pod of a service, or no service, goes anywhere; a nodeSelector pins the label itself', async (t) => {
  const nodes = [region('r1a', 'r1'), region('r2a', 'r2')];
  const empty = setup(nodes, [], { affinityLabels: ['region'] });
  t.same(filterAll(empty.plugin, empty.snapshot, makePod('new', { labels: { app: 'web' } })), { r1a: undefined, r2a: undefined });
  const placed = setup(nodes, [makePod('x', { node: 'r1a', labels: { app: 'db' } })], { affinityLabels: ['region'] });
  t.same(filterAll(placed.plugin, placed.snapshot, makePod('db', { labels: { app: 'db' } })), { r1a: undefined, r2a: undefined }, 'no service selects it');
  const pinned = setup(nodes, [web('w1', 'r1a')], { affinityLabels: ['region'] });
  const r = filterAll(pinned.plugin, pinned.snapshot, makePod('new', { labels: { app: 'web' }, spec: { nodeSelector: { region: 'r2' } } }));
  t.equal(r.r1a?.code, Code.Unschedulable);
  t.equal(r.r2a, undefined);
});

t.test('filter: no affinity labels means no opinion; without preFilter it is an error', async (t) => {
  const { plugin, snapshot } = setup([region('r1a', 'r1')], [], {});
  t.equal(plugin.filter!(new CycleState(), makePod('p'), snapshot.list()[0]), undefined);
  const active = setup([region('r1a', 'r1')], [], { affinityLabels: ['region'] });
  t.equal(active.plugin.filter!(new CycleState(), makePod('p'), active.snapshot.list()[0])?.message, 'error reading "PreFilterServiceAffinity" from cycleState: not found');
});

t.test('preFilter extensions: a removed victim no longer pins, an added pod does', async (t) => {
  const { plugin, snapshot } = setup([region('r1a', 'r1'), region('r2a', 'r2')], [web('w1', 'r1a')], { affinityLabels: ['region'] });
  const pod = makePod('new', { labels: { app: 'web' } });
  const state = new CycleState();
  plugin.preFilter!(state, pod);
  const [r1a, r2a] = snapshot.list();
  const copy = state.clone();
  plugin.preFilterExtensions!()!.removePod(copy, pod, new PodInfo(r1a.pods[0].pod), r1a);
  t.equal(plugin.filter!(copy, pod, r2a), undefined);
  t.equal(plugin.filter!(state, pod, r2a)?.code, Code.Unschedulable, 'the clone is independent');
  const fresh = new CycleState();
  const lone = setup([region('r1a', 'r1'), region('r2a', 'r2')], [], { affinityLabels: ['region'] });
  lone.plugin.preFilter!(fresh, pod);
  lone.plugin.preFilterExtensions!()!.addPod(fresh, pod, new PodInfo(web('w9', 'r2a')), lone.snapshot.list()[1]);
  t.equal(lone.plugin.filter!(fresh, pod, lone.snapshot.list()[0])?.code, Code.Unschedulable);
});

t.test('score: fewer service pods under the same label value score higher', async (t) => {
  const nodes = [region('r1a', 'r1'), region('r1b', 'r1'), region('r2a', 'r2'), makeNode('bare')];
  const { plugin, snapshot } = setup(nodes, [web('w1', 'r1a'), web('w2', 'r1b'), web('w3', 'r2a'), makePod('db', { node: 'r2a', labels: { app: 'db' } })], {
    antiAffinityLabelsPreference: ['region'],
  });
  const pod = makePod('new', { labels: { app: 'web' } });
  const state = new CycleState();
  const scores: NodeScore[] = snapshot.list().map((n) => ({ name: n.name, score: plugin.score!(state, pod, n) as number }));
  t.same(scores.map((s) => s.score), [1, 1, 1, 0], 'raw counts of service pods');
  t.equal(plugin.normalizeScore!(state, pod, scores), undefined);
  // total 3: r1 holds 2 -> 33, r2 holds 1 -> 66, unlabeled 0
  t.same(scores.map((s) => s.score), [33, 33, 66, 0]);
});

t.test('score: several labels share the score; a node without a label gets no share of it', async (t) => {
  const nodes = [region('a', 'r1', 'z1'), makeNode('b', { labels: { region: 'r2' } })];
  const { plugin, snapshot } = setup(nodes, [web('w1', 'a')], { antiAffinityLabelsPreference: ['region', 'zone'] });
  const pod = makePod('new', { labels: { app: 'web' } });
  const state = new CycleState();
  const scores: NodeScore[] = snapshot.list().map((n) => ({ name: n.name, score: plugin.score!(state, pod, n) as number }));
  plugin.normalizeScore!(state, pod, scores);
  // region: a 0, b 100, halved; zone: a holds every service pod of z1 -> 0, b has no zone and keeps its region share
  t.same(scores.map((s) => s.score), [0, 50]);
});

t.test('score: without anti-affinity labels every node scores 0', async (t) => {
  const { plugin, snapshot } = setup([region('a', 'r1')], [web('w1', 'a')], {});
  const pod = makePod('new', { labels: { app: 'web' } });
  const scores: NodeScore[] = snapshot.list().map((n) => ({ name: n.name, score: plugin.score!(new CycleState(), pod, n) as number }));
  t.same(scores.map((s) => s.score), [1]);
  plugin.normalizeScore!(new CycleState(), pod, scores);
  t.same(scores.map((s) => s.score), [0]);
});
