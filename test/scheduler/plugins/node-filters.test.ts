/** NodeUnschedulable, NodeName, NodePorts and NodeLabel: kube 1.20's decisions and reasons. */
import t from 'tap';
import { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type Plugin } from '../../../src/scheduler/framework/types';
import { NODE_PLUGINS } from '../../../src/scheduler/plugins/node';
import { newNodeLabel } from '../../../src/scheduler/plugins/node/node-label';
import { newNodeName } from '../../../src/scheduler/plugins/node/node-name';
import { newNodePorts } from '../../../src/scheduler/plugins/node/node-ports';
import { newNodeUnschedulable } from '../../../src/scheduler/plugins/node/node-unschedulable';
import { fakeHandle, makeNode, makePod, Snapshot } from '../helpers';

const handle = () => fakeHandle(Snapshot.of([]));
const status = (s: unknown) => s as Status;

const withPorts = (name: string, ports: Array<{ hostPort: number; hostIP?: string; protocol?: string }>, node?: string) =>
  makePod(name, { node, spec: { containers: [{ name: 'c', image: 'busybox', ports: ports.map((p) => ({ containerPort: p.hostPort, ...p })) }] } });

t.test('the folder exports every node plugin under its kube name', async (t) => {
  for (const [name, factory] of Object.entries(NODE_PLUGINS)) {
    // RequestedToCapacityRatio has no default shape
    const args = name === 'RequestedToCapacityRatio' ? { shape: [{ utilization: 0, score: 0 }] } : undefined;
    t.equal(factory(args, handle()).name, name);
  }
  t.same(Object.keys(NODE_PLUGINS).sort(), [
    'ImageLocality',
    'NodeAffinity',
    'NodeLabel',
    'NodeName',
    'NodePorts',
    'NodePreferAvoidPods',
    'NodeResourcesBalancedAllocation',
    'NodeResourcesFit',
    'NodeResourcesLeastAllocated',
    'NodeResourcesMostAllocated',
    'NodeUnschedulable',
    'RequestedToCapacityRatio',
    'TaintToleration',
  ]);
});

t.test('NodeUnschedulable', async (t) => {
  const p: Plugin = newNodeUnschedulable(undefined, handle());
  const state = new CycleState();
  const cordoned = new NodeInfo(makeNode('n1', { unschedulable: true }));
  const s = status(p.filter!(state, makePod('a'), cordoned));
  t.equal(s.code, Code.UnschedulableAndUnresolvable);
  t.same(s.reasons, ['node(s) were unschedulable']);
  t.equal(p.filter!(state, makePod('a'), new NodeInfo(makeNode('n2'))), undefined, 'a schedulable node fits');
  const tolerant = makePod('b', { spec: { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] } });
  t.equal(p.filter!(state, tolerant, cordoned), undefined, 'tolerating the unschedulable taint tolerates the cordon');
  const wrongEffect = makePod('c', { spec: { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }] } });
  t.ok(p.filter!(state, wrongEffect, cordoned), 'a NoExecute toleration does not');
  const none = status(p.filter!(state, makePod('a'), new NodeInfo()));
  t.same([none.code, none.reasons], [Code.UnschedulableAndUnresolvable, ['node(s) had unknown conditions']]);
});

t.test('NodeName', async (t) => {
  const p = newNodeName(undefined, handle());
  const state = new CycleState();
  const n1 = new NodeInfo(makeNode('n1'));
  t.equal(p.filter!(state, makePod('free'), n1), undefined, 'no nodeName fits anywhere');
  t.equal(p.filter!(state, makePod('mine', { spec: { nodeName: 'n1' } }), n1), undefined);
  const s = status(p.filter!(state, makePod('other', { spec: { nodeName: 'n2' } }), n1));
  t.same([s.code, s.reasons], [Code.UnschedulableAndUnresolvable, ["node(s) didn't match the requested hostname"]]);
  t.equal(status(p.filter!(state, makePod('free'), new NodeInfo())).code, Code.Error);
});

t.test('NodePorts', async (t) => {
  const p = newNodePorts(undefined, handle());
  t.equal(p.preFilterExtensions!(), undefined);
  const node = makeNode('n1');
  const info = new NodeInfo(node, [withPorts('old', [{ hostPort: 8080 }, { hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.1' }], 'n1')]);
  const check = (pod = makePod('x')) => {
    const state = new CycleState();
    t.equal(p.preFilter!(state, pod), undefined);
    return p.filter!(state, pod, info);
  };
  const s = status(check(withPorts('a', [{ hostPort: 8080, hostIP: '127.0.0.1' }])));
  t.same([s.code, s.reasons], [Code.Unschedulable, ["node(s) didn't have free ports for the requested pod ports"]], '0.0.0.0 holds the port on every address');
  t.equal(check(withPorts('b', [{ hostPort: 8080, protocol: 'UDP' }])), undefined, 'another protocol is free');
  t.equal(check(withPorts('c', [{ hostPort: 8081 }])), undefined);
  t.equal(check(withPorts('d', [{ hostPort: 53, protocol: 'UDP', hostIP: '10.0.0.2' }])), undefined, 'another address is free');
  t.ok(check(withPorts('e', [{ hostPort: 53, protocol: 'UDP' }])), 'a wildcard request conflicts with any address');
  t.equal(check(makePod('f')), undefined, 'no host ports fit anywhere');
  t.equal(status(p.filter!(new CycleState(), makePod('g'), info)).code, Code.Error, 'filter without preFilter is an error');
});

t.test('NodeLabel', async (t) => {
  t.throws(() => newNodeLabel({ presentLabels: ['a', 'b'], absentLabels: ['b'] }, handle()), {
    message: 'detecting at least one label (e.g., "b") that exist in both the present([a b]) and absent([b]) label list',
  });
  t.throws(() => newNodeLabel({ presentLabelsPreference: ['x'], absentLabelsPreference: ['x'] }, handle()), {
    message: 'detecting at least one label (e.g., "x") that exist in both the present([x]) and absent([x]) label list',
  });
  const p = newNodeLabel({ presentLabels: ['zone'], absentLabels: ['retiring'], presentLabelsPreference: ['ssd'], absentLabelsPreference: ['spot'] }, handle());
  const state = new CycleState();
  const pod = makePod('a');
  const info = (labels: Record<string, string>) => new NodeInfo(makeNode('n', { labels }));
  t.equal(p.filter!(state, pod, info({ zone: 'a' })), undefined);
  const missing = status(p.filter!(state, pod, info({})));
  t.same([missing.code, missing.reasons], [Code.UnschedulableAndUnresolvable, ["node(s) didn't have the requested labels"]]);
  t.ok(p.filter!(state, pod, info({ zone: 'a', retiring: '' })), 'an absent label present refuses');
  t.equal(p.score!(state, pod, info({ ssd: '' })), 100, 'both preferences met');
  t.equal(p.score!(state, pod, info({ ssd: '', spot: '' })), 50, 'one of two');
  t.equal(p.score!(state, pod, info({ spot: '' })), 0);
  t.equal(newNodeLabel(undefined, handle()).score!(state, pod, info({})), 0, 'no preferences score 0');
  t.equal(newNodeLabel(undefined, handle()).filter!(state, pod, info({})), undefined, 'no labels required fit');
});
