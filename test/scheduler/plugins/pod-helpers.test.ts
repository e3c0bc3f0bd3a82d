import t from 'tap';
import { labelSelectorFromObject } from '../../../src/api/selectors';
import { compileNodeMatcher } from '../../../src/scheduler/plugins/pod/node-match';
import { TopologyCounts, zoneKey } from '../../../src/scheduler/plugins/pod/topology';
import { compileSelector, countPodsMatching } from '../../../src/scheduler/plugins/pod/pod-matching';
import { Snapshot, makeNode, makePod } from '../helpers';

t.test('countPodsMatching: namespace, terminating pods, and a fresh count after the node changes', async (t) => {
  const dying = makePod('d', { node: 'n', labels: { app: 'a' } });
  dying.metadata!.deletionTimestamp = '2026-01-01T00:00:00Z';
  const snap = Snapshot.of([makeNode('n')], [makePod('p1', { node: 'n', labels: { app: 'a' } }), makePod('p2', { node: 'n', namespace: 'x', labels: { app: 'a' } }), dying]);
  const info = snap.list()[0];
  const sel = labelSelectorFromObject({ matchLabels: { app: 'a' } });
  t.equal(countPodsMatching(info, sel, 'default'), 1);
  t.equal(countPodsMatching(info, sel, 'x'), 1);
  info.addPod(makePod('p3', { node: 'n', labels: { app: 'a' } }));
  t.equal(countPodsMatching(info, sel, 'default'), 2, 'the memo follows the NodeInfo generation');
  t.equal(countPodsMatching(info, labelSelectorFromObject({ matchLabels: { app: 'b' } }), 'default'), 0);
  t.equal(countPodsMatching(info, labelSelectorFromObject(null), 'default'), 0, 'a nil selector selects nothing');
  t.equal(countPodsMatching(info, labelSelectorFromObject({}), 'default'), 2, 'an empty one everything');
});

t.test('compileSelector agrees with the selector', async (t) => {
  const eq = compileSelector(labelSelectorFromObject({ matchLabels: { a: '1', b: '2' } }));
  t.ok(eq({ a: '1', b: '2', c: '3' }));
  t.notOk(eq({ a: '1' }));
  const expr = compileSelector(labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }));
  t.ok(expr({}));
  t.notOk(expr({ a: '1' }));
  t.notOk(compileSelector(labelSelectorFromObject(null))({}));
});

t.test('zoneKey: beta labels first, empty without zone or region', async (t) => {
  t.equal(zoneKey(makeNode('n')), '');
  t.equal(zoneKey(makeNode('n', { labels: { 'topology.kubernetes.io/zone': 'z', 'topology.kubernetes.io/region': 'r' } })), 'r:\x00:z');
  t.equal(zoneKey(makeNode('n', { labels: { 'topology.kubernetes.io/zone': 'z', 'failure-domain.beta.kubernetes.io/zone': 'old' } })), ':\x00:old');
});

t.test('TopologyCounts drops pairs that fall to zero', async (t) => {
  const c = new TopologyCounts();
  c.add('zone', 'a', 1);
  t.equal(c.size, 1);
  c.add('zone', 'a', -1);
  t.equal(c.size, 0);
  t.equal(c.byKey.size, 0);
});

t.test('node matcher: nodeSelector and required node affinity terms (ORed), matchFields by name', async (t) => {
  const ssd = makeNode('n1', { labels: { disk: 'ssd', gen: '5' } });
  const hdd = makeNode('n2', { labels: { disk: 'hdd' } });
  t.ok(compileNodeMatcher(makePod('p'))(hdd));
  t.notOk(compileNodeMatcher(makePod('p', { spec: { nodeSelector: { disk: 'ssd' } } }))(hdd));
  const affinity = (terms: unknown[]) => makePod('p', { spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } } });
  const gt = compileNodeMatcher(affinity([{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }] }, { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }]));
  t.ok(gt(ssd));
  t.ok(gt(hdd), 'the second term matches by name');
  t.notOk(compileNodeMatcher(affinity([]))(ssd), 'no terms match no node');
  t.notOk(compileNodeMatcher(affinity([{}]))(ssd), 'an empty term matches no node');
  t.ok(compileNodeMatcher(makePod('p', { spec: { affinity: { nodeAffinity: {} } } }))(ssd), 'no required part: every node');
});
