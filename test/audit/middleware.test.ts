/** The audit middleware in a small Koa app: stages, bodies, decisions, impersonation, Panic, 401, blocking-strict. */
import http from 'node:http';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import { errors } from '../../src/api/errors';
import type { Authorizer } from '../../src/api/reviews/authorizer';
import { parsePolicy } from '../../src/audit/policy';
import type { AuditBackend, AuditEvent } from '../../src/audit/types';
import type { ApiState } from '../../src/http/context';
import { createAuditing } from '../../src/http/middleware/audit';
import { authorization } from '../../src/http/middleware/authorization';
import { errorStatus } from '../../src/http/middleware/error-status';
import { parseRequestInfo } from '../../src/http/request-info';
import { readBody } from '../../src/http/body';

const policy = parsePolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
omitManagedFields: true
rules:
- level: None
  users: [quiet]
- level: RequestResponse
`);

/** bob may do anything but delete */
const authz: Authorizer = {
  async authorize(a) {
    return a.verb === 'delete' ? { allowed: false, reason: 'deletes are not allowed' } : { allowed: true, reason: 'bob may' };
  },
};

async function serve(t: Test, backend: AuditBackend): Promise<string> {
  const auditing = createAuditing({ policy, backend });
  const app = new Koa<ApiState>();
  app.silent = true;
  app.use(async (ctx, next) => {
    const url = new URL(ctx.url, 'http://x');
    ctx.state.requestId = 'req-1';
    ctx.state.log = pino({ level: 'silent' });
    ctx.state.query = url.searchParams;
    ctx.state.info = parseRequestInfo(ctx.method, url.pathname, url.searchParams);
    await next();
  });
  app.use(errorStatus());
  app.use(auditing.failedAuthentication);
  app.use(async (ctx, next) => {
    const name = ctx.get('X-User');
    if (!name) throw errors.unauthorized();
    ctx.state.user = { name, groups: ['system:authenticated'] };
    await next();
  });
  app.use(auditing.audit);
  app.use(async (ctx, next) => {
    const as = ctx.get('Impersonate-User');
    if (as) ctx.state.user = { name: as, groups: ['impersonated'] };
    await next();
  });
  app.use(authorization(auditing.recordDecisions(authz)));
  app.use(async (ctx) => {
    if (ctx.path.endsWith('/boom')) throw new Error('boom');
    if (ctx.method === 'GET' && ctx.path.endsWith('/configmaps')) {
      // a list streamed in chunks, as the JSON codec writes long lists
      ctx.type = 'application/json';
      ctx.body = Readable.from([Buffer.from('{"kind":"ConfigMapList","apiVersion":"v1",'), Buffer.from('"metadata":{"resourceVersion":"5"},"items":[]}')]);
      return;
    }
    if (ctx.method === 'POST') {
      const body = JSON.parse((await readBody(ctx.req, 1 << 20)).toString());
      ctx.status = 201;
      ctx.type = 'application/json';
      ctx.body = JSON.stringify({ ...body, metadata: { ...body.metadata, uid: 'u-1', resourceVersion: '7', managedFields: [{ manager: 'm' }] } });
      return;
    }
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', uid: 'u-2', resourceVersion: '9' } });
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function recorder(): { backend: AuditBackend; events: AuditEvent[] } {
  const events: AuditEvent[] = [];
  return { events, backend: { processEvents: async (evs) => (events.push(...evs), true), shutdown: async () => {} } };
}

t.test('stages, bodies, objectRef from the objects, decision annotations, omitManagedFields', async (t) => {
  const r = recorder();
  const url = await serve(t, r.backend);
  const res = await fetch(`${url}/api/v1/namespaces/ns/configmaps`, {
    method: 'POST', headers: { 'X-User': 'bob', 'Content-Type': 'application/json', 'User-Agent': 'tester/1', 'X-Forwarded-For': '10.1.1.1' },
    body: JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'made', managedFields: [{ manager: 'x' }] } }),
  });
  t.equal(res.status, 201);
  t.same(r.events.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  const done = r.events[1];
  t.match(done, {
    level: 'RequestResponse', auditID: 'req-1', verb: 'create', requestURI: '/api/v1/namespaces/ns/configmaps', userAgent: 'tester/1',
    sourceIPs: ['10.1.1.1', '127.0.0.1'], user: { username: 'bob', groups: ['system:authenticated'] },
    objectRef: { resource: 'configmaps', namespace: 'ns', name: 'made', apiVersion: 'v1', uid: 'u-1', resourceVersion: '7' },
    responseStatus: { metadata: {}, code: 201 },
    annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': 'bob may' },
  });
  t.same((done.requestObject as { metadata: unknown }).metadata, { name: 'made' }, 'managedFields omitted from the request');
  t.equal((done.responseObject as { metadata: { managedFields?: unknown } }).metadata.managedFields, undefined, 'and from the response');
  t.equal(done.impersonatedUser, undefined);
});

t.test('403 carries the forbid decision; impersonation is the impersonatedUser', async (t) => {
  const r = recorder();
  const url = await serve(t, r.backend);
  const res = await fetch(`${url}/api/v1/namespaces/ns/configmaps/x`, { method: 'DELETE', headers: { 'X-User': 'bob', 'Impersonate-User': 'carol' } });
  t.equal(res.status, 403);
  const done = r.events.find((e) => e.stage === 'ResponseComplete')!;
  t.match(done, {
    user: { username: 'bob' }, impersonatedUser: { username: 'carol', groups: ['impersonated'] },
    responseStatus: { code: 403, status: 'Failure', reason: 'Forbidden' },
    annotations: { 'authorization.k8s.io/decision': 'forbid', 'authorization.k8s.io/reason': 'deletes are not allowed' },
    responseObject: { kind: 'Status', code: 403 },
  });
  t.match(done.responseStatus?.message, /User "carol" cannot delete resource "configmaps"/);
});

t.test('an unexpected error is the Panic stage; a quiet user is not audited', async (t) => {
  const r = recorder();
  const url = await serve(t, r.backend);
  t.equal((await fetch(`${url}/api/v1/namespaces/ns/configmaps/boom`, { headers: { 'X-User': 'bob' } })).status, 500);
  t.match(r.events.at(-1), { stage: 'Panic', responseStatus: { code: 500, message: "APIServer panic'd: boom" } });
  const before = r.events.length;
  t.equal((await fetch(`${url}/api/v1/namespaces/ns/configmaps/x`, { headers: { 'X-User': 'quiet' } })).status, 200);
  t.equal(r.events.length, before, 'level None');
});

t.test("401: kube's failed-authentication event", async (t) => {
  const r = recorder();
  const url = await serve(t, r.backend);
  t.equal((await fetch(`${url}/apis/apps/v1/deployments`, { headers: { Authorization: 'Bearer nope' } })).status, 401);
  t.equal(r.events.length, 1);
  t.match(r.events[0], { stage: 'ResponseStarted', verb: 'list', user: {}, objectRef: { resource: 'deployments', apiGroup: 'apps', apiVersion: 'v1' }, responseStatus: { code: 401, message: 'Authentication failed, attempted: bearer' } });
  await fetch(`${url}/version`);
  t.match(r.events[1], { requestURI: '/version', responseStatus: { message: 'Authentication failed, no credentials provided' } });
});

t.test('blocking-strict: a lost RequestReceived event fails the request', async (t) => {
  let calls = 0;
  const url = await serve(t, { processEvents: async () => (calls++, false), shutdown: async () => {} });
  const res = await fetch(`${url}/api/v1/namespaces/ns/configmaps/x`, { headers: { 'X-User': 'bob' } });
  t.equal(res.status, 500);
  t.equal(await res.text(), 'Internal Server Error: "/api/v1/namespaces/ns/configmaps/x": failed to store audit event\n');
  t.equal(calls, 1, 'the request was not served');
});

t.test('a streamed list reaches the client whole and the event carries it', async (t) => {
  const r = recorder();
  const url = await serve(t, r.backend);
  const res = await fetch(`${url}/api/v1/namespaces/ns/configmaps`, { headers: { 'X-User': 'bob' } });
  t.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  t.same(await res.json(), { kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [] });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const done = r.events.find((e) => e.stage === 'ResponseComplete');
  t.match(done, { verb: 'list', responseStatus: { code: 200 }, responseObject: { kind: 'ConfigMapList', items: [] } });
  t.equal(done?.objectRef?.resourceVersion, undefined, 'a list names no one object');
});
