import t from 'tap';
import { ApiError } from '../../../src/api/errors';
import type { KubeObject } from '../../../src/api/kind';
import { applyJsonPatch } from '../../../src/api/patch/json-patch';

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

const doc = (): KubeObject => ({ metadata: { name: 'a', labels: { app: 'web' } }, spec: { replicas: 1, list: ['x', 'y'] } });

t.test('RFC 6902 operations including test', async (t) => {
  const out = applyJsonPatch(
    doc(),
    JSON.stringify([
      { op: 'test', path: '/metadata/name', value: 'a' },
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'add', path: '/spec/list/-', value: 'z' },
      { op: 'remove', path: '/metadata/labels/app' },
      { op: 'copy', from: '/metadata/name', path: '/spec/copied' },
      { op: 'move', from: '/spec/list/0', path: '/spec/first' },
    ]),
  );
  t.same(out, { metadata: { name: 'a', labels: {} }, spec: { replicas: 3, list: ['y', 'z'], copied: 'a', first: 'x' } });
});

t.test('the input is not mutated', async (t) => {
  const input = doc();
  const before = JSON.stringify(input);
  applyJsonPatch(input, '[{"op":"replace","path":"/spec/replicas","value":5},{"op":"add","path":"/spec/list/0","value":"w"}]');
  t.equal(JSON.stringify(input), before);
});

t.test('null and [] are empty patches', async (t) => {
  t.same(applyJsonPatch(doc(), 'null'), doc());
  t.same(applyJsonPatch(doc(), '[]'), doc());
});

t.test('patches that do not apply are kube 422 Invalid with the generic message', async (t) => {
  for (const body of [
    '[{"op":"test","path":"/metadata/name","value":"b"}]',
    '[{"op":"remove","path":"/spec/missing"}]',
    '[{"op":"replace","path":"/spec/missing/deeper","value":1}]',
    '[{"op":"add","path":"/nope/x","value":1}]',
    '[{"op":"frobnicate","path":"/spec"}]',
    '[{"path":"/spec"}]',
    '[null]',
    '[{"op":"replace","path":"","value":[1]}]',
  ]) {
    const err = failure(() => applyJsonPatch(doc(), body));
    t.equal(err.code, 422, body);
    t.equal(err.status.reason, 'Invalid', body);
    t.equal(err.message, 'the server rejected our request due to an error in our request', body);
    t.same(err.status.details, {}, body);
  }
});

t.test('bodies that are not a JSON array of objects are 400 BadRequest', async (t) => {
  const cases: Array<[string, string]> = [
    ['{"op":"add"}', 'json: cannot unmarshal object into Go value of type jsonpatch.Patch'],
    ['[1]', 'json: cannot unmarshal number into Go value of type jsonpatch.Operation'],
    ['"x"', 'json: cannot unmarshal string into Go value of type jsonpatch.Patch'],
    ['[{', 'unexpected end of JSON input'],
    ['nope', "invalid character 'o' looking for beginning of value"],
  ];
  for (const [body, message] of cases) {
    const err = failure(() => applyJsonPatch(doc(), body));
    t.equal(err.code, 400, body);
    t.equal(err.status.reason, 'BadRequest', body);
    t.equal(err.message, message, body);
  }
});

t.test('more than 10000 operations is a 413', async (t) => {
  const ops = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/metadata/name', value: 'a' }));
  const err = failure(() => applyJsonPatch(doc(), JSON.stringify(ops)));
  t.equal(err.code, 413);
  t.equal(err.status.reason, 'RequestEntityTooLarge');
  t.equal(err.message, 'The allowed maximum operations in a JSON patch is 10000, got 10001');
  t.same(applyJsonPatch(doc(), JSON.stringify(ops.slice(0, 10000))), doc());
});
