import t from 'tap';
import { errors } from '../../src/api/errors';
import { startTestServer, getJson } from './helpers';

const NS = '/apis/test.ballast.io/v1/namespaces/ns1/widgets';

t.test('a thrown ApiError is written as its Status with its code', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const cases = [
    errors.notFound({ group: 'test.ballast.io', resource: 'widgets' }, 'w1'),
    errors.conflict({ group: 'test.ballast.io', resource: 'widgets' }, 'w1', 'the object has been modified; please apply your changes to the latest version and try again'),
    errors.invalid('Widget', 'test.ballast.io', 'w1', [{ field: 'spec.size', message: 'Invalid value: -1: must be positive', reason: 'FieldValueInvalid' }]),
    errors.gone('too old resource version: 1 (40)'),
    errors.expired('The provided continue parameter is too old', 'fresh-token'),
  ];
  for (const e of cases) {
    s.registry.failures.set('get', e);
    const r = await getJson(`${s.url}${NS}/w1`);
    t.equal(r.status, e.code, e.message);
    t.equal(r.headers.get('content-type'), 'application/json');
    t.same(r.body, e.status);
  }
});

t.test('Retry-After follows the Status details', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  s.registry.failures.set('list', errors.tooLargeResourceVersion(100, 50));
  const r = await getJson(`${s.url}${NS}?resourceVersion=100`);
  t.equal(r.status, 504);
  t.equal(r.headers.get('retry-after'), '1');
  t.equal(r.body.message, 'Too large resource version: 100, current: 50');
});

t.test('an unexpected error is a logged 500 InternalError Status', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  s.registry.failures.set('create', new TypeError('cannot read properties of undefined'));
  const r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
  t.equal(r.status, 500);
  t.same(r.body, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Internal error occurred: cannot read properties of undefined',
    reason: 'InternalError',
    details: { causes: [{ message: 'cannot read properties of undefined' }] },
    code: 500,
  });
  const logged = s.logs.find((l) => l.msg === 'unexpected error while serving request');
  t.ok(logged, 'the error is logged');
  t.match(logged, { level: 50, err: { type: 'TypeError', message: 'cannot read properties of undefined' } });
});

t.test('one log line per request with verb, path, code, latency and user agent', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const res = await fetch(`${s.url}${NS}?limit=5`, { headers: { 'User-Agent': 'kubectl/v1.32.5', 'Audit-ID': 'req-123' } });
  t.equal(res.headers.get('audit-id'), 'req-123');
  const other = await fetch(`${s.url}/version`);
  t.match(other.headers.get('audit-id'), /^[0-9a-f-]{36}$/, 'a fresh id when none is given');
  const lines = s.logs.filter((l) => l.msg === 'HTTP');
  t.equal(lines.length, 2);
  t.match(lines[0], { auditID: 'req-123', verb: 'list', method: 'GET', uri: `${NS}?limit=5`, code: 200, userAgent: 'kubectl/v1.32.5', level: 20 });
  t.type(lines[0].latencyMs, 'number');
  t.match(lines[1], { verb: 'get', uri: '/version', code: 200 });
});

t.test('over --max-requests-inflight: 429 TooManyRequests with Retry-After', async (t) => {
  const s = await startTestServer({ options: { maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 } });
  t.teardown(() => s.close());
  s.registry.delayMs = 300;
  const slow = fetch(`${s.url}${NS}`);
  await new Promise((r) => setTimeout(r, 50));
  const r = await getJson(`${s.url}${NS}/a`);
  t.equal(r.status, 429);
  t.equal(r.headers.get('retry-after'), '1');
  t.match(r.body, { kind: 'Status', reason: 'TooManyRequests', code: 429, message: 'Too many requests, please try again later.' });
  const write = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } });
  t.equal(write.status, 201, 'mutating requests have their own limit');
  const health = await fetch(`${s.url}/readyz`);
  t.equal(health.status, 200, 'health probes are exempt');
  t.equal((await slow).status, 200);
  t.equal((await getJson(`${s.url}${NS}/a`)).status, 200, 'a slot is free again');
});

t.test('--request-timeout: 504 Timeout; ?timeout= can only shorten it', async (t) => {
  const s = await startTestServer({ options: { requestTimeoutSeconds: 1 } });
  t.teardown(() => s.close());
  s.registry.delayMs = 1500;
  let started = Date.now();
  let r = await getJson(`${s.url}${NS}`);
  t.equal(r.status, 504);
  t.match(r.body, { reason: 'Timeout', message: 'Timeout: request did not complete within requested timeout - context deadline exceeded' });
  t.ok(Date.now() - started < 1400, 'answered at the timeout');
  started = Date.now();
  r = await getJson(`${s.url}${NS}?timeout=200ms`);
  t.equal(r.status, 504);
  t.ok(Date.now() - started < 900, 'the shorter timeout applies');
  r = await getJson(`${s.url}${NS}?timeout=5`);
  t.equal(r.status, 400);
  t.match(r.body.message, /invalid timeout specified in the request URL/);
  s.registry.delayMs = 0;
  r = await getJson(`${s.url}${NS}?timeout=32s`);
  t.equal(r.status, 200);
});
