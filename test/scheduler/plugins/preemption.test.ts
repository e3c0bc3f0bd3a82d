import t from 'tap';
import { RESOURCES } from '../../../src/client/resources';
import type { EventRecorder } from '../../../src/client/events';
import type { RestClient } from '../../../src/client/rest-client';
import type { KubeObject } from '../../../src/client/types';
import type { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { podFitRequest } from '../../../src/scheduler/framework/resource';
import { Code, type Status, unresolvable, unschedulable } from '../../../src/scheduler/framework/status';
import { CycleState, type FrameworkHandle, type StateData } from '../../../src/scheduler/framework/types';
import { apiActions } from '../../../src/scheduler/plugins/preemption/actions';
import { PREEMPTION_PLUGINS, newDefaultPreemption, type PreemptionActions } from '../../../src/scheduler/plugins/preemption';
import { Snapshot, fakeHandle, makeNode, makePod } from '../helpers';

const cpuFit = (_s: CycleState, pod: KubeObject, n: NodeInfo) =>
  n.requested.milliCPU + podFitRequest(pod).milliCPU > n.allocatable.milliCPU ? unschedulable('Insufficient cpu') : undefined;

const podOn = (name: string, node: string, priority: number, cpu: string, extra: { labels?: Record<string, string>; terminating?: boolean } = {}) => {
  const p = makePod(name, { node, priority, requests: [{ cpu }], labels: extra.labels });
  if (extra.terminating) p.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
  return p;
};
const preemptor = (extra: { priority?: number; cpu?: string; nominated?: string; policy?: string } = {}) => {
  const p = makePod('pre', { priority: extra.priority ?? 100, requests: [{ cpu: extra.cpu ?? '2' }], spec: extra.policy ? { preemptionPolicy: extra.policy } : {} });
  if (extra.nominated) (p.status as Record<string, unknown>).nominatedNodeName = extra.nominated;
  return p;
};

interface Recorded {
  deleted: string[];
  cleared: string[];
  events: Array<{ name?: string; type: string; reason: string; message: string }>;
}

function setup(nodes: KubeObject[], pods: KubeObject[], o: { args?: unknown; offset?: number; pdbs?: KubeObject[]; podsInLister?: KubeObject[]; failDelete?: boolean; tweak?: (h: FrameworkHandle) => FrameworkHandle } = {}) {
  const snap = Snapshot.of(nodes, pods);
  const base = fakeHandle(snap, {
    filter: cpuFit,
    objects: [
      { ref: RESOURCES.podDisruptionBudgets, items: o.pdbs ?? [] },
      { ref: RESOURCES.pods, items: o.podsInLister ?? [] },
    ],
  });
  const rec: Recorded = { deleted: [], cleared: [], events: [] };
  const recorder = { event: (obj: KubeObject, type: string, reason: string, message: string) => rec.events.push({ name: obj.metadata?.name, type, reason, message }) } as unknown as EventRecorder;
  let handle: FrameworkHandle = { ...base, recorder };
  if (o.tweak) handle = o.tweak(handle);
  const actions: PreemptionActions = {
    deletePod: async (p) => {
      if (o.failDelete) throw new Error(`pods "${p.metadata?.name}" is forbidden`);
      rec.deleted.push(p.metadata!.name!);
    },
    clearNominatedNodeName: async (p) => void rec.cleared.push(p.metadata!.name!),
  };
  const plugin = newDefaultPreemption(o.args, handle, { actions, randomInt: () => o.offset ?? 0 });
  return { plugin, rec, nominator: base.nominator, snap };
}
/** every node failed with Insufficient cpu unless said otherwise */
const failed = (names: string[], overrides: Record<string, Status> = {}) => new Map(names.map((n) => [n, overrides[n] ?? unschedulable('Insufficient cpu')]));

t.test('preempts the lowest-priority pods and nominates the node', async (t) => {
  const { plugin, rec } = setup([makeNode('n1', { cpu: '2' })], [podOn('low', 'n1', 1, '2'), podOn('sys', 'n1', 1000, '0')]);
  const out = await plugin.postFilter(new CycleState(), preemptor(), failed(['n1']));
  t.same(out, { result: { nominatedNodeName: 'n1' }, status: undefined });
  t.same(rec.deleted, ['low']);
  t.same(rec.events, [{ name: 'low', type: 'Normal', reason: 'Preempted', message: 'Preempted by default/pre on node n1' }]);
});

t.test('chooses the node with the least important victims', async (t) => {
  const { plugin, rec } = setup([makeNode('n1', { cpu: '2' }), makeNode('n2', { cpu: '2' })], [podOn('mid', 'n1', 50, '2'), podOn('low', 'n2', 10, '2')]);
  const out = await plugin.postFilter(new CycleState(), preemptor(), failed(['n1', 'n2']));
  t.equal(out.result?.nominatedNodeName, 'n2');
  t.same(rec.deleted, ['low']);
});

t.test('preemptionPolicy Never: not eligible', async (t) => {
  const { plugin, rec } = setup([makeNode('n1', { cpu: '2' })], [podOn('low', 'n1', 1, '2')]);
  const out = await plugin.postFilter(new CycleState(), preemptor({ policy: 'Never' }), failed(['n1']));
  t.equal(out.result, undefined);
  t.equal(out.status?.code, Code.Unschedulable);
  t.same(rec.deleted, []);
  t.equal((await plugin.postFilter(new CycleState(), preemptor({ policy: 'PreemptLowerPriority' }), failed(['n1']))).result?.nominatedNodeName, 'n1');
});

t.test('the pod lister newer copy decides eligibility', async (t) => {
  const newer = preemptor({ policy: 'Never' });
  const { plugin, rec } = setup([makeNode('n1', { cpu: '2' })], [podOn('low', 'n1', 1, '2')], { podsInLister: [newer] });
  const out = await plugin.postFilter(new CycleState(), preemptor(), failed(['n1']));
  t.equal(out.status?.code, Code.Unschedulable);
  t.same(rec.deleted, []);
});

t.test('waits while lower-priority victims still terminate on its nominated node', async (t) => {
  const nodes = [makeNode('n1', { cpu: '2' }), makeNode('n2', { cpu: '2' })];
  const pods = [podOn('dying', 'n1', 1, '2', { terminating: true }), podOn('low', 'n2', 1, '2')];
  const waiting = setup(nodes, pods);
  const out = await waiting.plugin.postFilter(new CycleState(), preemptor({ nominated: 'n1' }), failed(['n1', 'n2']));
  t.equal(out.status?.code, Code.Unschedulable);
  t.same(waiting.rec.deleted, []);

  const higher = setup(nodes, [podOn('dying', 'n1', 500, '2', { terminating: true }), podOn('low', 'n2', 1, '2')]);
  t.equal((await higher.plugin.postFilter(new CycleState(), preemptor({ nominated: 'n1' }), failed(['n1', 'n2']))).result?.nominatedNodeName, 'n2', 'a terminating pod of higher priority is no reason to wait');

  const unresolvableNode = setup(nodes, pods);
  const st = failed(['n1', 'n2'], { n1: unresolvable("node(s) didn't match node selector") });
  t.equal((await unresolvableNode.plugin.postFilter(new CycleState(), preemptor({ nominated: 'n1' }), st)).result?.nominatedNodeName, 'n2', 'the nominated node became unresolvable: preempt elsewhere');
});

t.test('nodes the filters call unresolvable are not tried; none left clears the nomination', async (t) => {
  const { plugin, rec } = setup([makeNode('n1', { cpu: '2' })], [podOn('low', 'n1', 1, '2')]);
  const out = await plugin.postFilter(new CycleState(), preemptor({ nominated: 'n1' }), failed(['n1'], { n1: unresolvable("node(s) had taint {a: b}, that the pod didn't tolerate") }));
  t.equal(out.status?.code, Code.Unschedulable);
  t.same(out.status?.reasons, []);
  t.same(rec.deleted, []);
  t.same(rec.cleared, ['pre']);
});

t.test('no fitting node even without victims: Unschedulable, nothing deleted', async (t) => {
  const { plugin, rec } = setup([makeNode('n1', { cpu: '1' })], [podOn('low', 'n1', 1, '1')]);
  const out = await plugin.postFilter(new CycleState(), preemptor({ cpu: '2' }), failed(['n1']));
  t.equal(out.status?.code, Code.Unschedulable);
  t.same(rec.deleted, []);
  t.same(rec.cleared, [], 'a pod without a nomination needs no clearing');
});

t.test('no nodes: an error', async (t) => {
  const { plugin } = setup([], []);
  const out = await plugin.postFilter(new CycleState(), preemptor(), new Map());
  t.equal(out.status?.code, Code.Error);
  t.equal(out.status?.message, 'no nodes available to schedule pods');
});

t.test('a failed deletion is an error and stops there', async (t) => {
  const { plugin, rec } = setup([makeNode('n1', { cpu: '2' })], [podOn('a', 'n1', 1, '1'), podOn('b', 'n1', 1, '1')], { failDelete: true });
  const out = await plugin.postFilter(new CycleState(), preemptor(), failed(['n1']));
  t.equal(out.status?.code, Code.Error);
  t.equal(out.status?.message, 'pods "a" is forbidden');
  t.same(rec.events, []);
});

t.test('lower-priority pods nominated to the node lose their nomination', async (t) => {
  const { plugin, rec, nominator } = setup([makeNode('n1', { cpu: '2' })], [podOn('low', 'n1', 1, '2')]);
  const nominee = (name: string, priority: number, withStatus = true) => {
    const p = makePod(name, { priority });
    if (withStatus) (p.status as Record<string, unknown>).nominatedNodeName = 'n1';
    nominator.addNominatedPod(p, 'n1');
  };
  nominee('lesser', 10);
  nominee('greater', 1000);
  nominee('equal', 100);
  nominee('unrecorded', 10, false);
  const out = await plugin.postFilter(new CycleState(), preemptor(), failed(['n1']));
  t.equal(out.result?.nominatedNodeName, 'n1');
  t.same(rec.cleared, ['lesser']);
});

t.test('dry run starts at the random offset and stops at enough candidates', async (t) => {
  const nodes = ['n0', 'n1', 'n2', 'n3'].map((n) => makeNode(n, { cpu: '2' }));
  const pods = nodes.map((n) => podOn(`low-${n.metadata!.name}`, n.metadata!.name!, 1, '2'));
  const args = { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1 };
  for (const offset of [0, 2, 3]) {
    const { plugin } = setup(nodes, pods, { args, offset });
    t.equal((await plugin.postFilter(new CycleState(), preemptor(), failed(['n0', 'n1', 'n2', 'n3']))).result?.nominatedNodeName, `n${offset}`);
  }
  // with the defaults every node is a candidate and the ties go to the first tried
  const { plugin } = setup(nodes, pods, { offset: 1 });
  t.equal((await plugin.postFilter(new CycleState(), preemptor(), failed(['n0', 'n1', 'n2', 'n3']))).result?.nominatedNodeName, 'n1');
});

t.test('dry run goes on until one candidate violates no budget', async (t) => {
  const nodes = [makeNode('n0', { cpu: '2' }), makeNode('n1', { cpu: '2' })];
  const pods = [podOn('guarded', 'n0', 1, '2', { labels: { app: 'x' } }), podOn('free', 'n1', 50, '2')];
  const pdbs = [{ apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget', metadata: { name: 'x', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'x' } } }, status: { disruptionsAllowed: 0 } }];
  const { plugin, rec } = setup(nodes, pods, { args: { minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 1 }, pdbs });
  const out = await plugin.postFilter(new CycleState(), preemptor(), failed(['n0', 'n1']));
  t.equal(out.result?.nominatedNodeName, 'n1', 'fewer PDB violations beats lower victim priority');
  t.same(rec.deleted, ['free']);
});

t.test('nodes without lower-priority pods are not dry-run', async (t) => {
  // the test filter would accept n0 (it holds only a more important pod), but the cycle's filters rejected it
  const nodes = [makeNode('n0', { cpu: '4' }), makeNode('n1', { cpu: '2' })];
  const pods = [podOn('important', 'n0', 500, '1'), podOn('low', 'n1', 1, '2')];
  const { plugin, rec } = setup(nodes, pods);
  t.equal((await plugin.postFilter(new CycleState(), preemptor(), failed(['n0', 'n1']))).result?.nominatedNodeName, 'n1');
  t.same(rec.deleted, ['low']);
});

t.test('each node is tried on clones: the snapshot and the cycle state stay as they were', async (t) => {
  class Count implements StateData {
    constructor(public n = 0) {}
    clone() {
      return new Count(this.n);
    }
  }
  const nodes = [makeNode('n1', { cpu: '2' })];
  const { plugin, snap } = setup(nodes, [podOn('low', 'n1', 1, '2')], {
    tweak: (h) => ({ ...h, runPreFilterExtensionRemovePod: (s) => void (s.read<Count>('count')!.n += 1) }),
  });
  const state = new CycleState();
  state.write('count', new Count());
  const out = await plugin.postFilter(state, preemptor(), failed(['n1']));
  t.equal(out.result?.nominatedNodeName, 'n1');
  t.equal(state.read<Count>('count')!.n, 0);
  t.same(snap.get('n1')!.pods.map((p) => p.pod.metadata?.name), ['low']);
  t.equal(snap.get('n1')!.requested.milliCPU, 2000);
});

t.test('registry and factory', async (t) => {
  t.same(Object.keys(PREEMPTION_PLUGINS), ['DefaultPreemption']);
  const handle = fakeHandle(Snapshot.of([]));
  const p = PREEMPTION_PLUGINS.DefaultPreemption(undefined, handle);
  t.equal(p.name, 'DefaultPreemption');
  t.ok(p.postFilter);
  t.throws(() => PREEMPTION_PLUGINS.DefaultPreemption({ minCandidateNodesPercentage: 101 }, handle), { message: 'minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]' });
});

t.test('API actions: delete the pod, patch the status subresource', async (t) => {
  const calls: unknown[][] = [];
  const client = {
    delete: async (...args: unknown[]) => void calls.push(['delete', ...args]),
    patch: async (...args: unknown[]) => void calls.push(['patch', ...args]),
  } as unknown as RestClient;
  const actions = apiActions(client);
  const victim = makePod('v', { namespace: 'ns' });
  await actions.deletePod(victim);
  await actions.clearNominatedNodeName(victim);
  t.same(calls, [
    ['delete', RESOURCES.pods, 'ns', 'v'],
    ['patch', RESOURCES.pods, 'ns', 'v', 'strategic', { status: { nominatedNodeName: null } }, { subresource: 'status' }],
  ]);
});
