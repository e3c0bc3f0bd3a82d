/** TaintToleration: the NoSchedule/NoExecute filter and the reversed PreferNoSchedule score. */
import t from 'tap';
import { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type NodeScore } from '../../../src/scheduler/framework/types';
import { newTaintToleration } from '../../../src/scheduler/plugins/node/taint-toleration';
import { fakeHandle, makeNode, makePod, Snapshot } from '../helpers';

type Taint = { key: string; value?: string; effect: string };
const plugin = () => newTaintToleration(undefined, fakeHandle(Snapshot.of([])));
const info = (taints: Taint[]) => new NodeInfo(makeNode('n', { taints }));
const tolerating = (tolerations: unknown[]) => makePod('p', { spec: { tolerations } });

t.test('filter: an untolerated NoSchedule or NoExecute taint refuses the node, naming the first', async (t) => {
  const p = plugin();
  const state = new CycleState();
  const s = p.filter!(state, makePod('p'), info([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }])) as Status;
  t.equal(s.code, Code.UnschedulableAndUnresolvable);
  t.same(s.reasons, ["node(s) had taint {dedicated: gpu}, that the pod didn't tolerate"]);
  const two = info([
    { key: 'soft', value: 'x', effect: 'PreferNoSchedule' },
    { key: 'gone', effect: 'NoExecute' },
    { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
  ]);
  t.same((p.filter!(state, makePod('p'), two) as Status).reasons, ["node(s) had taint {gone: }, that the pod didn't tolerate"], 'PreferNoSchedule is skipped; the first hard taint is named');
  t.equal(p.filter!(state, makePod('p'), info([{ key: 'soft', effect: 'PreferNoSchedule' }])), undefined, 'PreferNoSchedule never refuses');
  const both = tolerating([
    { key: 'gone', operator: 'Exists', effect: 'NoExecute' },
    { key: 'dedicated', operator: 'Equal', value: 'gpu' },
  ]);
  t.equal(p.filter!(state, both, two), undefined, 'tolerated taints pass');
  const wrongValue = tolerating([{ key: 'gone', operator: 'Exists' }, { key: 'dedicated', value: 'cpu' }]);
  t.same((p.filter!(state, wrongValue, two) as Status).reasons, ["node(s) had taint {dedicated: gpu}, that the pod didn't tolerate"]);
  t.equal(p.filter!(state, tolerating([{ operator: 'Exists' }]), two), undefined, 'an empty key with Exists tolerates every taint');
  t.equal(p.filter!(state, makePod('p'), info([])), undefined);
  t.equal((p.filter!(state, makePod('p'), new NodeInfo()) as Status).code, Code.Error);
});

t.test('score: intolerable PreferNoSchedule taints, reversed by normalization', async (t) => {
  const p = plugin();
  const nodes = [
    info([
      { key: 'a', effect: 'PreferNoSchedule' },
      { key: 'b', effect: 'PreferNoSchedule' },
      { key: 'hard', effect: 'NoSchedule' },
    ]),
    info([{ key: 'a', effect: 'PreferNoSchedule' }]),
    info([{ key: 'hard', effect: 'NoSchedule' }]),
  ];
  const run = (pod = makePod('p')) => {
    const state = new CycleState();
    t.equal(p.preScore!(state, pod, nodes), undefined);
    const scores: NodeScore[] = nodes.map((n, i) => ({ name: `n${i}`, score: p.score!(state, pod, n) as number }));
    const raw = scores.map((s) => s.score);
    t.equal(p.normalizeScore!(state, pod, scores), undefined);
    return { raw, normalized: scores.map((s) => s.score) };
  };
  t.same(run(), { raw: [2, 1, 0], normalized: [0, 50, 100] }, 'NoSchedule taints are not counted');
  // a toleration with an empty effect counts; one for NoSchedule does not tolerate PreferNoSchedule
  t.same(run(tolerating([{ key: 'b', operator: 'Exists' }, { key: 'a', operator: 'Exists', effect: 'NoSchedule' }])), { raw: [1, 1, 0], normalized: [0, 0, 100] });
  t.same(run(tolerating([{ key: 'a', operator: 'Exists', effect: 'PreferNoSchedule' }, { key: 'b', operator: 'Exists' }])), { raw: [0, 0, 0], normalized: [100, 100, 100] }, 'all zero: every node gets 100');
  t.equal((p.score!(new CycleState(), makePod('p'), nodes[0]) as Status).code, Code.Error, 'score without preScore is an error');
});
