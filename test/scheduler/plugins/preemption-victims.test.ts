import t from 'tap';
import { RESOURCES } from '../../../src/client/resources';
import type { KubeObject } from '../../../src/client/types';
import type { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { podFitRequest } from '../../../src/scheduler/framework/resource';
import { unschedulable, unresolvable } from '../../../src/scheduler/framework/status';
import { CycleState, type FrameworkHandle } from '../../../src/scheduler/framework/types';
import { budgetsOf, moreImportantPod, selectVictimsOnNode, splitByBudgetViolation } from '../../../src/scheduler/plugins/preemption/victims';
import { Snapshot, fakeHandle, makeNode, makePod } from '../helpers';

/** a resource-fit filter on CPU only */
const cpuFit = (_s: CycleState, pod: KubeObject, n: NodeInfo) =>
  n.requested.milliCPU + podFitRequest(pod).milliCPU > n.allocatable.milliCPU ? unschedulable('Insufficient cpu') : undefined;

const running = (name: string, priority: number, cpu: string, extra: { labels?: Record<string, string>; namespace?: string; startTime?: string } = {}) => {
  const p = makePod(name, { node: 'n1', priority, requests: [{ cpu }], labels: extra.labels, namespace: extra.namespace });
  if (extra.startTime) (p.status as Record<string, unknown>).startTime = extra.startTime;
  return p;
};
const pdb = (name: string, selector: unknown, disruptionsAllowed: number, extra: { namespace?: string; disruptedPods?: Record<string, string> } = {}): KubeObject => ({
  apiVersion: 'policy/v1beta1',
  kind: 'PodDisruptionBudget',
  metadata: { name, namespace: extra.namespace ?? 'default' },
  spec: { selector },
  status: { disruptionsAllowed, disruptedPods: extra.disruptedPods },
});

function setup(pods: KubeObject[], cpu = '4') {
  const snap = Snapshot.of([makeNode('n1', { cpu })], pods);
  const handle = fakeHandle(snap, { filter: cpuFit });
  return { handle, nodeInfo: snap.get('n1')!.clone() };
}
const names = (pods: readonly KubeObject[] | undefined) => pods?.map((p) => p.metadata?.name);

t.test('lower-priority pods go, most important reprieved first', async (t) => {
  const pods = [running('p1', 1, '1'), running('p2', 2, '1'), running('p3', 3, '2'), running('high', 10, '0')];
  const { handle, nodeInfo } = setup(pods);
  const v = selectVictimsOnNode(handle, new CycleState(), makePod('pre', { priority: 10, requests: [{ cpu: '2' }] }), nodeInfo, []);
  t.same(names(v?.pods), ['p2', 'p1']);
  t.equal(v?.numPDBViolations, 0);
  t.same(nodeInfo.pods.map((p) => p.pod.metadata?.name).sort(), ['high', 'p3'], 'the clone holds what stays');
});

t.test('pods of equal or higher priority are never victims', async (t) => {
  const { handle, nodeInfo } = setup([running('same', 5, '3'), running('low', 1, '1')]);
  t.equal(selectVictimsOnNode(handle, new CycleState(), makePod('pre', { priority: 5, requests: [{ cpu: '2' }] }), nodeInfo, []), undefined);
});

t.test('no victims needed: a candidate with none', async (t) => {
  const { handle, nodeInfo } = setup([running('low', 1, '1')]);
  t.same(selectVictimsOnNode(handle, new CycleState(), makePod('pre', { priority: 5, requests: [{ cpu: '1' }] }), nodeInfo, [])?.pods, []);
});

t.test('a filter failing after every removal: not a candidate', async (t) => {
  const { handle, nodeInfo } = setup([running('low', 1, '1')]);
  const h: FrameworkHandle = { ...handle, runFilterPluginsWithNominatedPods: () => unresolvable("node(s) didn't match node selector") };
  t.equal(selectVictimsOnNode(h, new CycleState(), makePod('pre', { priority: 5 }), nodeInfo, []), undefined);
});

t.test('a failing PreFilter extension: not a candidate', async (t) => {
  const { handle, nodeInfo } = setup([running('low', 1, '1')]);
  const h: FrameworkHandle = { ...handle, runPreFilterExtensionRemovePod: () => unschedulable('boom') };
  t.equal(selectVictimsOnNode(h, new CycleState(), makePod('pre', { priority: 5 }), nodeInfo, []), undefined);
  const h2: FrameworkHandle = { ...handle, runPreFilterExtensionAddPod: () => unschedulable('boom') };
  const { nodeInfo: n2 } = setup([running('low', 1, '1')]);
  t.equal(selectVictimsOnNode(h2, new CycleState(), makePod('pre', { priority: 5 }), n2, []), undefined);
});

t.test('the extensions see every removal and re-addition', async (t) => {
  const { handle, nodeInfo } = setup([running('a', 1, '2'), running('b', 2, '2')]);
  const seen: string[] = [];
  const h: FrameworkHandle = {
    ...handle,
    runPreFilterExtensionRemovePod: (_s, _p, pi) => void seen.push(`-${pi.pod.metadata?.name}`),
    runPreFilterExtensionAddPod: (_s, _p, pi) => void seen.push(`+${pi.pod.metadata?.name}`),
  };
  selectVictimsOnNode(h, new CycleState(), makePod('pre', { priority: 5, requests: [{ cpu: '2' }] }), nodeInfo, []);
  t.same(seen, ['-a', '-b', '+b', '+a', '-a']);
});

t.test('PDB-violating pods are reprieved before others', async (t) => {
  const pods = () => [running('a', 5, '2'), running('b', 1, '2', { labels: { app: 'x' } })];
  const pre = makePod('pre', { priority: 10, requests: [{ cpu: '2' }] });
  const plain = setup(pods());
  t.same(names(selectVictimsOnNode(plain.handle, new CycleState(), pre, plain.nodeInfo, [])?.pods), ['b']);
  const guarded = setup(pods());
  const v = selectVictimsOnNode(guarded.handle, new CycleState(), pre, guarded.nodeInfo, budgetsOf([pdb('x', { matchLabels: { app: 'x' } }, 0)]));
  t.same(names(v?.pods), ['a']);
  t.equal(v?.numPDBViolations, 0);
});

t.test('violating victims are counted, and victims end sorted by importance', async (t) => {
  const { handle, nodeInfo } = setup([running('a', 5, '2'), running('b', 1, '2', { labels: { app: 'x' } })]);
  const v = selectVictimsOnNode(handle, new CycleState(), makePod('pre', { priority: 10, requests: [{ cpu: '4' }] }), nodeInfo, budgetsOf([pdb('x', { matchLabels: { app: 'x' } }, 0)]));
  t.same(names(v?.pods), ['a', 'b']);
  t.equal(v?.numPDBViolations, 1);
});

t.test('budget split: each match uses one allowed disruption', async (t) => {
  const pods = [running('a', 1, '1', { labels: { app: 'x' } }), running('b', 1, '1', { labels: { app: 'x' } }), running('c', 1, '1')];
  const split = (pdbs: KubeObject[]) => {
    const r = splitByBudgetViolation(pods, (p) => p, budgetsOf(pdbs));
    return { violating: names(r.violating), nonViolating: names(r.nonViolating) };
  };
  t.same(split([pdb('x', { matchLabels: { app: 'x' } }, 1)]), { violating: ['b'], nonViolating: ['a', 'c'] });
  t.same(split([pdb('x', { matchLabels: { app: 'x' } }, 1, { disruptedPods: { a: '2026-01-01T00:00:00Z' } })]), { violating: [], nonViolating: ['a', 'b', 'c'] }, 'already disrupted pods use nothing');
  t.same(split([pdb('x', { matchLabels: { app: 'x' } }, 0, { namespace: 'other' })]), { violating: [], nonViolating: ['a', 'b', 'c'] }, 'other namespace');
  t.same(split([pdb('x', {}, 0)]), { violating: [], nonViolating: ['a', 'b', 'c'] }, 'an empty selector matches nothing');
  t.same(split([pdb('x', null, 0)]), { violating: [], nonViolating: ['a', 'b', 'c'] }, 'a null selector matches nothing');
  t.same(split([pdb('x', { matchExpressions: [{ key: 'app', operator: 'Bogus' }] }, 0)]), { violating: [], nonViolating: ['a', 'b', 'c'] }, 'an invalid selector is skipped');
  t.same(split([pdb('x', { matchExpressions: [{ key: 'app', operator: 'Exists' }] }, 0)]), { violating: ['a', 'b'], nonViolating: ['c'] });
});

t.test('importance: priority, then the longer running', async (t) => {
  const early = running('e', 1, '1', { startTime: '2026-01-01T00:00:00Z' });
  const late = running('l', 1, '1', { startTime: '2026-01-02T00:00:00Z' });
  t.ok(moreImportantPod(early, late));
  t.notOk(moreImportantPod(late, early));
  t.ok(moreImportantPod(running('h', 2, '1', { startTime: '2026-01-02T00:00:00Z' }), early));
  t.ok(moreImportantPod(early, running('unstarted', 1, '1')), 'a pod not started counts as starting now');
});

t.test('PDB listing comes from the lister in the plugin; budgetsOf reads status.disruptionsAllowed', async (t) => {
  const b = budgetsOf([pdb('x', { matchLabels: { app: 'x' } }, 3)]);
  t.equal(b[0].disruptionsAllowed, 3);
  t.equal(RESOURCES.podDisruptionBudgets.resource, 'poddisruptionbudgets');
});
