import t from 'tap';
import { startTestServer, getJson } from './helpers';

const NS = '/apis/test.ballast.io/v1/namespaces/ns1/widgets';
const json = { 'Content-Type': 'application/json' };

t.test('list and watch parameters are parsed into ListOptions', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const r = await getJson(
    `${s.url}${NS}?labelSelector=app%3Dweb&fieldSelector=metadata.name%3Dx&resourceVersion=10&limit=500&continue=abc&timeoutSeconds=30`,
  );
  t.equal(r.status, 200);
  t.same(s.registry.lastCall().options, {
    labelSelector: 'app=web',
    fieldSelector: 'metadata.name=x',
    resourceVersion: '10',
    limit: 500,
    continue: 'abc',
    timeoutSeconds: 30,
  });
  await getJson(`${s.url}${NS}?resourceVersion=10&resourceVersionMatch=Exact`);
  t.same(s.registry.lastCall().options, { resourceVersion: '10', resourceVersionMatch: 'Exact' });
  const ac = new AbortController();
  await fetch(`${s.url}${NS}?watch=true&allowWatchBookmarks=true&resourceVersion=3`, { signal: ac.signal });
  ac.abort();
  t.same(s.registry.watches[0].options, { resourceVersion: '3', allowWatchBookmarks: true });
  await getJson(`${s.url}${NS}/w1?resourceVersion=0`);
  t.same(s.registry.lastCall().options, { resourceVersion: '0' });
});

t.test('non-integer integers are 400 BadRequest with Go ParseInt messages', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  for (const [q, msg] of [
    ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['limit=1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    ['timeoutSeconds=', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['limit=99999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
  ]) {
    const r = await getJson(`${s.url}${NS}?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.body.reason, 'BadRequest');
    t.equal(r.body.message, msg);
  }
  const d = await getJson(`${s.url}${NS}/w1?gracePeriodSeconds=soon`, { method: 'DELETE' });
  t.equal(d.status, 400);
  t.equal(d.body.message, 'strconv.ParseInt: parsing "soon": invalid syntax');
  t.equal(s.registry.calls.length, 0);
});

t.test('ListOptions are validated as kube does (422 ListOptions)', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}?resourceVersionMatch=Exact`);
  t.equal(r.status, 422);
  t.equal(r.body.message, 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  r = await getJson(`${s.url}${NS}?resourceVersionMatch=Sometimes&resourceVersion=1`);
  t.equal(r.status, 422);
  t.match(r.body.message, /resourceVersionMatch: Unsupported value: "Sometimes": supported values: "Exact", "NotOlderThan", ""/);
  r = await getJson(`${s.url}${NS}?sendInitialEvents=true`);
  t.equal(r.status, 422);
  t.match(r.body.message, /sendInitialEvents is forbidden for list/);
  r = await getJson(`${s.url}${NS}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1`);
  t.equal(r.status, 422);
  t.match(r.body.message, /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/);
  t.equal(s.registry.calls.length, 0);
});

t.test('dryRun: only All (repeatable); anything else is rejected before the registry', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}?dryRun=All`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 201);
  t.same(s.registry.lastCall().options, { dryRun: true, userAgent: 'node' });
  r = await getJson(`${s.url}${NS}?dryRun=All&dryRun=All`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 201);
  t.same(s.registry.lastCall().options, { dryRun: true, userAgent: 'node' });
  r = await getJson(`${s.url}${NS}`, { method: 'POST', body: '{}', headers: json });
  t.same(s.registry.lastCall().options, { dryRun: false, userAgent: 'node' });
  const calls = s.registry.calls.length;
  r = await getJson(`${s.url}${NS}?dryRun=Yes`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 422);
  t.equal(r.body.reason, 'Invalid');
  t.equal(r.body.message, 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Yes"}: supported values: "All"');
  t.same(r.body.details.causes, [{ reason: 'FieldValueNotSupported', field: 'dryRun', message: 'Unsupported value: []string{"Yes"}: supported values: "All"' }]);
  r = await getJson(`${s.url}${NS}/w1?dryRun=All&dryRun=none`, { method: 'PUT', body: '{}', headers: json });
  t.equal(r.status, 422);
  t.match(r.body.message, /^UpdateOptions\.meta\.k8s\.io "" is invalid: dryRun: Unsupported value: \[\]string\{"All", "none"\}/);
  r = await getJson(`${s.url}${NS}/w1?dryRun=`, { method: 'DELETE' });
  t.equal(r.status, 422);
  t.match(r.body.message, /^DeleteOptions\.meta\.k8s\.io "" is invalid: dryRun/);
  t.equal(s.registry.calls.length, calls, 'no registry call for rejected dryRun values');
});

t.test('fieldManager and fieldValidation are validated; valid ones pass through', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}?fieldManager=kubectl-create&fieldValidation=Strict`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 201);
  t.same(s.registry.lastCall().options, { dryRun: false, fieldManager: 'kubectl-create', fieldValidation: 'Strict', userAgent: 'node' });
  r = await getJson(`${s.url}${NS}?fieldManager=${'m'.repeat(129)}`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 422);
  t.match(r.body.message, /fieldManager: Too long: may not be more than 128 bytes/);
  r = await getJson(`${s.url}${NS}?fieldManager=${'m'.repeat(128)}`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 201, '128 bytes is allowed');
  r = await getJson(`${s.url}${NS}?fieldManager=a%01b`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 422);
  t.match(r.body.message, /fieldManager: Invalid value: "a\\u0001b": invalid character U\+0001 \(at position 1\)/);
  r = await getJson(`${s.url}${NS}?fieldValidation=Loose`, { method: 'POST', body: '{}', headers: json });
  t.equal(r.status, 422);
  t.match(r.body.message, /fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"/);
  for (const fv of ['Ignore', 'Warn']) {
    r = await getJson(`${s.url}${NS}/w1?fieldValidation=${fv}`, { method: 'PUT', body: '{}', headers: json });
    t.equal(r.status, 201);
    t.equal((s.registry.lastCall().options as { fieldValidation: string }).fieldValidation, fv);
  }
});

t.test('patch options: apply needs a fieldManager, force is apply-only', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}/w1`, { method: 'PATCH', body: '{}', headers: { 'Content-Type': 'application/apply-patch+yaml' } });
  t.equal(r.status, 422);
  t.equal(r.body.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  r = await getJson(`${s.url}${NS}/w1?force=false`, { method: 'PATCH', body: '{}', headers: { 'Content-Type': 'application/merge-patch+json' } });
  t.equal(r.status, 422);
  t.equal(r.body.message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  r = await getJson(`${s.url}${NS}/w1?fieldManager=kubectl&fieldValidation=Strict&force=false`, {
    method: 'PATCH',
    body: '{}',
    headers: { 'Content-Type': 'application/apply-patch+yaml' },
  });
  t.equal(r.status, 201);
  t.same(s.registry.lastCall().options, { dryRun: false, fieldManager: 'kubectl', fieldValidation: 'Strict', force: false, userAgent: 'node' });
});

t.test('DeleteOptions come from the body when there is one, else from the query', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  let r = await getJson(`${s.url}${NS}/w1`, {
    method: 'DELETE',
    body: JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', gracePeriodSeconds: 5, dryRun: ['All'], preconditions: { uid: 'u1', resourceVersion: '9' } }),
    headers: json,
  });
  t.equal(r.status, 200);
  t.equal(r.body.status, 'Success');
  t.same(s.registry.lastCall().options, { dryRun: true, gracePeriodSeconds: 5, propagationPolicy: 'Background', preconditions: { uid: 'u1', resourceVersion: '9' } });
  r = await getJson(`${s.url}${NS}/w1?gracePeriodSeconds=0&orphanDependents=true&dryRun=All`, { method: 'DELETE' });
  t.equal(r.status, 200);
  t.same(s.registry.lastCall().options, { dryRun: true, gracePeriodSeconds: 0, orphanDependents: true });
  // kube reads the body alone when there is one
  r = await getJson(`${s.url}${NS}/w1?gracePeriodSeconds=0`, { method: 'DELETE', body: '{"propagationPolicy":"Foreground"}', headers: json });
  t.same(s.registry.lastCall().options, { dryRun: false, propagationPolicy: 'Foreground' });
  r = await getJson(`${s.url}${NS}/w1`, { method: 'DELETE', body: 'propagationPolicy: Orphan\n', headers: { 'Content-Type': 'application/yaml' } });
  t.same(s.registry.lastCall().options, { dryRun: false, propagationPolicy: 'Orphan' }, 'YAML DeleteOptions');

  const calls = s.registry.calls.length;
  r = await getJson(`${s.url}${NS}/w1?orphanDependents=false&propagationPolicy=Background`, { method: 'DELETE' });
  t.equal(r.status, 422);
  t.match(r.body.message, /propagationPolicy: Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set/);
  r = await getJson(`${s.url}${NS}/w1?propagationPolicy=Sideways`, { method: 'DELETE' });
  t.equal(r.status, 422);
  t.match(r.body.message, /Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"/);
  r = await getJson(`${s.url}${NS}/w1`, { method: 'DELETE', body: '{"gracePeriodSeconds":"soon"}', headers: json });
  t.equal(r.status, 400);
  r = await getJson(`${s.url}${NS}/w1`, { method: 'DELETE', body: '{"kind":"Widget"}', headers: json });
  t.equal(r.status, 400);
  t.equal(r.body.message, 'decoded object cannot be converted to DeleteOptions');
  t.equal(s.registry.calls.length, calls);
});

t.test('deletecollection passes list and delete options', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const r = await getJson(`${s.url}${NS}?labelSelector=a%3Db&dryRun=All`, { method: 'DELETE' });
  t.equal(r.status, 200);
  t.equal(r.body.kind, 'WidgetList');
  const call = s.registry.lastCall();
  t.equal(call.verb, 'deletecollection');
  t.same(call.list, { labelSelector: 'a=b' });
  t.same(call.options, { dryRun: true });
});
