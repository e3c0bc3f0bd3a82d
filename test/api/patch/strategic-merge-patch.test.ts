import t from 'tap';
import { ApiError } from '../../../src/api/errors';
import type { KubeObject } from '../../../src/api/kind';
import { applyStrategicMergePatch } from '../../../src/api/patch/strategic-merge-patch';
import { deploymentSchema, mergeItemSchema } from './smp-schema';

const item = (doc: object, patch: unknown): KubeObject => applyStrategicMergePatch(doc as KubeObject, JSON.stringify(patch), mergeItemSchema);
const deploy = (doc: object, patch: unknown): KubeObject => applyStrategicMergePatch(doc as KubeObject, JSON.stringify(patch), deploymentSchema);

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

t.test('maps merge, null deletes, scalars replace', async (t) => {
  t.same(item({ name: 'a', value: 'b', simpleMap: { k1: '1', k2: '2' } }, { value: null, other: 'x', simpleMap: { k2: null, k3: '3' } }), {
    name: 'a',
    other: 'x',
    simpleMap: { k1: '1', k3: '3' },
  });
  // nulls inside a value the original does not have are dropped
  t.same(item({}, { simpleMap: { a: null, b: '1' } }), { simpleMap: { b: '1' } });
  t.same(item({ name: 'a' }, null), { name: 'a' });
});

t.test('the input document is never mutated', async (t) => {
  const doc = { name: 'a', mergingList: [{ name: '1', value: 'x' }], simpleMap: { a: '1' } };
  const before = JSON.stringify(doc);
  const out = item(doc, { mergingList: [{ name: '1', value: 'y' }], simpleMap: { a: null } });
  t.equal(JSON.stringify(doc), before);
  t.same(out, { name: 'a', mergingList: [{ name: '1', value: 'y' }], simpleMap: {} });
});

t.test('lists without a merge strategy are replaced; merge lists merge by key', async (t) => {
  t.same(item({ nonMergingList: [{ name: '1' }, { name: '2' }] }, { nonMergingList: [{ name: '3' }] }), { nonMergingList: [{ name: '3' }] });
  t.same(item({ nonMergingIntList: [1, 2] }, { nonMergingIntList: [3] }), { nonMergingIntList: [3] });
  t.same(item({ mergingList: [{ name: '1', value: 'a' }, { name: '2', value: 'b' }] }, { mergingList: [{ name: '2', other: 'x' }, { name: '3' }] }), {
    mergingList: [{ name: '1', value: 'a' }, { name: '2', value: 'b', other: 'x' }, { name: '3' }],
  });
});

t.test('kube cases: preserve the order from the patch in a merging list', async (t) => {
  const original = { mergingList: [{ name: '1' }, { name: '2', value: 'b' }, { name: '3' }] };
  t.same(item(original, { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', other: 'x' }] }), {
    mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }, { name: '2', value: 'b', other: 'x' }],
  });
  t.same(item(original, { mergingList: [{ name: '3', value: 'c' }, { name: '1', value: 'a' }] }), {
    mergingList: [{ name: '2', value: 'b' }, { name: '3', value: 'c' }, { name: '1', value: 'a' }],
  });
  t.same(item({ mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1, 2] }), { mergingIntList: [3, 1, 2] });
  t.same(item({ mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }), { mergingIntList: [2, 3, 1] });
});

t.test('primitive merge lists are set unions', async (t) => {
  t.same(item({ mergingIntList: [1, 2] }, { mergingIntList: [2, 3] }), { mergingIntList: [1, 2, 3] });
  t.same(deploy({ metadata: { finalizers: ['a', 'b'] } }, { metadata: { finalizers: ['c', 'a'] } }), { metadata: { finalizers: ['c', 'a', 'b'] } });
});

t.test('$deleteFromPrimitiveList', async (t) => {
  t.same(item({ mergingIntList: [1, 2, 3] }, { '$deleteFromPrimitiveList/mergingIntList': [2] }), { mergingIntList: [1, 3] });
  t.same(item({ nonMergingIntList: [1, 2, 3] }, { '$deleteFromPrimitiveList/nonMergingIntList': [2] }), { nonMergingIntList: [1, 3] });
  t.same(item({ mergingIntList: [1, 2] }, { '$deleteFromPrimitiveList/mergingIntList': [3] }), { mergingIntList: [1, 2] });
  t.same(item({ foo: ['bar'] }, { '$deleteFromPrimitiveList/mergingIntList': [3] }), { foo: ['bar'] });
  // kube's "add and delete items in lists of scalars"
  t.same(item({ mergingIntList: [1, 2, 3] }, { '$setElementOrder/mergingIntList': [1, 2, 4], '$deleteFromPrimitiveList/mergingIntList': [3], mergingIntList: [4] }), {
    mergingIntList: [1, 2, 4],
  });
  const bad = failure(() => item({}, { '$deleteFromPrimitiveListmergingIntList': [1] }));
  t.equal(bad.code, 400);
  t.equal(bad.message, 'invalid patch format of primitive list');
});

t.test('$patch: delete removes list items by merge key, duplicates included', async (t) => {
  t.same(
    item(
      { mergingList: [{ name: '1' }, { name: '1' }, { name: '2', value: 'a' }, { name: '3' }, { name: '3' }] },
      { mergingList: [{ name: '1', $patch: 'delete' }, { name: '3', $patch: 'delete' }] },
    ),
    { mergingList: [{ name: '2', value: 'a' }] },
  );
  t.same(deploy({ spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'b' }] } } } }, { spec: { template: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } } } }), {
    spec: { template: { spec: { containers: [{ name: 'b' }] } } },
  });
  // deleting a missing item is not an error
  t.same(item({ mergingList: [{ name: '1' }] }, { mergingList: [{ name: '9', $patch: 'delete' }] }), { mergingList: [{ name: '1' }] });
  // a list the original does not have: directive items vanish (kube's "nested patch merge with empty list")
  t.same(item({ name: 'hi' }, { mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] }), { name: 'hi', mergingList: [{ name: 'hello' }] });
});

t.test('$patch: replace and delete on maps and lists', async (t) => {
  t.same(item({ mergingList: [{ name: '1' }, { name: '2' }] }, { mergingList: [{ $patch: 'replace' }] }), { mergingList: [] });
  t.same(item({ mergingList: [{ name: '1', value: 'x' }, { name: '2' }] }, { mergingList: [{ $patch: 'replace' }, { name: '3' }, { name: '1' }] }), {
    mergingList: [{ name: '3' }, { name: '1' }],
  });
  t.same(item({ name: '1', value: '1' }, { $patch: 'replace' }), {});
  t.same(item({ name: '1', value: '1' }, { other: 'a', $patch: 'replace' }), { other: 'a' });
  t.same(item({ simpleMap: { key1: '1', key2: '1' } }, { simpleMap: { $patch: 'delete' } }), { simpleMap: {} });
  t.same(item({ name: 'x' }, { simpleMap: { $patch: 'delete' } }), { name: 'x' });
  const merge = failure(() => item({ mergingList: [{ name: '1' }] }, { mergingList: [{ $patch: 'merge' }] }));
  t.equal(merge.code, 500);
  t.equal(merge.status.reason, undefined);
  t.equal(merge.message, 'merging lists cannot yet be specified in the patch');
  const unknown = failure(() => item({ simpleMap: { a: '1' } }, { simpleMap: { $patch: 'merge' } }));
  t.equal(unknown.code, 500);
  t.equal(unknown.message, 'unknown patch type: merge in map: map[$patch:merge]');
});

t.test('a field with strategy replace is replaced whole', async (t) => {
  t.same(item({ replacingItem: { a: 1, b: { c: 2 } } }, { replacingItem: { b: { d: 3 } } }), { replacingItem: { b: { d: 3 } } });
});

t.test('$retainKeys clears fields not listed; the patch may only set listed fields', async (t) => {
  const doc = { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } } } };
  t.same(deploy(doc, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }), { spec: { strategy: { type: 'Recreate' } } });
  // without the directive a retainKeys field merges as usual
  t.same(item({ retainKeysMap: { name: 'foo' } }, { retainKeysMap: { value: 'bar' } }), { retainKeysMap: { name: 'foo', value: 'bar' } });
  t.same(item({ retainKeysMap: { name: 'foo', value: 'a' } }, { retainKeysMap: { value: null } }), { retainKeysMap: { name: 'foo' } });
  const bad = failure(() => deploy(doc, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } }));
  t.equal(bad.code, 400);
  t.equal(bad.status.reason, 'BadRequest');
  t.equal(bad.message, 'invalid patch format of retainKeys');
  t.equal(failure(() => deploy(doc, { spec: { strategy: { $retainKeys: 'type' } } })).message, 'invalid patch format of retainKeys');
  // in list items of a merge,retainKeys list (volumes)
  const vols = { spec: { template: { spec: { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] } } } };
  t.same(deploy(vols, { spec: { template: { spec: { volumes: [{ name: 'v', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] } } } }), {
    spec: { template: { spec: { volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', emptyDir: {} }] } } },
  });
});

t.test('$setElementOrder orders merged lists, keeping server-only items in place', async (t) => {
  // kube's "set elements order in a list with server-only items" (three-way)
  const current = { mergingList: [{ name: '1', other: 'a' }, { name: '3', value: '3' }, { name: '4', value: '4' }, { name: '2', value: '2' }, { name: '9' }] };
  t.same(item(current, { '$setElementOrder/mergingList': [{ name: '4' }, { name: '2' }, { name: '3' }, { name: '1' }] }), {
    mergingList: [{ name: '4', value: '4' }, { name: '2', value: '2' }, { name: '3', value: '3' }, { name: '1', other: 'a' }, { name: '9' }],
  });
  // "... server-only items 3"
  const current3 = {
    mergingList: [{ name: '1', other: 'a' }, { name: '2', value: '2' }, { name: '7' }, { name: '9' }, { name: '8' }, { name: '3', value: '3' }, { name: '4', value: '4' }],
  };
  t.same(item(current3, { '$setElementOrder/mergingList': [{ name: '2' }, { name: '1' }, { name: '4' }, { name: '3' }] }).mergingList, [
    { name: '2', value: '2' },
    { name: '1', other: 'a' },
    { name: '7' },
    { name: '9' },
    { name: '8' },
    { name: '4', value: '4' },
    { name: '3', value: '3' },
  ]);
  // "nested patch merge with empty list" (three-way result)
  t.same(item({ name: 'hi', mergingList: [{ name: 'hello2' }] }, { '$setElementOrder/mergingList': [{ name: 'hello' }, { name: 'doesntexist' }], mergingList: [{ name: 'hello' }] }), {
    name: 'hi',
    mergingList: [{ name: 'hello' }, { name: 'hello2' }],
  });
  // duplicates keep their relative order ("behavior of set element order for a merging list with duplicate")
  const dup = { mergingList: [{ name: '1' }, { name: '2', value: 'dup1' }, { name: '3' }, { name: '2', value: 'dup2' }, { name: '4' }] };
  t.same(item(dup, { '$setElementOrder/mergingList': [{ name: '2' }, { name: '1' }, { name: '4' }, { name: '3' }, { name: '2' }] }).mergingList, [
    { name: '2', value: 'dup1' },
    { name: '2', value: 'dup2' },
    { name: '1' },
    { name: '4' },
    { name: '3' },
  ]);
  // items of the order list that do not exist are ignored
  t.same(item({ mergingIntList: [1, 3] }, { '$setElementOrder/mergingIntList': [3, 2, 1] }), { mergingIntList: [3, 1] });
});

t.test('$setElementOrder must agree with the patch list', async (t) => {
  const err = failure(() =>
    item(
      { mergingList: [{ name: '1' }, { name: '3' }, { name: '2' }] },
      { '$setElementOrder/mergingList': [{ name: '1' }, { name: '2' }, { name: '3' }], mergingList: [{ name: '3', value: '3' }, { name: '1', value: '1' }] },
    ),
  );
  t.equal(err.code, 500);
  t.match(err.message, /doesn't match \$setElementOrder list/);
  t.equal(failure(() => item({}, { '$setElementOrderX': [] })).message, 'invalid patch format of setElementOrder list');
});

t.test('a merge key missing from a patch item is an error', async (t) => {
  const err = failure(() => item({ mergingList: [{ name: '1', value: 'a' }] }, { mergingList: [{ value: 'b' }] }));
  t.equal(err.code, 500);
  t.equal(err.message, 'map: map[value:b] does not contain declared merge key: name');
});

t.test('lists of lists are a 422', async (t) => {
  const err = failure(() => item({ mergingIntList: [[1]] }, { mergingIntList: [[2]] }));
  t.equal(err.code, 422);
  t.equal(err.status.reason, 'Invalid');
});

t.test('without a schema node a path behaves like a JSON merge patch', async (t) => {
  t.same(item({ unknown: { list: [1, 2], m: { a: 1 } } }, { unknown: { list: [3], m: { b: 2 } } }), { unknown: { list: [3], m: { a: 1, b: 2 } } });
  const noSchema = applyStrategicMergePatch({ a: [{ name: 'x', v: 1 }] } as KubeObject, '{"a":[{"name":"y"}]}', { definitions: {}, root: 'missing' });
  t.same(noSchema, { a: [{ name: 'y' }] });
});

t.test('a body that is not a JSON object is a 400 with Go decoding text', async (t) => {
  const cases: Array<[string, string]> = [
    ['[]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['"x"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['{', 'unexpected end of JSON input'],
    ['{"a":}', "invalid character '}' looking for beginning of value"],
  ];
  for (const [body, message] of cases) {
    const err = failure(() => applyStrategicMergePatch({} as KubeObject, body, mergeItemSchema));
    t.equal(err.code, 400, body);
    t.equal(err.status.reason, 'BadRequest', body);
    t.equal(err.message, message, body);
  }
});

t.test('deep nesting is refused with a 400, not a crash', async (t) => {
  const deep = '{"a":'.repeat(20000) + '1' + '}'.repeat(20000);
  const err = failure(() => applyStrategicMergePatch({} as KubeObject, deep, mergeItemSchema));
  t.equal(err.code, 400);
  t.equal(err.message, "invalid character '{' exceeded max depth");
  // within Go's limit but deep: either applied or a 400, never a crash
  const ok = '{"a":'.repeat(9000) + '1' + '}'.repeat(9000);
  try {
    const out = applyStrategicMergePatch({} as KubeObject, ok, mergeItemSchema);
    t.ok(out.a);
  } catch (e) {
    t.ok(e instanceof ApiError && e.code === 400);
  }
});

t.test('kubectl apply of a Deployment: image changes and a port is added', async (t) => {
  const live = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"old":true}' } },
    spec: {
      replicas: 2,
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.0',
              imagePullPolicy: 'IfNotPresent',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [{ name: 'A', value: '1' }],
            },
            { name: 'sidecar', image: 'envoy' },
          ],
        },
      },
    },
  };
  // what kubectl 1.32 apply sends (CreateThreeWayMergePatch with $setElementOrder)
  const patch = {
    metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}' } },
    spec: {
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'web' }],
          containers: [
            {
              '$setElementOrder/ports': [{ containerPort: 80 }, { containerPort: 443 }],
              image: 'nginx:1.1',
              name: 'web',
              ports: [{ containerPort: 443 }],
            },
          ],
        },
      },
    },
  };
  const out = deploy(live, patch);
  t.same(out, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}' } },
    spec: {
      replicas: 2,
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.1',
              imagePullPolicy: 'IfNotPresent',
              ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }],
              env: [{ name: 'A', value: '1' }],
            },
            { name: 'sidecar', image: 'envoy' },
          ],
        },
      },
    },
  });
  t.same(
    out.spec && (out.spec as { template: { spec: { containers: { ports?: unknown[] }[] } } }).template.spec.containers[0].ports,
    [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443 }],
  );
  // no directive keys leak into the result
  t.notMatch(JSON.stringify(out), /\$setElementOrder|\$patch|\$retainKeys/);
});

t.test('a new list item is added without directive keys and env merges by name', async (t) => {
  const live = { spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '1' }, { name: 'Y', value: '2' }] }] } } } };
  const out = deploy(live, {
    spec: {
      template: {
        spec: {
          containers: [
            { name: 'a', env: [{ name: 'Y', value: '3' }, { name: 'X', $patch: 'delete' }] },
            { name: 'b', image: 'busybox', '$setElementOrder/env': [] },
          ],
        },
      },
    },
  });
  t.same(out, { spec: { template: { spec: { containers: [{ name: 'a', env: [{ name: 'Y', value: '3' }] }, { name: 'b', image: 'busybox' }] } } } });
});
