/** NodeAffinity and the shared node selector matching (kube 1.20). */
import t from 'tap';
import type { KubeObject } from '../../../src/client/types';
import { NodeInfo } from '../../../src/scheduler/framework/node-info';
import { Code, type Status } from '../../../src/scheduler/framework/status';
import { CycleState, type NodeScore } from '../../../src/scheduler/framework/types';
import { newNodeAffinity } from '../../../src/scheduler/plugins/node/node-affinity';
import { NodeSelectorTerms, nodeSelectorRequirementsAsSelector, podMatchesNodeSelectorAndAffinityTerms } from '../../../src/scheduler/plugins/node/node-selector';
import { fakeHandle, makeNode, makePod, Snapshot } from '../helpers';

const node = makeNode('n1', { labels: { zone: 'a', size: '10', gpu: '' } });
const terms = (...t: unknown[]) => NodeSelectorTerms.compile(t as never);
const expr = (key: string, operator: string, values?: string[]) => ({ matchExpressions: [{ key, operator, values }] });
const requiring = (nodeSelectorTerms: unknown[], nodeSelector?: Record<string, string>) =>
  makePod('p', { spec: { nodeSelector, affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } } } });

t.test('node selector terms: operators', async (t) => {
  const m = (...ts: unknown[]) => terms(...ts).matchesNode(node);
  t.ok(m(expr('zone', 'In', ['b', 'a'])));
  t.notOk(m(expr('zone', 'In', ['b'])));
  t.ok(m(expr('zone', 'NotIn', ['b'])));
  t.notOk(m(expr('zone', 'NotIn', ['a'])));
  t.ok(m(expr('missing', 'NotIn', ['a'])), 'NotIn holds for a missing label');
  t.ok(m(expr('gpu', 'Exists')));
  t.notOk(m(expr('missing', 'Exists')));
  t.ok(m(expr('missing', 'DoesNotExist')));
  t.notOk(m(expr('gpu', 'DoesNotExist')));
  t.ok(m(expr('size', 'Gt', ['9'])));
  t.notOk(m(expr('size', 'Gt', ['10'])));
  t.ok(m(expr('size', 'Lt', ['11'])));
  t.notOk(m(expr('zone', 'Lt', ['11'])), 'a non-integer label fails Gt/Lt');
  t.notOk(m(expr('missing', 'Gt', ['1'])));
});

t.test('node selector terms: ORed terms, ANDed requirements, fields, invalid and empty terms', async (t) => {
  const m = (...ts: unknown[]) => terms(...ts).matchesNode(node);
  t.ok(m(expr('zone', 'In', ['b']), expr('gpu', 'Exists')), 'terms are ORed');
  t.notOk(m({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'gpu', operator: 'DoesNotExist' }] }), 'requirements are ANDed');
  t.notOk(m(), 'no terms match nothing');
  t.notOk(m({}), 'an empty term matches nothing');
  t.ok(m({}, expr('zone', 'Exists')), 'an empty term is skipped, not fatal');
  t.notOk(m(expr('size', 'Gt', ['x'])), 'Gt needs an integer');
  t.notOk(m(expr('zone', 'In', [])), 'In needs values');
  t.notOk(m(expr('zone', 'Exists', ['a'])), 'Exists takes no values');
  t.notOk(m(expr('zone', 'Bogus', ['a'])), 'an unknown operator invalidates the term');
  t.ok(m(expr('zone', 'Bogus', ['a']), expr('zone', 'In', ['a'])), 'an invalid term does not spoil the others');
  t.ok(m({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }));
  t.notOk(m({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }));
  t.ok(m({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n2'] }] }));
  t.notOk(m({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1', 'n2'] }] }), 'field In takes exactly one value');
  t.notOk(m({ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }), 'fields take only In and NotIn');
  t.notOk(m({ matchFields: [{ key: 'spec.unschedulable', operator: 'In', values: ['x'] }] }), 'other fields read as empty');
  t.notOk(m({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }], matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }), 'labels and fields are ANDed');
  t.same(nodeSelectorRequirementsAsSelector([{ key: 'a', operator: 'Near' }]), { error: '"Near" is not a valid node selector operator' });
  t.equal(nodeSelectorRequirementsAsSelector([]), undefined, 'no requirements: nothing');
  const list = [expr('zone', 'In', ['a'])];
  t.equal(NodeSelectorTerms.cached(list), NodeSelectorTerms.cached(list), 'compiled once per list');
  t.ok(NodeSelectorTerms.cached(list).matches({ zone: 'a' }, 'any'), 'matches labels and a name without a Node object');
  t.notOk(NodeSelectorTerms.cached(undefined).matches({ zone: 'a' }, 'any'));
});

t.test('pod node selector and required affinity', async (t) => {
  t.ok(podMatchesNodeSelectorAndAffinityTerms(makePod('p'), node), 'no constraints fit anywhere');
  t.ok(podMatchesNodeSelectorAndAffinityTerms(makePod('p', { spec: { nodeSelector: { zone: 'a' } } }), node));
  t.notOk(podMatchesNodeSelectorAndAffinityTerms(makePod('p', { spec: { nodeSelector: { zone: 'a', disk: 'ssd' } } }), node));
  t.notOk(podMatchesNodeSelectorAndAffinityTerms(requiring([expr('zone', 'In', ['a'])], { zone: 'b' }), node), 'both must hold');
  t.notOk(podMatchesNodeSelectorAndAffinityTerms(requiring([expr('zone', 'In', ['b'])], { zone: 'a' }), node), 'both must hold');
  t.ok(podMatchesNodeSelectorAndAffinityTerms(requiring([expr('zone', 'In', ['a'])], { zone: 'a' }), node));
  t.notOk(podMatchesNodeSelectorAndAffinityTerms(requiring([]), node), 'required affinity without terms matches nothing');
  const preferredOnly = makePod('p', { spec: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } } } });
  t.ok(podMatchesNodeSelectorAndAffinityTerms(preferredOnly, node), 'no required affinity: no constraint');
});

t.test('NodeAffinity filter', async (t) => {
  const p = newNodeAffinity(undefined, fakeHandle(Snapshot.of([])));
  const state = new CycleState();
  const info = new NodeInfo(node);
  t.equal(p.filter!(state, requiring([expr('zone', 'In', ['a'])]), info), undefined);
  const s = p.filter!(state, makePod('p', { spec: { nodeSelector: { zone: 'b' } } }), info) as Status;
  t.equal(s.code, Code.UnschedulableAndUnresolvable);
  t.same(s.reasons, ["node(s) didn't match node selector"]);
  t.same((p.filter!(state, requiring([expr('zone', 'NotIn', ['a'])]), info) as Status).reasons, ["node(s) didn't match node selector"]);
  t.equal((p.filter!(state, makePod('p'), new NodeInfo()) as Status).code, Code.Error);
});

t.test('NodeAffinity score: weights of matching preferred terms, normalized', async (t) => {
  const p = newNodeAffinity(undefined, fakeHandle(Snapshot.of([])));
  const preferring = (preferred: unknown[]) => makePod('p', { spec: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: preferred } } } });
  const pod = preferring([
    { weight: 5, preference: expr('zone', 'In', ['a']) },
    { weight: 3, preference: expr('disk', 'Exists') },
    { weight: 0, preference: expr('zone', 'Exists') },
    { weight: 7, preference: {} },
    { weight: 9, preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] } },
  ]);
  const nodes: KubeObject[] = [makeNode('n1', { labels: { zone: 'a', disk: 'ssd' } }), makeNode('n2', { labels: { zone: 'a' } }), makeNode('n3', { labels: { zone: 'b' } })];
  const state = new CycleState();
  const scores: NodeScore[] = nodes.map((n) => ({ name: n.metadata!.name!, score: p.score!(state, pod, new NodeInfo(n)) as number }));
  t.same(
    scores.map((s) => s.score),
    [8, 5, 0],
    'weight 0, empty preferences and matchFields do not count',
  );
  t.equal(p.normalizeScore!(state, pod, scores), undefined);
  t.same(
    scores.map((s) => s.score),
    [100, 62, 0],
  );
  const bad = preferring([{ weight: 1, preference: expr('size', 'Gt', ['ten']) }]);
  t.equal((p.score!(state, bad, new NodeInfo(nodes[0])) as Status).code, Code.Error, 'an invalid preference is an error');
  t.equal(p.score!(state, makePod('q'), new NodeInfo(nodes[0])), 0);
});
