import t from 'tap';
import type { KubeObject } from '../../../src/client/types';
import { PodInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type NodeScore, type Plugin } from '../../../src/scheduler/framework/types';
import { newInterPodAffinity } from '../../../src/scheduler/plugins/pod/inter-pod-affinity';
import { POD_PLUGINS } from '../../../src/scheduler/plugins/pod';
import { Snapshot, fakeHandle, makeNode, makePod } from '../helpers';

const zone = (name: string, z: string) => makeNode(name, { labels: { zone: z } });
const term = (labels: Record<string, string>, topologyKey = 'zone') => ({ labelSelector: { matchLabels: labels }, topologyKey });
const withAffinity = (name: string, affinity: Record<string, unknown>, extra: Parameters<typeof makePod>[1] = {}) =>
  makePod(name, { ...extra, spec: { affinity } });

function setup(nodes: KubeObject[], pods: KubeObject[], args?: unknown): { plugin: Plugin; snapshot: Snapshot } {
  const snapshot = Snapshot.of(nodes, pods);
  return { plugin: newInterPodAffinity(args, fakeHandle(snapshot)), snapshot };
}

/** the filter's answer on every node, by name (undefined: fits) */
function filterAll(plugin: Plugin, snapshot: Snapshot, pod: KubeObject): Record<string, Status | undefined> {
  const state = new CycleState();
  t.equal(plugin.preFilter!(state, pod), undefined);
  return Object.fromEntries(snapshot.list().map((n) => [n.name, plugin.filter!(state, pod, n)]));
}

function scoreAll(plugin: Plugin, snapshot: Snapshot, pod: KubeObject): Record<string, number> {
  const state = new CycleState();
  t.equal(plugin.preScore!(state, pod, snapshot.list()), undefined);
  const scores: NodeScore[] = snapshot.list().map((n) => ({ name: n.name, score: plugin.score!(state, pod, n) as number }));
  t.equal(plugin.normalizeScore!(state, pod, scores), undefined);
  return Object.fromEntries(scores.map((s) => [s.name, s.score]));
}

t.test('the index registers it under its kube name', async (t) => {
  t.equal(POD_PLUGINS.InterPodAffinity, newInterPodAffinity);
  t.equal(newInterPodAffinity(undefined, fakeHandle(Snapshot.of([]))).name, 'InterPodAffinity');
});

t.test('args: hardPodAffinityWeight defaults to 1 and must be within 0..100', async (t) => {
  const snap = Snapshot.of([]);
  t.doesNotThrow(() => newInterPodAffinity({ hardPodAffinityWeight: 0 }, fakeHandle(snap)));
  t.throws(() => newInterPodAffinity({ hardPodAffinityWeight: 101 }, fakeHandle(snap)), { message: 'hardPodAffinityWeight: Invalid value: 101: not in valid range [0-100]' });
  t.throws(() => newInterPodAffinity({ hardPodAffinityWeight: -1 }, fakeHandle(snap)), { message: 'hardPodAffinityWeight: Invalid value: -1: not in valid range [0-100]' });
});

t.test('required affinity: only zones holding a matching pod fit, and the failure is unresolvable', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a'), zone('a2', 'a'), zone('b1', 'b')], [makePod('db', { node: 'a1', labels: { app: 'db' } })]);
  const pod = withAffinity('web', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' })] } });
  const r = filterAll(plugin, snapshot, pod);
  t.equal(r.a1, undefined);
  t.equal(r.a2, undefined, 'same zone as the db pod');
  t.equal(r.b1?.code, Code.UnschedulableAndUnresolvable);
  t.same(r.b1?.reasons, ["node(s) didn't match pod affinity/anti-affinity", "node(s) didn't match pod affinity rules"]);
});

t.test('required affinity: a node without the topology key never fits', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a'), makeNode('bare')], [makePod('db', { node: 'a1', labels: { app: 'db' } })]);
  const pod = withAffinity('web', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' })] } });
  t.equal(filterAll(plugin, snapshot, pod).bare?.code, Code.UnschedulableAndUnresolvable);
});

t.test('required affinity to itself: the first pod of the group may go anywhere', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a'), zone('b1', 'b')], []);
  const self = withAffinity('web-0', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, { labels: { app: 'web' } });
  const r = filterAll(plugin, snapshot, self);
  t.equal(r.a1, undefined);
  t.equal(r.b1, undefined);
  // a pod that does not match its own term gets no such pass
  const other = withAffinity('x', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, { labels: { app: 'x' } });
  t.equal(filterAll(plugin, snapshot, other).a1?.code, Code.UnschedulableAndUnresolvable);
});

t.test('required affinity: every term must be matched by one pod', async (t) => {
  const { plugin, snapshot } = setup(
    [zone('a1', 'a'), zone('b1', 'b')],
    [makePod('db', { node: 'a1', labels: { app: 'db' } }), makePod('cache', { node: 'b1', labels: { app: 'cache', tier: 'x' } })],
  );
  const pod = withAffinity('web', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'db' }), term({ app: 'cache' })] } });
  const r = filterAll(plugin, snapshot, pod);
  t.equal(r.a1?.code, Code.UnschedulableAndUnresolvable);
  t.equal(r.b1?.code, Code.UnschedulableAndUnresolvable);
});

t.test('required anti-affinity of the incoming pod', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a'), zone('b1', 'b')], [makePod('web-1', { node: 'a1', labels: { app: 'web' } })]);
  const pod = withAffinity('web-2', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, { labels: { app: 'web' } });
  const r = filterAll(plugin, snapshot, pod);
  t.equal(r.a1?.code, Code.Unschedulable);
  t.same(r.a1?.reasons, ["node(s) didn't match pod affinity/anti-affinity", "node(s) didn't match pod anti-affinity rules"]);
  t.equal(r.b1, undefined);
});

t.test('existing pods anti-affinity: the incoming pod may not join their topology', async (t) => {
  const lonely = withAffinity('lonely', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, { node: 'a1' });
  const { plugin, snapshot } = setup([zone('a1', 'a'), zone('a2', 'a'), zone('b1', 'b')], [lonely]);
  const r = filterAll(plugin, snapshot, makePod('web', { labels: { app: 'web' } }));
  t.equal(r.a2?.code, Code.Unschedulable);
  t.same(r.a2?.reasons, ["node(s) didn't match pod affinity/anti-affinity", "node(s) didn't satisfy existing pods anti-affinity rules"]);
  t.equal(r.b1, undefined);
  t.equal(filterAll(plugin, snapshot, makePod('other', { labels: { app: 'other' } })).a2, undefined, 'a pod the term does not select fits');
  t.equal(filterAll(plugin, snapshot, makePod('web', { namespace: 'elsewhere', labels: { app: 'web' } })).a2, undefined, 'terms look in their own namespace');
});

t.test('filter without preFilter is an error', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a')], []);
  const s = plugin.filter!(new CycleState(), makePod('p'), snapshot.list()[0]);
  t.equal(s?.code, Code.Error);
  t.equal(s?.message, 'error reading "PreFilterInterPodAffinity" from cycleState: not found');
});

t.test('preFilter extensions: adding and removing pods changes the counts (preemption)', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a'), zone('b1', 'b')], [makePod('web-1', { node: 'a1', labels: { app: 'web' } })]);
  const pod = withAffinity('web-2', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, { labels: { app: 'web' } });
  const state = new CycleState();
  plugin.preFilter!(state, pod);
  const [a1, b1] = snapshot.list();
  const victim = new PodInfo(a1.pods[0].pod);
  t.equal(plugin.preFilterExtensions!()!.removePod(state, pod, victim, a1), undefined);
  t.equal(plugin.filter!(state, pod, a1), undefined, 'fits once the victim is gone');
  plugin.preFilterExtensions!()!.addPod(state, pod, new PodInfo(makePod('web-3', { node: 'b1', labels: { app: 'web' } })), b1);
  t.equal(plugin.filter!(state, pod, b1)?.code, Code.Unschedulable, 'an added pod blocks its zone');
  // an added pod whose own anti-affinity selects the incoming pod blocks too
  const state2 = new CycleState();
  plugin.preFilter!(state2, makePod('plain', { labels: { app: 'plain' } }));
  const hater = withAffinity('hater', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'plain' })] } }, { node: 'b1' });
  plugin.preFilterExtensions!()!.addPod(state2, makePod('plain'), new PodInfo(hater), b1);
  t.equal(plugin.filter!(state2, makePod('plain', { labels: { app: 'plain' } }), b1)?.code, Code.Unschedulable);
  // clones are independent
  const copy = state2.clone();
  plugin.preFilterExtensions!()!.removePod(copy, makePod('plain'), new PodInfo(hater), b1);
  t.equal(plugin.filter!(copy, makePod('plain', { labels: { app: 'plain' } }), b1), undefined);
  t.equal(plugin.filter!(state2, makePod('plain', { labels: { app: 'plain' } }), b1)?.code, Code.Unschedulable);
});

t.test('score: preferred affinity and anti-affinity of the incoming pod', async (t) => {
  const { plugin, snapshot } = setup(
    [zone('a1', 'a'), zone('b1', 'b'), zone('c1', 'c')],
    [makePod('db', { node: 'a1', labels: { app: 'db' } }), makePod('noisy', { node: 'c1', labels: { app: 'noisy' } })],
  );
  const pod = withAffinity('web', {
    podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: term({ app: 'db' }) }] },
    podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, podAffinityTerm: term({ app: 'noisy' }) }] },
  });
  // raw: a=10, b=0, c=-5 -> normalized over [-5, 10]
  t.same(scoreAll(plugin, snapshot, pod), { a1: 100, b1: 33, c1: 0 });
});

t.test('score: existing pods required affinity weighs hardPodAffinityWeight, their preferred terms their weight', async (t) => {
  const needsWeb = withAffinity('needs-web', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, { node: 'a1' });
  const likesWeb = withAffinity('likes-web', { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 3, podAffinityTerm: term({ app: 'web' }) }] } }, { node: 'b1' });
  const hatesWeb = withAffinity('hates-web', { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 4, podAffinityTerm: term({ app: 'web' }) }] } }, { node: 'c1' });
  const nodes = [zone('a1', 'a'), zone('b1', 'b'), zone('c1', 'c')];
  const web = makePod('web', { labels: { app: 'web' } });
  // weight 1: a=1, b=3, c=-4
  t.same(scoreAll(setup(nodes, [needsWeb, likesWeb, hatesWeb]).plugin, Snapshot.of(nodes, [needsWeb, likesWeb, hatesWeb]), web), { a1: 71, b1: 100, c1: 0 });
  // weight 10: a=10, b=3, c=-4
  const { plugin, snapshot } = setup(nodes, [needsWeb, likesWeb, hatesWeb], { hardPodAffinityWeight: 10 });
  t.same(scoreAll(plugin, snapshot, web), { a1: 100, b1: 50, c1: 0 });
  // weight 0 ignores required terms: a=0, b=3, c=-4
  const zero = setup(nodes, [needsWeb, likesWeb, hatesWeb], { hardPodAffinityWeight: 0 });
  t.same(scoreAll(zero.plugin, zero.snapshot, web), { a1: 57, b1: 100, c1: 0 });
});

t.test('score: nothing to weigh leaves every node at 0', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a'), zone('b1', 'b')], [makePod('x', { node: 'a1' })]);
  t.same(scoreAll(plugin, snapshot, makePod('web')), { a1: 0, b1: 0 });
});

t.test('results remembered per node follow pods added to the node', async (t) => {
  const nodes = [zone('a1', 'a'), zone('b1', 'b')];
  const { plugin, snapshot } = setup(nodes, [makePod('x', { node: 'a1' })]);
  const web = makePod('web', { labels: { app: 'web' } });
  t.equal(filterAll(plugin, snapshot, web).a1, undefined);
  const wantsWeb = { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 7, podAffinityTerm: term({ app: 'web' }) }] } };
  t.same(scoreAll(plugin, snapshot, web), { a1: 0, b1: 0 });
  // a pod hating web arrives on a1; another liking web on b1
  snapshot.get('a1')!.addPod(withAffinity('hater', { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [term({ app: 'web' })] } }, { node: 'a1' }));
  snapshot.get('b1')!.addPod(withAffinity('fan', wantsWeb, { node: 'b1' }));
  snapshot.rebuildLists();
  t.equal(filterAll(plugin, snapshot, web).a1?.code, Code.Unschedulable);
  t.same(scoreAll(plugin, snapshot, web), { a1: 0, b1: 100 });
  // the incoming pod's own terms see new pods too
  const needsFan = withAffinity('needs', { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { role: 'fan' } }, topologyKey: 'zone' }] } });
  t.equal(filterAll(plugin, snapshot, needsFan).b1?.code, Code.UnschedulableAndUnresolvable);
  snapshot.get('b1')!.addPod(makePod('fan2', { node: 'b1', labels: { role: 'fan' } }));
  t.equal(filterAll(plugin, snapshot, needsFan).b1, undefined);
  t.equal(filterAll(plugin, snapshot, needsFan).a1?.code, Code.UnschedulableAndUnresolvable);
});

t.test('a pod whose affinity selectors do not parse is unresolvable', async (t) => {
  const { plugin, snapshot } = setup([zone('a1', 'a')], []);
  const bad = withAffinity('bad', {
    podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['x'] }] }, topologyKey: 'zone' }] },
  });
  const s = plugin.preFilter!(new CycleState(), bad);
  t.equal(s?.code, Code.UnschedulableAndUnresolvable);
  t.equal(s?.message, 'parsing pod: requiredAntiAffinityTerms: "Near" is not a valid label selector operator');
  t.equal(plugin.preScore!(new CycleState(), bad, snapshot.list())?.code, Code.Error);
});
