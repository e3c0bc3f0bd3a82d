import t from 'tap';
import { jsonDuplicateFields, yamlStrictErrors } from '../../src/http/codecs/duplicate-fields';
import { startRealServer } from './server';

t.test('jsonDuplicateFields: kube field paths of repeated keys, in document order', async (t) => {
  t.same(jsonDuplicateFields('{"a":1,"b":{"c":1}}'), []);
  t.same(jsonDuplicateFields('{"metadata":{"name":"a","name":"b"}}'), ['metadata.name']);
  t.same(
    jsonDuplicateFields('{"spec":{"template":{"spec":{"containers":[{"name":"a"},{"name":"b","image":"x","image":"y"}]}}},"spec":1}'),
    ['spec.template.spec.containers[1].image', 'spec'],
  );
  t.same(jsonDuplicateFields('[{"a":1,"a":2},[],{},{"b":"}\\"","b":[1,{"c":{}}]}]'), ['[0].a', '[3].b']);
  t.same(jsonDuplicateFields('{"k\\u0065y":1,"key":2, "x" : [ 1 , true , null ] }'), ['key'], 'escaped keys compare by value');
  t.same(jsonDuplicateFields('{"":1,"":2}'), ['']);
  // iterative: a deeply nested body cannot overflow the stack
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  t.same(jsonDuplicateFields(deep), []);
});

t.test('yamlStrictErrors: one message naming each repeated key by line, as the strict YAML decoder does', async (t) => {
  t.same(yamlStrictErrors('a: 1\nb: 2\n'), []);
  t.same(yamlStrictErrors('metadata:\n  name: a\n  name: b\nspec:\n  x: 1\n  x: 2\n'), [
    'yaml: unmarshal errors:\n  line 3: key "name" already set in map\n  line 6: key "x" already set in map',
  ]);
  t.same(yamlStrictErrors('a: [1\n'), [], 'syntax errors are the decoder\'s business');
});

const deployment = (name: string, extra = '') =>
  `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"first","name":"${name}"},"spec":{"replicas":1,${extra}"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`;

t.test('over HTTP: duplicate and unknown fields follow fieldValidation, in one strict error', async (t) => {
  const s = await startRealServer();
  t.teardown(() => s.close());
  const post = (query: string, body: string, contentType = 'application/json') =>
    fetch(`${s.url}/apis/apps/v1/namespaces/default/deployments${query}`, { method: 'POST', headers: { 'Content-Type': contentType }, body });

  const strict = await post('?fieldValidation=Strict', deployment('a', '"foo":1,'));
  t.equal(strict.status, 400);
  const status = (await strict.json()) as { reason: string; message: string };
  t.equal(status.reason, 'BadRequest');
  t.match(status.message, /strict decoding error: duplicate field "metadata.name", unknown field "spec.foo"$/);

  const warn = await post('?fieldValidation=Warn', deployment('b', '"foo":1,'));
  t.equal(warn.status, 201);
  t.equal(warn.headers.get('warning'), '299 - "duplicate field \\"metadata.name\\"", 299 - "unknown field \\"spec.foo\\""');
  const created = (await warn.json()) as { metadata: { name: string }; spec: Record<string, unknown> };
  t.equal(created.metadata.name, 'b', 'the last of repeated keys wins, as in Go');
  t.equal(created.spec.foo, undefined);

  const byDefault = await post('', deployment('c'));
  t.equal(byDefault.status, 201, 'Warn is the default for create, as in kube 1.27+');
  t.equal(byDefault.headers.get('warning'), '299 - "duplicate field \\"metadata.name\\""');
  await byDefault.arrayBuffer();

  const ignore = await post('?fieldValidation=Ignore', deployment('d'));
  t.equal(ignore.status, 201);
  t.equal(ignore.headers.get('warning'), null);
  await ignore.arrayBuffer();

  const yaml = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: e\n  name: f\nspec:\n  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n    spec:\n      containers: [{name: c, image: nginx}]\n';
  const yamlStrict = await post('?fieldValidation=Strict', yaml, 'application/yaml');
  t.equal(yamlStrict.status, 400);
  t.match(((await yamlStrict.json()) as { message: string }).message, /strict decoding error: yaml: unmarshal errors:\n {2}line 5: key "name" already set in map$/);
  const yamlWarn = await post('', yaml, 'application/yaml');
  t.equal(yamlWarn.status, 201);
  t.equal(((await yamlWarn.json()) as { metadata: { name: string } }).metadata.name, 'f');
  t.match(yamlWarn.headers.get('warning'), /^299 - "yaml: unmarshal errors: +line 5: key \\"name\\" already set in map"$/);

  const patch = (query: string, body: string) =>
    fetch(`${s.url}/apis/apps/v1/namespaces/default/deployments/b${query}`, { method: 'PATCH', headers: { 'Content-Type': 'application/merge-patch+json' }, body });
  const patchStrict = await patch('?fieldValidation=Strict', '{"spec":{"replicas":2,"replicas":3,"bogus":1}}');
  t.equal(patchStrict.status, 400);
  t.match(((await patchStrict.json()) as { message: string }).message, /strict decoding error: duplicate field "spec.replicas", unknown field "spec.bogus"$/);
  const patchWarn = await patch('', '{"spec":{"replicas":2,"replicas":3}}');
  t.equal(patchWarn.status, 200);
  t.equal(patchWarn.headers.get('warning'), '299 - "duplicate field \\"spec.replicas\\""');
  t.equal(((await patchWarn.json()) as { spec: { replicas: number } }).spec.replicas, 3);
});
