import t from 'tap';
import { toTable, defaultTableColumns } from '../../src/api/table';
import { gadgetKind, widgetKind, startTestServer, getJson } from './helpers';
import { sampleObject } from './fake-registry';

const NS = '/apis/test.ballast.io/v1/namespaces/ns1/widgets';
const TABLE_V1 = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const KUBECTL_ACCEPT = `${TABLE_V1},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json`;

t.test('toTable: the kind table, rows with metadata, list meta', async (t) => {
  const objs = [sampleObject('a', { spec: { size: 1 } }), sampleObject('b', { spec: { size: 2 } })];
  const table = toTable(widgetKind, objs, {
    includeObject: 'Metadata',
    now: new Date(),
    apiVersion: 'meta.k8s.io/v1',
    listMeta: { resourceVersion: '42', continue: 'next', remainingItemCount: 3 },
  });
  t.same(table, {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '42', continue: 'next', remainingItemCount: 3 },
    columnDefinitions: widgetKind.table!.columns,
    rows: [
      { cells: ['a', 1, 'blue'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: objs[0].metadata } },
      { cells: ['b', 2, 'blue'], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: objs[1].metadata } },
    ],
  });
  const none = toTable(widgetKind, objs, { includeObject: 'None', now: new Date(), apiVersion: 'meta.k8s.io/v1beta1', noHeaders: true });
  t.equal(none.apiVersion, 'meta.k8s.io/v1beta1');
  t.equal(none.columnDefinitions, null);
  t.equal(none.rows[0].object, null);
  t.same(none.metadata, {});
  const full = toTable(widgetKind, objs, { includeObject: 'Object', now: new Date(), apiVersion: 'meta.k8s.io/v1' });
  t.equal(full.rows[1].object, objs[1]);
});

t.test('toTable: the default Name / Created At table', async (t) => {
  const table = toTable(gadgetKind, [{ metadata: { name: 'g', creationTimestamp: '2024-05-01T10:00:00.123Z' } }, { metadata: { name: 'h' } }], {
    includeObject: 'Metadata',
    now: new Date(),
    apiVersion: 'meta.k8s.io/v1',
  });
  t.same(table.columnDefinitions!.map((c) => [c.name, c.type, c.format, c.priority]), [
    ['Name', 'string', 'name', 0],
    ['Created At', 'date', '', 0],
  ]);
  t.same(table.columnDefinitions, defaultTableColumns);
  t.same(table.rows.map((r) => r.cells), [
    ['g', '2024-05-01T10:00:00Z'],
    ['h', '0001-01-01T00:00:00Z'],
  ]);
  t.same(toTable(gadgetKind, [], { includeObject: 'Metadata', now: new Date(), apiVersion: 'meta.k8s.io/v1' }).rows, []);
});

t.test('list and get answer a Table for kubectl get, with the Content-Type echoed', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  s.registry.listMeta = { resourceVersion: '42', continue: 'tok' };
  let r = await getJson(`${s.url}${NS}?limit=500`, { headers: { Accept: KUBECTL_ACCEPT } });
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), TABLE_V1);
  t.equal(r.body.kind, 'Table');
  t.equal(r.body.apiVersion, 'meta.k8s.io/v1');
  t.same(r.body.metadata, { resourceVersion: '42', continue: 'tok' });
  t.same(r.body.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Size', 'Color']);
  t.same(r.body.rows.map((row: { cells: unknown[] }) => row.cells), [
    ['a', 3, 'blue'],
    ['b', 3, 'blue'],
  ]);
  t.same(r.body.rows[0].object, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: s.registry.objects[0].metadata });
  t.same(s.registry.lastCall().options, { limit: 500 });

  r = await getJson(`${s.url}${NS}`, { headers: { Accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json' } });
  t.equal(r.headers.get('content-type'), 'application/json;as=Table;v=v1beta1;g=meta.k8s.io');
  t.equal(r.body.apiVersion, 'meta.k8s.io/v1beta1');
  t.equal(r.body.rows[0].object.apiVersion, 'meta.k8s.io/v1beta1');

  r = await getJson(`${s.url}${NS}/b?includeObject=Object`, { headers: { Accept: KUBECTL_ACCEPT } });
  t.equal(r.body.kind, 'Table');
  t.same(r.body.metadata, { resourceVersion: '7' }, 'a single object table carries its resourceVersion');
  t.equal(r.body.rows.length, 1);
  t.same(r.body.rows[0].object, s.registry.objects[1]);
  r = await getJson(`${s.url}${NS}?includeObject=None`, { headers: { Accept: KUBECTL_ACCEPT } });
  t.equal(r.body.rows[0].object, null);
  r = await getJson(`${s.url}${NS}?includeObject=Everything`, { headers: { Accept: KUBECTL_ACCEPT } });
  t.equal(r.status, 400);
  t.equal(r.body.message, `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`);

  r = await getJson(`${s.url}/api/v1/gadgets`, { headers: { Accept: KUBECTL_ACCEPT } });
  t.same(r.body.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Created At'], 'kinds without a table get the default one');

  r = await getJson(`${s.url}${NS}`, { headers: { Accept: 'application/json;as=Table;v=v2;g=meta.k8s.io' } });
  t.equal(r.status, 406, 'no Table in other versions');
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{}', headers: { Accept: TABLE_V1, 'Content-Type': 'application/json' } });
  t.equal(r.status, 406, 'writes do not answer Tables');
  r = await getJson(`${s.url}${NS}`, { headers: { Accept: 'application/json' } });
  t.equal(r.body.kind, 'WidgetList', 'plain JSON without the Table clause');
});
