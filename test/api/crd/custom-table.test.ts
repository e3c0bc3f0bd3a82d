/** Printer columns of custom resources: kube's JSONPath dialect and cell types, and the default Age column. */
import t from 'tap';
import { compile } from '../../../src/api/crd/jsonpath';
import { customTable } from '../../../src/api/crd/custom-table';

const obj = {
  metadata: { name: 'a', creationTimestamp: '2024-05-01T10:00:00Z', labels: { app: 'x' } },
  spec: { replicas: 3, ratio: 1.5, on: true, items: [{ name: 'x', v: 1 }, { name: 'y', v: 2 }], tags: ['a', 'b'] },
  status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }] },
};

t.test('JSONPath as kube reads it', async (t) => {
  t.same(compile('.spec.replicas').evaluate(obj), [3]);
  t.same(compile('{.spec.items[1].name}').evaluate(obj), ['y']);
  t.same(compile('.spec.items[-1].v').evaluate(obj), [2]);
  t.same(compile('.spec.items[*].name').evaluate(obj), ['x', 'y']);
  t.same(compile('.status.conditions[?(@.type=="Ready")].status').evaluate(obj), ['True']);
  t.same(compile(".metadata.labels['app']").evaluate(obj), ['x']);
  t.same(compile('..name').evaluate(obj), ['a', 'x', 'y']);
  t.same(compile('.spec.missing.deeper').evaluate(obj), [], 'missing keys are allowed');
  t.throws(() => compile('.spec[?(@.x'));
});

t.test('cells by column type, the default Age column', async (t) => {
  const now = new Date('2024-05-01T10:05:00Z');
  const table = customTable([
    { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
    { name: 'Ratio', type: 'number', jsonPath: '.spec.ratio' },
    { name: 'On', type: 'boolean', jsonPath: '.spec.on' },
    { name: 'Tags', type: 'string', jsonPath: '.spec.tags' },
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status', priority: 1 },
    { name: 'Created', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    { name: 'Missing', type: 'string', jsonPath: '.spec.nope' },
    { name: 'Wrong', type: 'integer', jsonPath: '.spec.on' },
  ]);
  t.same(table.columns.map((c) => [c.name, c.type, c.priority]), [
    ['Name', 'string', 0],
    ['Replicas', 'integer', 0],
    ['Ratio', 'number', 0],
    ['On', 'boolean', 0],
    ['Tags', 'string', 0],
    ['Ready', 'string', 1],
    ['Created', 'date', 0],
    ['Missing', 'string', 0],
    ['Wrong', 'integer', 0],
  ]);
  t.equal(table.columns[1].description, 'Custom resource definition column (in JSONPath format): .spec.replicas');
  t.same(table.cells(obj, now), ['a', 3, 1.5, true, '["a","b"]', 'True', '5m', null, null]);
  const age = customTable(undefined);
  t.same(age.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
  t.same(age.cells(obj, now), ['a', '5m']);
});
