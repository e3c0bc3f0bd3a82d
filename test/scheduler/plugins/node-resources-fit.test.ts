/** NodeResourcesFit: every lacking resource in kube's order, init containers, overhead, ignored resources, args. */
import t from 'tap';
import type { KubeObject } from '../../../src/client/types';
import { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState } from '../../../src/scheduler/framework/types';
import { insufficientResources, newNodeResourcesFit } from '../../../src/scheduler/plugins/node/node-resources-fit';
import { fakeHandle, makeNode, makePod, Snapshot } from '../helpers';

const handle = () => fakeHandle(Snapshot.of([]));
const fit = (args?: unknown) => newNodeResourcesFit(args, handle());

function run(pod: KubeObject, info: NodeInfo, args?: unknown): Status | undefined {
  const p = fit(args);
  const state = new CycleState();
  t.equal(p.preFilter!(state, pod), undefined);
  return p.filter!(state, pod, info) as Status | undefined;
}

t.test('a pod fits when its requests fit beside the node pods', async (t) => {
  const node = makeNode('n1', { cpu: '4', memory: '8Gi', pods: 3 });
  const info = new NodeInfo(node, [makePod('old', { node: 'n1', requests: [{ cpu: '3', memory: '4Gi' }] })]);
  t.equal(run(makePod('p', { requests: [{ cpu: '1', memory: '4Gi' }] }), info), undefined, 'exactly filling the node fits');
  const s = run(makePod('p', { requests: [{ cpu: '1001m' }] }), info)!;
  t.equal(s.code, Code.Unschedulable);
  t.same(s.reasons, ['Insufficient cpu']);
  t.same(run(makePod('p', { requests: [{ memory: '5Gi' }] }), info)!.reasons, ['Insufficient memory']);
  t.same(run(makePod('p', { requests: [{ 'ephemeral-storage': '1Gi' }] }), info)!.reasons, ['Insufficient ephemeral-storage'], 'no ephemeral storage allocatable');
  t.equal(run(makePod('p'), info), undefined, 'a pod requesting nothing fits');
});

t.test('all reasons of a node, in kube order', async (t) => {
  const node = makeNode('n1', { cpu: '1', memory: '1Gi', pods: 1, extra: { 'example.com/gpu': '1' } });
  const info = new NodeInfo(node, [makePod('old', { node: 'n1', requests: [{ 'example.com/gpu': '1' }] })]);
  const pod = makePod('p', { requests: [{ 'example.com/gpu': '1', 'hugepages-2Mi': '2Mi', memory: '2Gi', cpu: '2', 'ephemeral-storage': '1' }] });
  t.same(run(pod, info)!.reasons, ['Too many pods', 'Insufficient cpu', 'Insufficient memory', 'Insufficient ephemeral-storage', 'Insufficient example.com/gpu', 'Insufficient hugepages-2Mi']);
  t.same(run(makePod('p'), info)!.reasons, ['Too many pods'], 'the pod count binds even a pod requesting nothing');
});

t.test('init containers count at their largest; overhead is added', async (t) => {
  const info = new NodeInfo(makeNode('n1', { cpu: '2', memory: '8Gi' }));
  t.equal(run(makePod('p', { requests: [{ cpu: '1' }, { cpu: '1' }], initRequests: [{ cpu: '2' }] }), info), undefined);
  t.same(run(makePod('p', { requests: [{ cpu: '1' }], initRequests: [{ cpu: '2500m' }] }), info)!.reasons, ['Insufficient cpu']);
  t.same(run(makePod('p', { requests: [{ cpu: '2' }], spec: { overhead: { cpu: '1m' } } }), info)!.reasons, ['Insufficient cpu']);
});

t.test('ignored resources and groups skip extended resources only', async (t) => {
  const info = new NodeInfo(makeNode('n1'));
  const pod = makePod('p', { requests: [{ 'example.com/gpu': '1', 'vendor.io/fpga': '1', 'hugepages-1Gi': '1Gi' }] });
  t.same(run(pod, info)!.reasons, ['Insufficient example.com/gpu', 'Insufficient vendor.io/fpga', 'Insufficient hugepages-1Gi']);
  t.same(run(pod, info, { ignoredResources: ['example.com/gpu', 'hugepages-1Gi'] })!.reasons, ['Insufficient vendor.io/fpga', 'Insufficient hugepages-1Gi'], 'hugepages are not extended resources');
  t.same(run(pod, info, { ignoredResourceGroups: ['vendor.io'] })!.reasons, ['Insufficient example.com/gpu', 'Insufficient hugepages-1Gi']);
});

t.test('args validation', async (t) => {
  t.throws(() => fit({ ignoredResourceGroups: ['example.com/aa'] }), { message: `ignoredResourceGroups[0]: Invalid value: "example.com/aa": resource group name can't contain '/'` });
  t.throws(() => fit({ ignoredResources: ['example.com/'] }), { message: /^\[ignoredResources\[0\]: Invalid value: "example.com\/": name part must be non-empty, ignoredResources\[0\]: .*name part must consist of/ });
  t.throws(() => fit({ ignoredResources: ['ok', '-bad-'] }), { message: /^ignoredResources\[1\]: Invalid value: "-bad-": name part must consist of/ });
  t.throws(() => fit('nope'), { message: 'want args to be of type NodeResourcesFitArgs, got string' });
  t.ok(fit({ ignoredResources: ['example.com/gpu'], ignoredResourceGroups: ['example.com'] }));
});

t.test('insufficientResources lists what a node lacks, with amounts (for preemption)', async (t) => {
  const info = new NodeInfo(makeNode('n1', { cpu: '1', memory: '1Gi' }), [makePod('old', { node: 'n1', requests: [{ cpu: '500m' }] })]);
  t.same(insufficientResources(makePod('p', { requests: [{ cpu: '600m', memory: '1Gi' }] }), info), [
    { resourceName: 'cpu', reason: 'Insufficient cpu', requested: 600, used: 500, capacity: 1000 },
  ]);
  t.same(insufficientResources(makePod('p', { requests: [{ cpu: '500m' }] }), info), []);
  t.equal((fit().filter!(new CycleState(), makePod('p'), info) as Status).code, Code.Error, 'filter without preFilter is an error');
});
