import t from 'tap';
import { definitions } from '../../../src/schema';
import { FieldSet, SchemaType, fieldSetOf, compareObjects, pathString, keyElement } from '../../../src/api/apply';
import type { SchemaNode } from '../../../src/schema/types';

const deploymentType = SchemaType.forDefinition(definitions, 'io.k8s.api.apps.v1.Deployment');

t.test('FieldsV1 round trip: members, children, "." for both', async (t) => {
  const json = { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {} } } } };
  const set = FieldSet.fromFieldsV1(json);
  t.ok(set.has(['f:metadata', 'f:labels', 'f:app']));
  t.ok(set.has(['f:spec', 'f:containers', 'k:{"name":"nginx"}']));
  t.notOk(set.has(['f:spec', 'f:containers']));
  t.same(set.toFieldsV1(), json);
  t.equal(JSON.stringify(set.toFieldsV1()), JSON.stringify(json), 'key order is SMD order');
  t.throws(() => FieldSet.fromFieldsV1({ 'x:foo': {} }), /unknown path element type/);
  t.throws(() => FieldSet.fromFieldsV1({ 'k:notjson': {} }));
  t.throws(() => FieldSet.fromFieldsV1({ 'f:a': 1 }));
});

t.test('set operations', async (t) => {
  const a = FieldSet.of(['f:spec', 'f:replicas'], ['f:spec', 'f:paused'], ['f:metadata', 'f:labels', 'f:a']);
  const b = FieldSet.of(['f:spec', 'f:replicas'], ['f:metadata', 'f:labels', 'f:b']);
  t.same(a.union(b).toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:a': {}, 'f:b': {} } }, 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });
  t.same(a.intersection(b).toFieldsV1(), { 'f:spec': { 'f:replicas': {} } });
  t.same(a.difference(b).toFieldsV1(), { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:paused': {} } });
  t.ok(b.difference(b).empty());
  t.same(a.paths().map(pathString), ['.metadata.labels.a', '.spec.paused', '.spec.replicas']);
});

t.test('path elements order and print as SMD: fields, keys, values, indexes', async (t) => {
  const s = FieldSet.of(['v:"b"'], ['k:{"port":80}'], ['f:z'], ['v:2'], ['i:1'], ['k:{"name":"a"}']);
  t.same(Object.keys(s.toFieldsV1()), ['f:z', 'k:{"name":"a"}', 'k:{"port":80}', 'v:2', 'v:"b"', 'i:1']);
  t.equal(pathString(['f:spec', keyElement({ protocol: 'TCP', containerPort: 80 }), 'f:x']), '.spec[containerPort=80,protocol="TCP"].x');
  t.equal(keyElement({ protocol: 'TCP', containerPort: 80 }), 'k:{"containerPort":80,"protocol":"TCP"}');
  t.equal(pathString(['f:finalizers', 'v:"a"']), '.finalizers[="a"]');
});

t.test('field set of an object: nested maps, map lists, set lists, atomic lists and maps', async (t) => {
  const obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x', labels: { app: 'x' }, finalizers: ['a', 'b'], annotations: {} },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'x' } },
      template: {
        spec: {
          containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }], args: ['a', 'b'] }],
        },
      },
    },
  };
  const set = fieldSetOf(obj, deploymentType);
  t.same(set.toFieldsV1(), {
    'f:apiVersion': {},
    'f:kind': {},
    'f:metadata': { 'f:annotations': {}, 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} }, 'f:labels': { 'f:app': {} }, 'f:name': {} },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': {
        'f:spec': {
          'f:containers': {
            'k:{"name":"nginx"}': {
              '.': {},
              'f:args': {},
              'f:image': {},
              'f:name': {},
              'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {}, 'f:protocol': {} } },
            },
          },
        },
      },
    },
  });
});

t.test('lists without a list-type follow kube defaults: merge key -> map list, merge strategy -> set, else atomic', async (t) => {
  const defs: Record<string, SchemaNode> = {
    root: {
      type: 'object',
      properties: {
        keyed: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, v: { type: 'string' } } }, 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'id' },
        merged: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
        plain: { type: 'array', items: { type: 'string' } },
        atomicMap: { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  };
  const type = SchemaType.forDefinition(defs, 'root');
  const set = fieldSetOf({ keyed: [{ id: 'a', v: '1' }], merged: ['x'], plain: ['y'], atomicMap: { k: 'v' }, free: { a: { b: 1 }, l: [1] } }, type);
  t.same(set.toFieldsV1(), {
    'f:atomicMap': {},
    'f:free': { 'f:a': { 'f:b': {} }, 'f:l': {} },
    'f:keyed': { 'k:{"id":"a"}': { '.': {}, 'f:id': {}, 'f:v': {} } },
    'f:merged': { 'v:"x"': {} },
    'f:plain': {},
  });
});

t.test('compare: added, removed and modified leaves and items', async (t) => {
  const before = { metadata: { labels: { a: '1', b: '2' } }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } } } };
  const after = { metadata: { labels: { a: '1', c: '3' } }, spec: { replicas: 2, template: { spec: { containers: [{ name: 'a', image: 'z' }, { name: 'c', image: 'y' }] } } } };
  const c = compareObjects(before, after, deploymentType);
  t.same(c.modified.paths().map(pathString), ['.spec.replicas', '.spec.template.spec.containers[name="a"].image']);
  t.same(c.added.paths().map(pathString), ['.metadata.labels.c', '.spec.template.spec.containers[name="c"]', '.spec.template.spec.containers[name="c"].image', '.spec.template.spec.containers[name="c"].name']);
  t.same(c.removed.paths().map(pathString), ['.metadata.labels.b', '.spec.template.spec.containers[name="b"]', '.spec.template.spec.containers[name="b"].image', '.spec.template.spec.containers[name="b"].name']);
  const added = compareObjects({}, { metadata: { labels: { a: '1' } } }, deploymentType).added;
  t.same(added.toFieldsV1(), { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }, 'a new map is owned itself (".")');
});
