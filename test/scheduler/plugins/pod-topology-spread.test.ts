import t from 'tap';
import { RESOURCES } from '../../../src/client/resources';
import type { KubeObject } from '../../../src/client/types';
import { FeatureGates } from '../../../src/options/feature-gates';
import { PodInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type NodeScore, type Plugin } from '../../../src/scheduler/framework/types';
import { POD_PLUGINS } from '../../../src/scheduler/plugins/pod';
import { newPodTopologySpread } from '../../../src/scheduler/plugins/pod/pod-topology-spread';
import { Snapshot, fakeHandle, makeNode, makePod, type FakeHandleOptions } from '../helpers';

const node = (name: string, z: string, extra: Record<string, string> = {}) => makeNode(name, { labels: { 'topology.kubernetes.io/zone': z, ...extra } });
const ZONE = 'topology.kubernetes.io/zone';
const HOST = 'kubernetes.io/hostname';
const constraint = (topologyKey: string, maxSkew: number, whenUnsatisfiable = 'DoNotSchedule', matchLabels: Record<string, string> = { app: 'web' }) => ({
  topologyKey,
  maxSkew,
  whenUnsatisfiable,
  labelSelector: { matchLabels },
});
const spreadPod = (name: string, constraints: unknown[], extra: Parameters<typeof makePod>[1] = {}) =>
  makePod(name, { labels: { app: 'web' }, ...extra, spec: { topologySpreadConstraints: constraints, ...(extra.spec ?? {}) } });
const web = (name: string, nodeName: string) => makePod(name, { node: nodeName, labels: { app: 'web' } });

function setup(nodes: KubeObject[], pods: KubeObject[], args?: unknown, o: FakeHandleOptions & { gates?: FeatureGates } = {}): { plugin: Plugin; snapshot: Snapshot } {
  const snapshot = Snapshot.of(nodes, pods);
  const handle = { ...fakeHandle(snapshot, o), ...(o.gates ? { featureGates: o.gates } : {}) };
  return { plugin: newPodTopologySpread(args, handle), snapshot };
}

function filterAll(plugin: Plugin, snapshot: Snapshot, pod: KubeObject): Record<string, Status | undefined> {
  const state = new CycleState();
  t.equal(plugin.preFilter!(state, pod), undefined);
  return Object.fromEntries(snapshot.list().map((n) => [n.name, plugin.filter!(state, pod, n)]));
}

function scoreAll(plugin: Plugin, snapshot: Snapshot, pod: KubeObject, nodes = snapshot.list()): Record<string, number> {
  const state = new CycleState();
  t.equal(plugin.preScore!(state, pod, nodes), undefined);
  const scores: NodeScore[] = nodes.map((n) => ({ name: n.name, score: plugin.score!(state, pod, n) as number }));
  t.equal(plugin.normalizeScore!(state, pod, scores), undefined);
  return Object.fromEntries(scores.map((s) => [s.name, s.score]));
}

t.test('registered under its kube name', async (t) => {
  t.equal(POD_PLUGINS.PodTopologySpread, newPodTopologySpread);
  t.equal(setup([], []).plugin.name, 'PodTopologySpread');
});

t.test('args validation words errors as kube', async (t) => {
  const make = (args: unknown) => () => setup([], [], args);
  t.throws(make({ defaultConstraints: [{ topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 0 }] }), {
    message: 'defaultConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
  });
  t.throws(make({ defaultConstraints: [{ topologyKey: '', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 1 }] }), {
    message: 'defaultConstraints[0].topologyKey: Required value: can not be empty',
  });
  t.throws(make({ defaultConstraints: [{ topologyKey: ZONE, whenUnsatisfiable: 'Never', maxSkew: 1 }] }), {
    message: 'defaultConstraints[0].whenUnsatisfiable: Unsupported value: "Never": supported values: "DoNotSchedule", "ScheduleAnyway"',
  });
  t.throws(make({ defaultConstraints: [{ topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 1, labelSelector: {} }] }), {
    message: 'defaultConstraints[0].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod',
  });
  t.throws(
    make({
      defaultConstraints: [
        { topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 1 },
        { topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 2 },
      ],
    }),
    { message: 'defaultConstraints[1]: Duplicate value: "{topology.kubernetes.io/zone, ScheduleAnyway}"' },
  );
  t.throws(make({ defaultConstraints: [{ topologyKey: 'a b', whenUnsatisfiable: 'X', maxSkew: 1 }] }), { message: /^\[defaultConstraints\[0\]\.topologyKey: Invalid value: "a b": .*, defaultConstraints\[0\]\.whenUnsatisfiable: Unsupported value: "X"/ });
  t.throws(make({ defaultingType: 'System', defaultConstraints: [{ topologyKey: ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 1 }] }), {
    message: 'defaultingType: Invalid value: "System": when .defaultConstraints are not empty',
  });
  t.throws(make({ defaultingType: 'Sometimes' }), { message: 'defaultingType: Unsupported value: "Sometimes": supported values: "System", "List"' });
});

t.test('filter: maxSkew against the global minimum of eligible domains', async (t) => {
  // zone a holds 2 web pods, b 1, c 0
  const { plugin, snapshot } = setup([node('a1', 'a'), node('b1', 'b'), node('c1', 'c')], [web('w1', 'a1'), web('w2', 'a1'), web('w3', 'b1')]);
  const r = filterAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 1)]));
  t.equal(r.a1?.code, Code.Unschedulable);
  t.same(r.a1?.reasons, ["node(s) didn't match pod topology spread constraints"]);
  t.equal(r.b1?.code, Code.Unschedulable, '1 + 1 - 0 > 1');
  t.equal(r.c1, undefined);
  const loose = filterAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 2)]));
  t.equal(loose.b1, undefined);
  t.equal(loose.a1?.code, Code.Unschedulable);
  // a pod its own selector does not match adds nothing to the skew
  const other = filterAll(plugin, snapshot, spreadPod('other', [constraint(ZONE, 2)], { labels: { app: 'other' } }));
  t.equal(other.a1, undefined);
});

t.test('filter: a node without the topology key is unresolvable', async (t) => {
  const { plugin, snapshot } = setup([node('a1', 'a'), makeNode('bare')], []);
  const r = filterAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 1)]));
  t.equal(r.bare?.code, Code.UnschedulableAndUnresolvable);
  t.same(r.bare?.reasons, ["node(s) didn't match pod topology spread constraints (missing required label)"]);
});

t.test('filter: only nodes passing the node selector make domains; pods of other namespaces and terminating pods do not count', async (t) => {
  const nodes = [node('a1', 'a', { disk: 'ssd' }), node('b1', 'b', { disk: 'ssd' }), node('c1', 'c')];
  const terminating = web('t', 'b1');
  terminating.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
  const pods = [web('w1', 'a1'), makePod('o', { node: 'b1', namespace: 'other', labels: { app: 'web' } }), terminating];
  const { plugin, snapshot } = setup(nodes, pods);
  // without the selector, empty zone c is the minimum (0): a (1) + 1 > 1
  t.equal(filterAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 1)])).a1?.code, Code.Unschedulable);
  // with it, zone c does not count; b counts 0 (other namespace, terminating): a fits only if 1+1-0 <= 1: no; b fits
  const r = filterAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 1)], { spec: { nodeSelector: { disk: 'ssd' } } }));
  t.equal(r.a1?.code, Code.Unschedulable);
  t.equal(r.b1, undefined);
  // required node affinity restricts the same way: only zone a is eligible, so its minimum is 1
  const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: ZONE, operator: 'In', values: ['a'] }] }] } } };
  const onlyA = filterAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 1)], { spec: { affinity } }));
  t.equal(onlyA.a1, undefined);
});

t.test('filter: ScheduleAnyway constraints do not filter', async (t) => {
  const { plugin, snapshot } = setup([node('a1', 'a'), node('b1', 'b')], [web('w1', 'a1'), web('w2', 'a1')]);
  t.equal(filterAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 1, 'ScheduleAnyway')])).a1, undefined);
});

t.test('preFilter extensions update counts and critical paths', async (t) => {
  const { plugin, snapshot } = setup([node('a1', 'a'), node('b1', 'b')], [web('w1', 'a1')]);
  const pod = spreadPod('new', [constraint(ZONE, 1)]);
  const state = new CycleState();
  plugin.preFilter!(state, pod);
  const [a1, b1] = snapshot.list();
  t.equal(plugin.filter!(state, pod, a1)?.code, Code.Unschedulable);
  const copy = state.clone();
  plugin.preFilterExtensions!()!.removePod(copy, pod, new PodInfo(a1.pods[0].pod), a1);
  t.equal(plugin.filter!(copy, pod, a1), undefined, 'fits once the victim is gone');
  t.equal(plugin.filter!(state, pod, a1)?.code, Code.Unschedulable, 'the original state is untouched');
  plugin.preFilterExtensions!()!.addPod(state, pod, new PodInfo(web('w9', 'b1')), b1);
  plugin.preFilterExtensions!()!.addPod(state, pod, new PodInfo(web('w10', 'b1')), b1);
  t.equal(plugin.filter!(state, pod, a1), undefined, 'b now holds more');
  t.equal(plugin.filter!(state, pod, b1)?.code, Code.Unschedulable);
  // pods of another namespace change nothing
  plugin.preFilterExtensions!()!.addPod(copy, pod, new PodInfo(makePod('x', { namespace: 'other', node: 'a1', labels: { app: 'web' } })), a1);
  t.equal(plugin.filter!(copy, pod, a1), undefined);
});

t.test('filter without preFilter is an error', async (t) => {
  const { plugin, snapshot } = setup([node('a1', 'a')], []);
  t.equal(plugin.filter!(new CycleState(), makePod('p'), snapshot.list()[0])?.message, 'error reading "PreFilterPodTopologySpread" from cycleState: not found');
});

t.test('score: fewer matching pods in the domain score higher, weighted by domain count', async (t) => {
  const nodes = [node('a1', 'a'), node('a2', 'a'), node('b1', 'b'), makeNode('bare')];
  const { plugin, snapshot } = setup(nodes, [web('w1', 'a1'), web('w2', 'a2'), web('w3', 'b1')]);
  const pod = spreadPod('new', [constraint(ZONE, 1, 'ScheduleAnyway')]);
  // weight ln(2+2); a: 2*1.386 = 2.77 -> 2, b: 1.386 -> 1; normalized 100*(2+1-s)/2
  t.same(scoreAll(plugin, snapshot, pod), { a1: 50, a2: 50, b1: 100, bare: 0 });
  // maxSkew 3 adds 2 to every score: a: 4, b: 3 -> 100*(4+3-4)/4 = 75, b 100
  t.same(scoreAll(plugin, snapshot, spreadPod('new', [constraint(ZONE, 3, 'ScheduleAnyway')])), { a1: 75, a2: 75, b1: 100, bare: 0 });
});

t.test('score: hostname constraints count the node itself', async (t) => {
  const nodes = [node('a1', 'a'), node('a2', 'a'), node('a3', 'a')];
  const { plugin, snapshot } = setup(nodes, [web('w1', 'a1'), web('w2', 'a1'), web('w3', 'a2')]);
  // weight ln(3+2)=1.609: a1 3.2 -> 3, a2 1.6 -> 1, a3 0 ; max 3 min 0
  t.same(scoreAll(plugin, snapshot, spreadPod('new', [constraint(HOST, 1, 'ScheduleAnyway')])), { a1: 0, a2: 66, a3: 100 });
});

t.test('score: no soft constraints gives every node the top score', async (t) => {
  const { plugin, snapshot } = setup([node('a1', 'a'), node('b1', 'b')], [web('w1', 'a1')], { defaultingType: 'List' });
  t.same(scoreAll(plugin, snapshot, makePod('plain', { labels: { app: 'web' } })), { a1: 100, b1: 100 });
});

t.test('system default constraints spread the pods of a service while the gate is on', async (t) => {
  const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' } } };
  const nodes = [node('a1', 'a'), node('a2', 'a'), node('b1', 'b')];
  const pods = [web('w1', 'a1'), web('w2', 'a1'), web('w3', 'a1'), web('w4', 'a1'), web('w5', 'a2')];
  const objects = [{ ref: RESOURCES.services, items: [svc] }];
  const on = setup(nodes, pods, undefined, { objects });
  const scores = scoreAll(on.plugin, on.snapshot, makePod('new', { labels: { app: 'web' } }));
  t.ok(scores.b1 > scores.a2 && scores.a2 > scores.a1, `spreads by host and zone: ${JSON.stringify(scores)}`);
  // soft defaults never filter
  t.equal(filterAll(on.plugin, on.snapshot, makePod('new', { labels: { app: 'web' } })).a1, undefined);
  // a pod nothing selects gets no constraints
  t.same(scoreAll(on.plugin, on.snapshot, makePod('lonely', { labels: { app: 'lonely' } })), { a1: 100, a2: 100, b1: 100 });
  // gate off: no system defaults
  const off = setup(nodes, pods, undefined, { objects, gates: new FeatureGates({ DefaultPodTopologySpread: false }) });
  t.same(scoreAll(off.plugin, off.snapshot, makePod('new', { labels: { app: 'web' } })), { a1: 100, a2: 100, b1: 100 });
  // List with no constraints: none either
  const list = setup(nodes, pods, { defaultingType: 'List' }, { objects });
  t.same(scoreAll(list.plugin, list.snapshot, makePod('new', { labels: { app: 'web' } })), { a1: 100, a2: 100, b1: 100 });
});

t.test('args default constraints use the selector of replica sets selecting the pod, and may filter', async (t) => {
  const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } } } };
  const nodes = [node('a1', 'a'), node('b1', 'b')];
  const { plugin, snapshot } = setup(nodes, [web('w1', 'a1')], { defaultConstraints: [{ topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', maxSkew: 1 }] }, {
    objects: [{ ref: RESOURCES.replicaSets, items: [rs] }],
  });
  const r = filterAll(plugin, snapshot, makePod('new', { labels: { app: 'web' } }));
  t.equal(r.a1?.code, Code.Unschedulable);
  t.equal(r.b1, undefined);
  t.equal(filterAll(plugin, snapshot, makePod('new', { labels: { app: 'web' }, namespace: 'other' })).a1, undefined, 'no replica set selects it there');
});
