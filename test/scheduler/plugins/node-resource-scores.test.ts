/** The resource scores: least, most, balanced allocation and requested-to-capacity ratio, with kube 1.20's integer arithmetic. */
import t from 'tap';
import type { KubeObject } from '../../../src/client/types';
import { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type Plugin } from '../../../src/scheduler/framework/types';
import { newBalancedAllocation } from '../../../src/scheduler/plugins/node/balanced-allocation';
import { newLeastAllocated } from '../../../src/scheduler/plugins/node/least-allocated';
import { newMostAllocated } from '../../../src/scheduler/plugins/node/most-allocated';
import { podResourceRequest } from '../../../src/scheduler/plugins/node/resource-allocation';
import { brokenLinearFunction, newRequestedToCapacityRatio } from '../../../src/scheduler/plugins/node/requested-to-capacity-ratio';
import { fakeHandle, makeNode, makePod, Snapshot } from '../helpers';

const handle = () => fakeHandle(Snapshot.of([]));
const score = (p: Plugin, pod: KubeObject, info: NodeInfo) => p.score!(new CycleState(), pod, info);

// 4 cpu, 8Gi; the busy node runs a pod of 2 cpu and no memory request (counted as 200Mi by scores)
const empty = () => new NodeInfo(makeNode('empty', { cpu: '4', memory: '8Gi' }));
const busy = () => new NodeInfo(makeNode('busy', { cpu: '4', memory: '8Gi' }), [makePod('old', { node: 'busy', requests: [{ cpu: '2' }] })]);
const pod = makePod('p', { requests: [{ cpu: '1', memory: '2Gi' }] });

t.test('the pod request scores use: defaults for containers without cpu or memory, init max, overhead as whole units', async (t) => {
  t.equal(podResourceRequest(makePod('p'), 'cpu'), 100);
  t.equal(podResourceRequest(makePod('p'), 'memory'), 200 * 1024 * 1024);
  t.equal(podResourceRequest(makePod('p', { requests: [{ memory: '1' }, {}] }), 'cpu'), 200, 'each container without cpu counts 100m');
  t.equal(podResourceRequest(makePod('p', { requests: [{ cpu: '100m' }], initRequests: [{ cpu: '300m' }] }), 'cpu'), 300);
  t.equal(podResourceRequest(makePod('p', { requests: [{ cpu: '100m' }], spec: { overhead: { cpu: '250m' } } }), 'cpu'), 101, 'kube adds the overhead Value(), rounded up to a core');
  t.equal(podResourceRequest(makePod('p'), 'ephemeral-storage'), 0);
  t.equal(podResourceRequest(makePod('p', { requests: [{ 'example.com/gpu': '2' }] }), 'example.com/gpu'), 2);
});

t.test('NodeResourcesLeastAllocated', async (t) => {
  const p = newLeastAllocated(undefined, handle());
  t.equal(score(p, pod, empty()), 75, 'cpu (4-1)/4 and memory (8-2)/8');
  // cpu: (4000-3000)*100/4000 = 25; memory: (8192-2248)Mi*100/8192Mi = 72 (truncated); (25+72)/2 = 48
  t.equal(score(p, pod, busy()), 48);
  t.equal(score(p, makePod('big', { requests: [{ cpu: '5', memory: '2Gi' }] }), empty()), 37, 'over capacity scores 0 for that resource');
  const weighted = newLeastAllocated({ resources: [{ name: 'cpu', weight: 3 }, { name: 'memory', weight: 1 }] }, handle());
  t.equal(score(weighted, pod, busy()), 36, '(25*3 + 72) / 4');
  const gpu = newLeastAllocated({ resources: [{ name: 'cpu', weight: 1 }, { name: 'example.com/gpu', weight: 1 }] }, handle());
  t.equal(score(gpu, pod, empty()), 37, 'a resource the node lacks scores 0 but keeps its weight');
  t.equal((score(p, pod, new NodeInfo()) as Status).code, Code.Error);
  t.throws(() => newLeastAllocated({ resources: [{ name: 'cpu', weight: 0 }] }, handle()), { message: 'resource Weight of cpu should be a positive value, got 0' });
  t.throws(() => newLeastAllocated({ resources: [{ name: 'memory', weight: 101 }] }, handle()), { message: 'resource Weight of memory should be less than 100, got 101' });
});

t.test('NodeResourcesMostAllocated', async (t) => {
  const p = newMostAllocated(undefined, handle());
  t.equal(score(p, pod, empty()), 25);
  // cpu 3000*100/4000 = 75; memory 2248Mi*100/8192Mi = 27; (75+27)/2 = 51
  t.equal(score(p, pod, busy()), 51);
  t.equal(score(p, makePod('big', { requests: [{ cpu: '5', memory: '2Gi' }] }), empty()), 12, 'over capacity scores 0 for that resource');
  t.throws(() => newMostAllocated({ resources: [{ name: 'cpu', weight: -1 }] }, handle()), { message: 'resource Weight of cpu should be a positive value, got -1' });
});

t.test('NodeResourcesBalancedAllocation', async (t) => {
  const p = newBalancedAllocation(undefined, handle());
  t.equal(score(p, pod, empty()), 100, 'a quarter of each');
  // cpu 0.75, memory 2248/8192 = 0.2744: (1 - 0.4756) * 100 = 52
  t.equal(score(p, pod, busy()), 52);
  t.equal(score(p, makePod('full', { requests: [{ cpu: '4', memory: '1Gi' }] }), empty()), 0, 'a full resource scores 0');
  t.equal(score(p, pod, new NodeInfo(makeNode('nocpu', { cpu: '0', memory: '8Gi' }))), 0, 'nothing allocatable counts as full');
});

t.test('RequestedToCapacityRatio', async (t) => {
  const binPacking = { shape: [{ utilization: 0, score: 0 }, { utilization: 100, score: 10 }] };
  t.equal(score(newRequestedToCapacityRatio(binPacking, handle()), pod, empty()), 25, 'cpu and memory by default');
  const weighted = newRequestedToCapacityRatio({ ...binPacking, resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 2 }] }, handle());
  t.equal(score(weighted, makePod('p', { requests: [{ cpu: '1', memory: '4Gi' }] }), empty()), 42, '(25 + 50*2) / 3 rounded');
  const spreading = { shape: [{ utilization: 0, score: 10 }, { utilization: 100, score: 0 }], resources: [{ name: 'cpu', weight: 1 }, { name: 'example.com/gpu', weight: 1 }] };
  t.equal(score(newRequestedToCapacityRatio(spreading, handle()), pod, empty()), 75, 'a resource scoring 0 leaves the average');
  t.equal(score(newRequestedToCapacityRatio({ ...binPacking, resources: [{ name: 'example.com/gpu', weight: 0 }] }, handle()), pod, empty()), 100, 'nothing allocatable is full utilization; weight 0 defaults to 1');
  const f = brokenLinearFunction([
    { utilization: 10, score: 10 },
    { utilization: 20, score: 50 },
    { utilization: 30, score: 21 },
  ]);
  t.same([f(0), f(10), f(15), f(25), f(27), f(100)], [10, 10, 30, 36, 30, 21], 'flat outside, linear between, truncated toward zero');
  const bad = (shape: unknown[], resources?: unknown[]) => () => newRequestedToCapacityRatio({ shape, resources }, handle());
  t.throws(bad([]), { message: 'at least one point must be specified' });
  t.throws(() => newRequestedToCapacityRatio(undefined, handle()), { message: 'at least one point must be specified' });
  t.throws(bad([{ utilization: 10, score: 1 }, { utilization: 10, score: 2 }]), { message: 'utilization values must be sorted. Utilization[0]==10 >= Utilization[1]==10' });
  t.throws(bad([{ utilization: -1, score: 1 }]), { message: 'utilization values must not be less than 0. Utilization[0]==-1' });
  t.throws(bad([{ utilization: 101, score: 1 }]), { message: 'utilization values must not be greater than 100. Utilization[0]==101' });
  t.throws(bad([{ utilization: 1, score: -1 }]), { message: 'score values must not be less than 0. Score[0]==-1' });
  t.throws(bad([{ utilization: 1, score: 11 }]), { message: 'score values must not be greater than 10. Score[0]==11' });
  t.throws(bad([{ utilization: 1, score: 1 }], [{ name: 'cpu', weight: -2 }]), { message: 'resource cpu weight -2 must not be less than 1' });
});
