import http from 'node:http';
import t from 'tap';
import { startTestServer, getJson } from './helpers';

const NS = '/apis/test.ballast.io/v1/namespaces/ns1/widgets';

t.test('JSON and YAML bodies decode to the same object; apiVersion and kind are filled in', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{"metadata":{"name":"x"},"spec":{"size":2}}', headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 201);
  t.same(s.registry.lastCall().body, { apiVersion: 'test.ballast.io/v1', kind: 'Widget', metadata: { name: 'x' }, spec: { size: 2 } });
  const yaml = 'apiVersion: test.ballast.io/v1\nkind: Widget\nmetadata:\n  name: x\n  creationTimestamp: 2024-01-01T00:00:00Z\nspec:\n  size: 2\n';
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: yaml, headers: { 'Content-Type': 'application/yaml' } });
  t.equal(r.status, 201);
  t.same(s.registry.lastCall().body, {
    apiVersion: 'test.ballast.io/v1',
    kind: 'Widget',
    metadata: { name: 'x', creationTimestamp: '2024-01-01T00:00:00Z' },
    spec: { size: 2 },
  });
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: Buffer.from('{"metadata":{"name":"y"}}') });
  t.equal(r.status, 201, 'no Content-Type means JSON');
  r = await getJson(`${s.url}${NS}/w1/scale`, { method: 'PUT', body: '{"spec":{"replicas":2}}', headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  t.same(s.registry.lastCall().body, { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 } }, 'scale bodies are autoscaling/v1 Scale');
});

t.test('malformed bodies and mismatched kinds are 400 BadRequest', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{"metadata":', headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 400);
  t.equal(r.body.reason, 'BadRequest');
  t.match(r.body.message, /^couldn't get version\/kind; json parse error: /);
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: 'metadata:\n  name: x\n bad: [', headers: { 'Content-Type': 'application/yaml' } });
  t.equal(r.status, 400);
  t.match(r.body.message, /^error converting YAML to JSON: yaml: line \d+: /);
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '[1,2]', headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 400);
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{"apiVersion":"apps/v1","kind":"Widget"}', headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 400);
  t.equal(r.body.message, 'the API version in the data (apps/v1) does not match the expected API version (test.ballast.io/v1)');
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{"apiVersion":"test.ballast.io/v1","kind":"Gizmo"}', headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 400);
  t.match(r.body.message, /kind in the data \(Gizmo\)/);
  r = await getJson(`${s.url}${NS}/w1`, { method: 'PATCH', body: '', headers: { 'Content-Type': 'application/merge-patch+json' } });
  t.equal(r.status, 400);
  t.equal(s.registry.calls.length, 0);
});

t.test('unsupported request media types are 415 (protobuf for a kind without a protobuf message)', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}`, { method: 'POST', body: 'k8s\0...', headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' } });
  t.equal(r.status, 415);
  t.equal(r.body.reason, 'UnsupportedMediaType');
  t.equal(r.body.message, 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } });
  t.equal(r.status, 415);
  r = await getJson(`${s.url}${NS}/w1`, { method: 'PATCH', body: '{}', headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 415);
  t.equal(
    r.body.message,
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
  );
  t.equal(s.registry.calls.length, 0);
});

t.test('bodies over maxRequestBodyBytes are 413, checked while streaming', async (t) => {
  const s = await startTestServer({ options: { maxRequestBodyBytes: 1024 } });
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}`, { method: 'POST', body: JSON.stringify({ data: 'x'.repeat(2000) }), headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 413, 'declared Content-Length over the limit');
  t.equal(r.body.reason, 'RequestEntityTooLarge');
  t.equal(r.body.message, 'Request entity too large: limit is 1024');
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: JSON.stringify({ data: 'x'.repeat(900) }), headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 201, 'under the limit is fine');

  // chunked upload without Content-Length: the limit is enforced on the bytes as they arrive
  const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
    const req = http.request(`${s.url}${NS}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ code: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.write('{"data":"');
    for (let i = 0; i < 4; i++) req.write('y'.repeat(512));
    req.end('"}');
  });
  t.equal(status.code, 413);
  t.match(JSON.parse(status.body), { reason: 'RequestEntityTooLarge' });
  t.equal(s.registry.calls.filter((c) => c.verb === 'create').length, 1, 'only the small body reached the registry');
});

t.test('Accept negotiation: JSON, YAML, protobuf with a JSON fallback, 406 otherwise', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}/w1`, { headers: { Accept: 'application/json' } });
  t.equal(r.headers.get('content-type'), 'application/json');
  t.equal(r.body.metadata.name, 'a', 'the fake answers its first object');
  r = await getJson(`${s.url}${NS}/a`, { headers: { Accept: '*/*' } });
  t.equal(r.headers.get('content-type'), 'application/json');
  r = await getJson(`${s.url}${NS}/a`, { headers: { Accept: 'application/vnd.kubernetes.protobuf,application/json' } });
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'application/json', 'protobuf is skipped for the JSON fallback');
  r = await getJson(`${s.url}${NS}/a`, { headers: { Accept: 'application/yaml' } });
  t.equal(r.status, 200);
  t.equal(r.headers.get('content-type'), 'application/yaml');
  t.match(r.body, /^apiVersion: test\.ballast\.io\/v1\nkind: Widget\nmetadata:\n  name: a\n/);
  r = await getJson(`${s.url}${NS}/a`, { headers: { Accept: 'application/yaml;q=0.5, application/json' } });
  t.equal(r.headers.get('content-type'), 'application/json', 'q values order the clauses');
  for (const accept of ['text/html', 'application/json;as=Widget;g=x;v=v1']) {
    r = await getJson(`${s.url}${NS}/a`, { headers: { Accept: accept } });
    t.equal(r.status, 406, accept);
    t.equal(r.body.reason, 'NotAcceptable');
    t.equal(r.body.message, 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf');
  }
  // the fake Widget has no protobuf message, as kube's custom resources: protobuf alone is not acceptable for it
  r = await getJson(`${s.url}${NS}/a`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
  t.equal(r.status, 406);
  t.equal(r.body.message, 'only the following media types are accepted: application/json, application/yaml');
  const ac = new AbortController();
  const w = await fetch(`${s.url}${NS}?watch=true`, { headers: { Accept: 'application/yaml' }, signal: ac.signal });
  t.equal(w.status, 406, 'YAML cannot stream a watch');
  ac.abort();
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{}', headers: { Accept: 'text/html', 'Content-Type': 'application/json' } });
  t.equal(r.status, 406);
  t.equal(s.registry.calls.filter((c) => c.verb === 'create').length, 0, 'negotiation fails before the write');
});

t.test('pretty=true indents; compact output otherwise', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const compact = await (await fetch(`${s.url}${NS}/a`)).text();
  t.equal(compact, JSON.stringify(s.registry.objects[0]) + '\n');
  const pretty = await (await fetch(`${s.url}${NS}/a?pretty=true`)).text();
  t.equal(pretty, JSON.stringify(s.registry.objects[0], null, 2) + '\n');
  const curl = await (await fetch(`${s.url}${NS}/a`, { headers: { 'User-Agent': 'curl/8.0' } })).text();
  t.equal(curl, pretty, 'kube pretty-prints for curl');
  const notPretty = await (await fetch(`${s.url}${NS}/a?pretty=false`, { headers: { 'User-Agent': 'curl/8.0' } })).text();
  t.equal(notPretty, compact);
  const err = await (await fetch(`${s.url}/nope?pretty=true`)).text();
  t.match(err, /^\{\n  "kind": "Status",/);
});

t.test('write results: 201 when created, 200 otherwise, Warning headers', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  s.registry.created = false;
  s.registry.warnings = ['unknown field "spec.colour"', 'say "hi"'];
  const res = await fetch(`${s.url}${NS}/w1`, { method: 'PUT', body: '{"metadata":{"name":"w1"}}', headers: { 'Content-Type': 'application/json' } });
  t.equal(res.status, 200);
  t.equal(res.headers.get('warning'), '299 - "unknown field \\"spec.colour\\"", 299 - "say \\"hi\\""');
  const body = await res.json();
  t.equal(body.metadata.resourceVersion, '8');
});

t.test('a body nested deeper than the limit is a 400 BadRequest Status, found without recursion', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const depth = 200_000;
  const body = `{"apiVersion":"test.ballast.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":${'['.repeat(depth)}${']'.repeat(depth)}}`;
  const r = await getJson(`${s.url}${NS}`, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 400);
  t.equal(r.body.reason, 'BadRequest');
  t.match(r.body.message, /exceeded max depth of 1000/);
  const shallow = `{"apiVersion":"test.ballast.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":${'['.repeat(900)}${']'.repeat(900)}}`;
  const ok = await getJson(`${s.url}${NS}`, { method: 'POST', body: shallow, headers: { 'Content-Type': 'application/json' } });
  t.not(ok.status, 400, 'a body within the limit reaches the registry');
});
