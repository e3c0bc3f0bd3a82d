/**
 * Audit end to end: a server started with --audit-policy-file and --audit-log-path, driven by
 * kubectl 1.32, writes the events its policy asks for (levels, stages, bodies, users, objectRef,
 * response codes, a 404, a 401 from failed authentication); a webhook served by the test receives
 * EventList batches (batch and blocking modes); a bad policy stops start-up with one line.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { MAIN_JS, freePort, kubectlFor, missingKubectl, startApiServer, tempDir, waitFor } from './harness';

interface Ev {
  kind: string;
  apiVersion: string;
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: { username?: string; groups?: string[] };
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: Record<string, string>;
  responseStatus?: { code: number; status?: string; reason?: string; message?: string };
  requestObject?: Record<string, unknown>;
  responseObject?: Record<string, unknown>;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

const micro = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const policyYaml = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/readyz*", "/healthz*", "/livez*"]
- level: RequestResponse
  resources: [{group: "", resources: [configmaps]}]
  namespaces: [audited]
- level: Request
  resources: [{group: "", resources: [secrets]}]
  omitStages: [RequestReceived]
- level: Metadata
`;

t.test('the audit log follows the policy', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'audit');
  const policy = path.join(dir, 'policy.yaml');
  fs.writeFileSync(policy, policyYaml);
  const log = path.join(dir, 'audit.log');
  const server = await startApiServer(t, { args: ['--audit-policy-file', policy, '--audit-log-path', log] });
  const k = kubectlFor(t, '1.32', server);

  await k.ok(['create', 'namespace', 'audited']);
  await k.ok(['-n', 'audited', 'create', 'configmap', 'one', '--from-literal=a=b']);
  const cm = await k.json<{ metadata: { uid: string; resourceVersion: string } }>(['-n', 'audited', 'get', 'configmap', 'one', '-o', 'json']);
  await k.ok(['-n', 'audited', 'get', 'configmaps']);
  const notFound = await k.run(['-n', 'audited', 'get', 'configmap', 'missing']);
  t.not(notFound.code, 0);
  const watch = k.stream(['-n', 'audited', 'get', 'configmaps', '--watch', '-o', 'name']);
  await watch.waitForLine(/configmap\/one/);
  await watch.kill();
  await k.ok(['-n', 'audited', 'create', 'secret', 'generic', 's', '--from-literal=k=v']);
  await k.ok(['-n', 'audited', 'delete', 'configmap', 'one']);
  const old = missingKubectl('1.20') ? undefined : kubectlFor(t, '1.20', server);
  if (old) await old.ok(['-n', 'audited', 'create', 'configmap', 'older', '--from-literal=c=d']);
  const direct = await server.request('GET', '/api/v1/namespaces/audited/secrets/s');
  const refused = await server.requestWithoutCert('GET', '/api/v1/namespaces', undefined, { authorization: 'Bearer nobody' });
  t.equal(refused.status, 401);
  // the watch's ResponseComplete is written when the server notices kubectl left
  await waitFor('the watch to complete', () => fs.readFileSync(log, 'utf8').split('\n').some((l) => l.includes('"verb":"watch"') && l.includes('"stage":"ResponseComplete"')));

  const lines = fs.readFileSync(log, 'utf8').split('\n').filter((l) => l !== '');
  const events = lines.map((l) => JSON.parse(l) as Ev);
  for (const e of events) {
    t.equal(e.kind, 'Event');
    t.equal(e.apiVersion, 'audit.k8s.io/v1');
    t.match(e.requestReceivedTimestamp, micro);
    t.match(e.stageTimestamp, micro);
    t.ok(e.auditID, 'every event has an audit ID');
  }
  t.notOk(events.some((e) => e.requestURI.startsWith('/readyz')), 'level None: /readyz is not audited');
  t.notOk(events.some((e) => e.responseStatus?.code === 403), 'nothing was forbidden');
  const find = (verb: string, resource: string, name?: string) =>
    events.filter((e) => e.verb === verb && e.objectRef?.resource === resource && (name === undefined || e.objectRef?.name === name));

  // create configmap: RequestResponse, both stages, both bodies
  const createdID = find('create', 'configmaps', 'one')[0]?.auditID;
  // the RequestReceived event precedes the body, so it names no object yet (kube alike)
  const created = events.filter((e) => e.auditID === createdID);
  t.same(created.map((e) => e.stage), ['RequestReceived', 'ResponseComplete']);
  const done = created[1];
  t.equal(done.level, 'RequestResponse');
  t.equal(done.user.username, 'ballast-admin');
  t.ok(done.user.groups?.includes('system:masters'));
  t.match(done.userAgent, /^kubectl/);
  t.ok(done.sourceIPs?.includes('127.0.0.1'));
  t.match(done.objectRef, { resource: 'configmaps', namespace: 'audited', name: 'one', apiVersion: 'v1', uid: cm.metadata.uid });
  t.equal(done.responseStatus?.code, 201);
  t.match(done.requestObject, { kind: 'ConfigMap', data: { a: 'b' } });
  t.match(done.responseObject, { kind: 'ConfigMap', metadata: { name: 'one', uid: cm.metadata.uid } });
  t.equal(created[0].responseStatus, undefined, 'RequestReceived has no response yet');
  t.equal(created[0].auditID, done.auditID);

  const got = find('get', 'configmaps', 'one').filter((e) => e.stage === 'ResponseComplete');
  t.equal(got[0]?.responseStatus?.code, 200);
  t.equal(got[0]?.objectRef?.resourceVersion, cm.metadata.resourceVersion);
  t.equal(got[0]?.requestObject, undefined, 'a get has no request body');

  const listed = find('list', 'configmaps').filter((e) => e.stage === 'ResponseComplete');
  t.ok(listed.length >= 1);
  t.match(listed[0].responseObject, { kind: 'Table', apiVersion: 'meta.k8s.io/v1' }, 'the response as the client got it (kubectl asks for a Table)');

  const missingGet = find('get', 'configmaps', 'missing').find((e) => e.stage === 'ResponseComplete');
  t.match(missingGet?.responseStatus, { code: 404, status: 'Failure', reason: 'NotFound', message: 'configmaps "missing" not found' });
  t.match(missingGet?.responseObject, { kind: 'Status', code: 404 });

  const watched = find('watch', 'configmaps');
  t.same(watched.map((e) => e.stage), ['RequestReceived', 'ResponseStarted', 'ResponseComplete'], 'a watch has ResponseStarted');
  t.equal(watched[1].responseStatus?.code, 200);
  t.equal(watched[2].responseObject, undefined, 'a watch is never buffered');

  if (old) {
    const older = find('create', 'configmaps', 'older').find((e) => e.stage === 'ResponseComplete');
    t.match(older, { userAgent: /^kubectl\/v1\.20/, responseStatus: { code: 201 }, requestObject: { data: { c: 'd' } } }, 'kubectl 1.20 is audited alike');
  }

  // secrets: Request level, RequestReceived omitted by the rule
  const secret = find('create', 'secrets');
  t.same(secret.map((e) => [e.stage, e.level]), [['ResponseComplete', 'Request']]);
  t.match(secret[0].requestObject, { kind: 'Secret' });
  t.equal(secret[0].responseObject, undefined);
  const secretGet = events.find((e) => e.auditID === direct.headers['audit-id']);
  t.match(secretGet, { verb: 'get', stage: 'ResponseComplete', objectRef: { resource: 'secrets', name: 's' } }, 'the Audit-Id header names the event');

  // anything else: Metadata, no bodies
  const ns = find('create', 'namespaces').find((e) => e.stage === 'ResponseComplete');
  t.match(ns, { level: 'Metadata', objectRef: { resource: 'namespaces', name: 'audited' }, responseStatus: { code: 201 } });
  t.equal(ns?.requestObject, undefined);
  t.equal(ns?.responseObject, undefined);
  t.match(find('delete', 'configmaps', 'one').find((e) => e.stage === 'ResponseComplete'), { responseStatus: { code: 200 } });

  // failed authentication: kube's one ResponseStarted event, no user
  const unauthorized = events.filter((e) => e.responseStatus?.code === 401);
  t.equal(unauthorized.length, 1);
  t.match(unauthorized[0], { stage: 'ResponseStarted', verb: 'list', requestURI: '/api/v1/namespaces', user: {}, responseStatus: { message: 'Authentication failed, attempted: bearer' } });
  t.equal(unauthorized[0].user.username, undefined);
});

interface Received {
  headers: http.IncomingHttpHeaders;
  body: { kind: string; apiVersion: string; items: Ev[] };
}

async function webhookReceiver(t: Test): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(data) });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${port}/audit`, received };
}

function webhookKubeconfig(dir: string, url: string): string {
  const file = path.join(dir, 'webhook.kubeconfig');
  fs.writeFileSync(file, `apiVersion: v1
kind: Config
clusters:
- name: sink
  cluster:
    server: ${url}
users:
- name: apiserver
  user:
    token: webhook-secret
contexts:
- name: default
  context: {cluster: sink, user: apiserver}
current-context: default
`);
  return file;
}

t.test('the webhook receives EventList batches (batch mode)', async (t) => {
  const missing = missingKubectl('1.32');
  if (missing) return t.skip(missing);
  const dir = tempDir(t, 'audit-webhook');
  const hook = await webhookReceiver(t);
  const policy = path.join(dir, 'policy.yaml');
  fs.writeFileSync(policy, policyYaml);
  const server = await startApiServer(t, {
    args: ['--audit-policy-file', policy, '--audit-webhook-config-file', webhookKubeconfig(dir, hook.url), '--audit-webhook-batch-max-wait', '300ms', '--audit-webhook-batch-max-size', '50'],
  });
  const k = kubectlFor(t, '1.32', server);
  await k.ok(['create', 'namespace', 'audited']);
  await k.ok(['-n', 'audited', 'create', 'configmap', 'two', '--from-literal=x=y']);
  await waitFor('a batch with the configmap', () => hook.received.some((r) => r.body.items.some((e) => e.verb === 'create' && e.objectRef?.name === 'two' && e.stage === 'ResponseComplete')));
  for (const r of hook.received) {
    t.equal(r.headers.authorization, 'Bearer webhook-secret', 'the kubeconfig token is sent');
    t.equal(r.body.kind, 'EventList');
    t.equal(r.body.apiVersion, 'audit.k8s.io/v1');
    t.ok(r.body.items.length >= 1 && r.body.items.length <= 50);
  }
  t.ok(hook.received.some((r) => r.body.items.length > 1), 'events arrive batched');
  const ev = hook.received.flatMap((r) => r.body.items).find((e) => e.objectRef?.name === 'two' && e.stage === 'ResponseComplete');
  t.match(ev, { level: 'RequestResponse', requestObject: { kind: 'ConfigMap' }, responseStatus: { code: 201 } });
});

t.test('blocking webhook: the events are delivered before the response', async (t) => {
  const dir = tempDir(t, 'audit-webhook-blocking');
  const hook = await webhookReceiver(t);
  const policy = path.join(dir, 'policy.yaml');
  fs.writeFileSync(policy, policyYaml);
  const server = await startApiServer(t, {
    args: ['--audit-policy-file', policy, '--audit-webhook-config-file', webhookKubeconfig(dir, hook.url), '--audit-webhook-mode', 'blocking', '--audit-webhook-version', 'audit.k8s.io/v1beta1',
      '--audit-log-path', path.join(dir, 'legacy.log'), '--audit-log-format', 'legacy'],
  });
  const r = await server.request('GET', '/api/v1/namespaces/default');
  t.equal(r.status, 200);
  const mine = hook.received.flatMap((x) => x.body.items.map((e) => ({ list: x.body, e }))).filter(({ e }) => e.auditID === r.headers['audit-id']);
  t.same(mine.map(({ e }) => e.stage), ['RequestReceived', 'ResponseComplete'], 'both events were received before the response');
  t.equal(mine[0].list.apiVersion, 'audit.k8s.io/v1beta1', '--audit-webhook-version');
  t.equal(mine[1].e.apiVersion, 'audit.k8s.io/v1beta1');
  // the log back end beside it, in kube's legacy lines
  const legacy = fs.readFileSync(path.join(dir, 'legacy.log'), 'utf8').split('\n').filter((l) => l.includes(`id="${r.headers['audit-id']}"`));
  t.equal(legacy.length, 2);
  t.match(legacy[1], /^\d{4}-\d\d-\d\dT[\d:.]+Z AUDIT: id="[^"]+" stage="ResponseComplete" ip="127\.0\.0\.1" method="get" user="ballast-admin" groups="\\"system:masters\\",\\"system:authenticated\\"" as="<self>" asgroups="<lookup>" user-agent="" namespace="default" uri="\/api\/v1\/namespaces\/default" response="200"$/);
});

t.test('a bad policy file stops start-up with one line naming it', async (t) => {
  const dir = tempDir(t, 'audit-bad');
  const policy = path.join(dir, 'policy.yaml');
  fs.writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n- level: Everything\n');
  const port = await freePort();
  const r = spawnSync(process.execPath, [MAIN_JS, 'apiserver', '--data-dir', path.join(dir, 'data'), '--secure-port', String(port), '--bind-address', '127.0.0.1', '--audit-policy-file', policy, '--audit-log-path', path.join(dir, 'a.log')], { encoding: 'utf8', timeout: 60_000 });
  t.equal(r.status, 1);
  const errorLines = r.stderr.split('\n').filter((l) => l.startsWith('Error:'));
  t.same(errorLines, [`Error: audit policy file "${policy}": rules[1].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"`]);
});
