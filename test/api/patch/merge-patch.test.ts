import t from 'tap';
import { ApiError } from '../../../src/api/errors';
import type { KubeObject } from '../../../src/api/kind';
import { applyMergePatch } from '../../../src/api/patch/merge-patch';

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

t.test('RFC 7386: maps merge, null deletes, lists and scalars replace', async (t) => {
  const doc = { metadata: { name: 'a', labels: { app: 'web', tier: 'x' } }, spec: { list: [1, 2], n: 1, obj: { a: 1 } } } as KubeObject;
  const out = applyMergePatch(doc, JSON.stringify({ metadata: { labels: { tier: null, team: 't' } }, spec: { list: [3], n: null, obj: 'now-a-string' } }));
  t.same(out, { metadata: { name: 'a', labels: { app: 'web', team: 't' } }, spec: { list: [3], obj: 'now-a-string' } });
  t.same(doc.spec, { list: [1, 2], n: 1, obj: { a: 1 } }, 'input untouched');
});

t.test('nulls inside newly added maps are dropped; null list elements stay', async (t) => {
  const out = applyMergePatch({ spec: {} } as KubeObject, JSON.stringify({ spec: { added: { a: null, b: { c: null, d: 1 } }, l: [null, { x: null, y: 1 }] } }));
  t.same(out, { spec: { added: { b: { d: 1 } }, l: [null, { y: 1 }] } });
});

t.test('a map replacing a scalar loses its nulls; a value over null is placed whole', async (t) => {
  t.same(applyMergePatch({ a: 1, b: null } as KubeObject, '{"a":{"x":null,"y":2},"b":{"z":null}}'), { a: { y: 2 }, b: {} });
});

t.test('invalid bodies are 400 Invalid JSON Patch', async (t) => {
  for (const body of ['{', 'null', '"x"', '3', 'true']) {
    const err = failure(() => applyMergePatch({} as KubeObject, body));
    t.equal(err.code, 400, body);
    t.equal(err.status.reason, 'BadRequest', body);
    t.equal(err.message, 'Invalid JSON Patch', body);
  }
});

t.test('an array replaces the object, which kube then cannot decode: 422', async (t) => {
  const err = failure(() => applyMergePatch({} as KubeObject, '[1]'));
  t.equal(err.code, 422);
  t.equal(err.status.reason, 'Invalid');
  t.match(err.message, /^ "" is invalid: patch: Invalid value: "\[1\]": couldn't get version\/kind/);
  t.equal(err.status.details?.causes?.[0].field, 'patch');
});
