/**
 * API Priority and Fairness end to end: a FlowSchema and a priority level made by the test (one
 * seat, one queue of length 1) take effect without a restart; a flood from that user gets 429s with
 * kube's Status, Retry-After and the PF headers, while the admin (system:masters, exempt) is served.
 * A request holds its seat from admission until it is answered, so a slowly sent body keeps it busy.
 */
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import t from 'tap';
import { kubectlFor, missingKubectl, startApiServer, tempDir, waitFor } from './harness';
import type { ApiServerProcess, HttpResult } from './harness';

const json = { 'content-type': 'application/json' };
const alice = { authorization: 'Bearer secret-alice' };

/** a POST as alice whose body is sent only when `finish` is called; the response resolves `done` */
function slowPost(server: ApiServerProcess, name: string) {
  const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  const ca = fs.readFileSync(path.join(server.dataDir, 'pki', 'ca.crt'));
  let finish!: () => void;
  const done = new Promise<HttpResult>((resolve, reject) => {
    const req = https.request(`${server.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      ca,
      headers: { ...alice, ...json, 'content-length': String(Buffer.byteLength(body)) },
    }, (res) => {
      let data = '';
      res.on('data', (d: Buffer) => (data += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data, headers: res.headers }));
    });
    req.on('error', reject);
    req.write(body.slice(0, 10));
    finish = () => req.end(body.slice(10));
  });
  return { done, finish: () => finish() };
}

t.test('a tiny priority level queues one request, rejects the rest; the admin is exempt', async (t) => {
  const tokens = path.join(tempDir(t, 'apf'), 'tokens.csv');
  fs.writeFileSync(tokens, 'secret-alice,alice,uid-alice\n');
  const server = await startApiServer(t, {
    args: ['--token-auth-file', tokens, '--max-requests-inflight', '2', '--max-mutating-requests-inflight', '1', '--request-timeout', '8s'],
  });

  const plc = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'tiny' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } },
  };
  const fsObj = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'alice' },
    spec: {
      priorityLevelConfiguration: { name: 'tiny' },
      matchingPrecedence: 100,
      distinguisherMethod: { type: 'ByUser' },
      rules: [{ subjects: [{ kind: 'User', user: { name: 'alice' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }] }],
    },
  };
  const madeLevel = await server.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', JSON.stringify(plc), json);
  t.equal(madeLevel.status, 201, madeLevel.body);
  const madeSchema = await server.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', JSON.stringify(fsObj), json);
  t.equal(madeSchema.status, 201, madeSchema.body);
  const levelUid = JSON.parse(madeLevel.body).metadata.uid as string;
  const schemaUid = JSON.parse(madeSchema.body).metadata.uid as string;

  // the new schema applies without a restart
  await waitFor('alice classified by the new FlowSchema', async () => {
    const r = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/configmaps', undefined, alice);
    return r.headers['x-kubernetes-pf-flowschema-uid'] === schemaUid;
  });
  const listed = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/configmaps', undefined, alice);
  t.equal(listed.status, 200);
  t.equal(listed.headers['x-kubernetes-pf-prioritylevel-uid'], levelUid);

  // the level has one seat: the first slow request holds it, the second waits in the queue
  const first = slowPost(server, 'first');
  await new Promise((r) => setTimeout(r, 300));
  const second = slowPost(server, 'second');
  await new Promise((r) => setTimeout(r, 300));
  const flood = await Promise.all(Array.from({ length: 5 }, () => server.requestWithoutCert('GET', '/api/v1/namespaces/default/configmaps', undefined, alice)));
  for (const r of flood) {
    t.equal(r.status, 429);
    t.equal(r.headers['retry-after'], '1');
    t.equal(r.headers['x-kubernetes-pf-flowschema-uid'], schemaUid);
    t.equal(r.headers['x-kubernetes-pf-prioritylevel-uid'], levelUid);
    t.match(JSON.parse(r.body), { kind: 'Status', status: 'Failure', reason: 'TooManyRequests', code: 429, message: 'Too many requests, please try again later.', details: { retryAfterSeconds: 1 } });
  }

  // the admin is in system:masters: the exempt level, never queued
  const adminList = await server.request('GET', '/api/v1/namespaces/default/configmaps');
  t.equal(adminList.status, 200);
  t.ok(adminList.headers['x-kubernetes-pf-flowschema-uid'], 'the exempt FlowSchema UID');
  t.not(adminList.headers['x-kubernetes-pf-prioritylevel-uid'], levelUid);

  // the waiter gives up after a quarter of --request-timeout (2s): 429 though its body never came
  const waited = await second.done;
  t.equal(waited.status, 429);
  t.equal(waited.headers['retry-after'], '1');
  second.finish();

  first.finish();
  const served = await first.done;
  t.equal(served.status, 201, served.body);
  const after = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/configmaps', undefined, alice);
  t.equal(after.status, 200, 'the seat is free again');

  // a changed level applies without a restart: Reject answers at once instead of queuing (2s)
  const patched = await server.request('PATCH', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/tiny',
    JSON.stringify({ spec: { limited: { limitResponse: { type: 'Reject', queuing: null } } } }), { 'content-type': 'application/merge-patch+json' });
  t.equal(patched.status, 200, patched.body);
  await new Promise((r) => setTimeout(r, 500));
  const holder = slowPost(server, 'holder');
  await new Promise((r) => setTimeout(r, 300));
  const started = Date.now();
  const rejected = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/configmaps', undefined, alice);
  t.equal(rejected.status, 429);
  t.ok(Date.now() - started < 1500, `rejected without waiting (${Date.now() - started} ms)`);
  holder.finish();
  t.equal((await holder.done).status, 201);

  // watches are long-running: kube 1.20 neither classifies nor counts them
  const watch = await server.requestWithoutCert('GET', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1', undefined, alice);
  t.equal(watch.status, 200);
  t.equal(watch.headers['x-kubernetes-pf-flowschema-uid'], undefined);

  const skip = missingKubectl('1.32');
  if (!skip) {
    // what kubectl shows of the headers at -v=8
    const r = await kubectlFor(t, '1.32', server, { token: 'secret-alice' }).run(['get', '--raw', '/api/v1/namespaces/default/configmaps', '-v=8']);
    t.match(r.stderr, new RegExp(`X-Kubernetes-Pf-Flowschema-Uid: ${schemaUid}`, 'i'));
    t.match(r.stderr, new RegExp(`X-Kubernetes-Pf-Prioritylevel-Uid: ${levelUid}`, 'i'));
  } else {
    t.comment(`kubectl -v=8 check skipped: ${skip}`);
  }
});

t.test('a FlowSchema naming a missing level is Dangling; the level appearing clears it', async (t) => {
  const server = await startApiServer(t);
  const fsObj = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: { name: 'lost' },
    spec: { priorityLevelConfiguration: { name: 'nowhere' }, matchingPrecedence: 200, rules: [] },
  };
  t.equal((await server.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas', JSON.stringify(fsObj), json)).status, 201);
  const dangling = (status: string) => async () => {
    const r = await server.request('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/lost');
    const c = (JSON.parse(r.body).status?.conditions ?? []).find((x: { type: string }) => x.type === 'Dangling');
    return c?.status === status ? c : undefined;
  };
  const c = await waitFor('Dangling=True', dangling('True'));
  t.match(c, { reason: 'NotFound', message: 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object' });
  const plc = {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: { name: 'nowhere' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
  };
  t.equal((await server.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', JSON.stringify(plc), json)).status, 201);
  t.match(await waitFor('Dangling=False', dangling('False')), { reason: 'Found' });
});
