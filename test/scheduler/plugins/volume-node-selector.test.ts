import t from 'tap';
import { matchNodeSelectorTerms, matchTopologySelectorTerms, volumeFitsNode } from '../../../src/scheduler/plugins/volume/node-selector';
import { makePV } from './volume-fixtures';

const labels = { zone: 'a', gen: '5' };
const term = (key: string, operator: string, values?: string[]) => ({ matchExpressions: [{ key, operator, values }] });

t.test('node selector operators', async (t) => {
  t.ok(matchNodeSelectorTerms([term('zone', 'In', ['a', 'b'])], labels));
  t.notOk(matchNodeSelectorTerms([term('zone', 'In', ['b'])], labels));
  t.ok(matchNodeSelectorTerms([term('zone', 'NotIn', ['b'])], labels));
  t.ok(matchNodeSelectorTerms([term('rack', 'NotIn', ['b'])], labels), 'NotIn matches a missing label');
  t.ok(matchNodeSelectorTerms([term('zone', 'Exists')], labels));
  t.ok(matchNodeSelectorTerms([term('rack', 'DoesNotExist')], labels));
  t.ok(matchNodeSelectorTerms([term('gen', 'Gt', ['4'])], labels));
  t.notOk(matchNodeSelectorTerms([term('gen', 'Lt', ['4'])], labels));
  t.notOk(matchNodeSelectorTerms([term('zone', 'Gt', ['4'])], labels), 'a non-integer label never compares');
  t.notOk(matchNodeSelectorTerms([term('zone', 'In', [])], labels), 'an invalid requirement matches nothing');
});

t.test('terms: any term may match, every expression of it must; empty terms match nothing', async (t) => {
  t.ok(matchNodeSelectorTerms([term('zone', 'In', ['b']), term('zone', 'In', ['a'])], labels));
  t.notOk(matchNodeSelectorTerms([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'gen', operator: 'In', values: ['6'] }] }], labels));
  t.notOk(matchNodeSelectorTerms([{}], labels));
  t.notOk(matchNodeSelectorTerms([], labels));
  t.notOk(matchNodeSelectorTerms([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }], labels), 'volume affinity sees no node fields');
});

t.test('volumeFitsNode', async (t) => {
  t.ok(volumeFitsNode(makePV('pv'), labels), 'no affinity fits everywhere');
  t.ok(volumeFitsNode(makePV('pv', { nodeTerms: [term('zone', 'In', ['a'])] }), labels));
  t.notOk(volumeFitsNode(makePV('pv', { nodeTerms: [term('zone', 'In', ['b'])] }), labels));
});

t.test('allowed topologies', async (t) => {
  t.ok(matchTopologySelectorTerms(undefined, labels));
  t.ok(matchTopologySelectorTerms([], labels));
  t.ok(matchTopologySelectorTerms([{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }], labels));
  t.notOk(matchTopologySelectorTerms([{ matchLabelExpressions: [{ key: 'zone', values: ['b'] }] }], labels));
  t.notOk(matchTopologySelectorTerms([{ matchLabelExpressions: [] }], labels));
});
