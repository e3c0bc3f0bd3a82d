/**
 * The webhook admission plugins against real HTTPS webhook servers (certificates made by openssl)
 * and a real registry over a temporary SQLite store.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import type { AddressInfo } from 'node:net';
import { makeFixture, configMap, deployment, write, type Fixture } from '../helpers/registry-fixture';
import { rejects } from '../helpers/registry-assert';
import { makeCa, makeCert, type TestCert } from '../helpers/test-pki';
import type { KubeObject } from '../../src/api/kind';
import type { AdmissionAttributes } from '../../src/admission/types';
import { validatingWebhookAdmission, webhookAdmissionPlugins, type ClosableAdmission, type WebhookAdmissionAttributes } from '../../src/admission/webhook';

type Obj = Record<string, unknown>;

// ---- certificates, made once for the file ------------------------------------------------------

const pkiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-webhook-'));
t.teardown(() => fs.rmSync(pkiDir, { recursive: true, force: true }));
const ca = makeCa(pkiDir, 'webhook');
const serving = makeCert(pkiDir, 'serving', ca, { commonName: 'hook', dnsNames: ['hook.default.svc', 'localhost'], ips: ['127.0.0.1'], usage: 'server' });
const otherCa = makeCa(pkiDir, 'other');
const caBundle = Buffer.from(ca.cert).toString('base64');

// ---- webhook servers ---------------------------------------------------------------------------

interface HookServer {
  url: string;
  port: number;
  /** the AdmissionReview bodies received, in order */
  reviews: Obj[];
  paths: string[];
}

/** `answer` returns the response part (uid filled in), a whole body (with apiVersion), or 'hang' */
async function startHook(t: Test, answer: (request: Obj, review: Obj) => Obj | 'hang', cert: TestCert = serving): Promise<HookServer> {
  const reviews: Obj[] = [];
  const paths: string[] = [];
  const server = https.createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Obj;
      reviews.push(review);
      paths.push(req.url ?? '');
      const request = review.request as Obj;
      const out = answer(request, review);
      if (out === 'hang') return;
      const body = 'apiVersion' in out || 'response' in out ? out : { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: request.uid, ...out } };
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `https://127.0.0.1:${port}/hook`, port, reviews, paths };
}

// ---- configurations and attributes -------------------------------------------------------------

function webhook(name: string, clientConfig: Obj, extra: Obj = {}): Obj {
  return {
    name,
    clientConfig,
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

async function configure(f: Fixture, kind: 'mutating' | 'validating', name: string, webhooks: Obj[], version = 'v1'): Promise<void> {
  const resource = `${kind}webhookconfigurations`;
  const k = f.scheme.byResource('admissionregistration.k8s.io', version, resource)!;
  const body: KubeObject = {
    apiVersion: `admissionregistration.k8s.io/${version}`,
    kind: kind === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks,
  };
  await f.registry.create({ kind: k }, body, write);
}

function createConfigMap(f: Fixture, obj: KubeObject = configMap('cm'), extra: Partial<AdmissionAttributes> = {}): WebhookAdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: f.kind('configmaps'),
    subresource: '',
    namespace: str(obj.metadata?.namespace),
    name: str(obj.metadata?.name),
    object: obj,
    options: {},
    dryRun: false,
    user: { name: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } },
    ...extra,
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

async function fixture(t: Test): Promise<Fixture> {
  const f = await makeFixture('sqlite');
  t.teardown(() => f.close());
  return f;
}

async function plugin(t: Test, f: Fixture, kind: 'mutating' | 'validating', extra: { serviceRouting?: 'endpoint' | 'cluster'; warnings?: string[] } = {}): Promise<ClosableAdmission> {
  const opts = { registry: f.registry, scheme: f.scheme, serviceRouting: extra.serviceRouting, log: { warn: (fields: Obj) => extra.warnings?.push(JSON.stringify(fields)) } };
  const p = webhookAdmissionPlugins[kind === 'mutating' ? 'MutatingAdmissionWebhook' : 'ValidatingAdmissionWebhook'](opts);
  t.teardown(() => p.close());
  await p.ready();
  return p;
}

function patchOf(ops: unknown[]): Obj {
  return { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

// ---- tests -------------------------------------------------------------------------------------

t.test('validating: an allowed request sends a v1 AdmissionReview with what kube sends', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ allowed: true, warnings: ['be careful'] }));
  await configure(f, 'validating', 'v', [webhook('allow.example.com', { url: hook.url, caBundle })]);
  const p = await plugin(t, f, 'validating');
  const a = createConfigMap(f);
  await p.validate(a);
  t.equal(hook.reviews.length, 1);
  const review = hook.reviews[0];
  t.equal(review.apiVersion, 'admission.k8s.io/v1');
  t.equal(review.kind, 'AdmissionReview');
  t.equal(hook.paths[0], '/hook?timeout=10s', 'kube adds the timeout query');
  const r = review.request as Obj;
  t.match(r.uid, /^[0-9a-f-]{36}$/);
  t.same(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
  t.same(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
  t.same(r.requestKind, { group: '', version: 'v1', kind: 'ConfigMap' });
  t.same(r.requestResource, { group: '', version: 'v1', resource: 'configmaps' });
  t.equal(r.name, 'cm');
  t.equal(r.namespace, 'default');
  t.equal(r.operation, 'CREATE');
  t.same(r.userInfo, { username: 'alice', uid: 'u-1', groups: ['devs', 'system:authenticated'], extra: { scopes: ['a'] } });
  t.same((r.object as Obj).data, { k: 'v' });
  t.equal(r.oldObject, null);
  t.equal(r.dryRun, false);
  t.same(r.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
  t.same(a.warnings, ['be careful'], 'warnings are collected for the Warning headers');
  await p.admit(a);
  t.equal(hook.reviews.length, 1, 'the validating plugin does nothing when admitting');
});

t.test('validating: a denial carries the message and the code, 403 Forbidden by default', async (t) => {
  const f = await fixture(t);
  const deny = await startHook(t, (req) => ({ allowed: false, status: { message: `no ${str((req.object as KubeObject).metadata?.name)}` } }));
  const conflict = await startHook(t, () => ({ allowed: false, status: { message: 'busy', code: 409, reason: 'Conflict' } }));
  await configure(f, 'validating', 'a-deny', [webhook('deny.example.com', { url: deny.url, caBundle })]);
  const p = await plugin(t, f, 'validating');
  const s = await rejects(t, p.validate(createConfigMap(f)), 403, 'Forbidden', 'admission webhook "deny.example.com" denied the request: no cm');
  t.same(s?.details, { name: 'cm', group: '', kind: 'configmaps' });
  const f2 = await fixture(t);
  await configure(f2, 'validating', 'c', [webhook('conflict.example.com', { url: conflict.url, caBundle })]);
  const p2 = await plugin(t, f2, 'validating');
  await rejects(t, p2.validate(createConfigMap(f2)), 409, 'Conflict', 'admission webhook "conflict.example.com" denied the request: busy');
});

t.test('v1beta1 reviews: sent when the webhook asks only for them; the answer is taken without uid checks', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { allowed: false } }));
  await configure(f, 'validating', 'v', [webhook('old.example.com', { url: hook.url, caBundle }, { admissionReviewVersions: ['v1beta1'] })], 'v1beta1');
  const p = await plugin(t, f, 'validating');
  await rejects(t, p.validate(createConfigMap(f)), 403, 'Forbidden', 'admission webhook "old.example.com" denied the request without explanation');
  t.equal(hook.reviews[0].apiVersion, 'admission.k8s.io/v1beta1');
  t.equal(hook.paths[0], '/hook?timeout=30s', 'v1beta1 defaults timeoutSeconds to 30');
});

t.test('v1 reviews: an answer with another uid is a failed call', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'other', allowed: true } }));
  await configure(f, 'validating', 'v', [webhook('uid.example.com', { url: hook.url, caBundle }, { admissionReviewVersions: ['v2', 'v1', 'v1beta1'] })]);
  const p = await plugin(t, f, 'validating');
  const s = await rejects(t, p.validate(createConfigMap(f)), 500, 'InternalError');
  t.match(s?.message, /^Internal error occurred: failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]{36}", got "other"$/);
  t.equal(hook.reviews[0].apiVersion, 'admission.k8s.io/v1', 'the first version we speak');
});

t.test('failurePolicy on an unreachable webhook: Fail refuses, Ignore skips and logs', async (t) => {
  const f = await fixture(t);
  const dead = await startHook(t, () => ({ allowed: true }));
  const url = `https://127.0.0.1:1/hook`;
  await configure(f, 'validating', 'a', [webhook('fail.example.com', { url, caBundle }, { failurePolicy: 'Fail' })]);
  const p = await plugin(t, f, 'validating');
  await rejects(t, p.validate(createConfigMap(f)), 500, 'InternalError',
    'Internal error occurred: failed calling webhook "fail.example.com": failed to call webhook: Post "https://127.0.0.1:1/hook?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');

  const f2 = await fixture(t);
  await configure(f2, 'validating', 'a', [webhook('ignore.example.com', { url, caBundle }, { failurePolicy: 'Ignore' }), webhook('next.example.com', { url: dead.url, caBundle })]);
  const logged: string[] = [];
  const p2 = await plugin(t, f2, 'validating', { warnings: logged });
  await p2.validate(createConfigMap(f2));
  t.equal(dead.reviews.length, 1, 'the next webhook is still called');
  t.match(logged[0], /ignore\.example\.com.*connection refused/);
});

t.test('failurePolicy on a timeout, and TLS verified with the caBundle', async (t) => {
  const f = await fixture(t);
  const slow = await startHook(t, () => 'hang');
  await configure(f, 'validating', 'a', [webhook('slow.example.com', { url: slow.url, caBundle }, { timeoutSeconds: 1 })]);
  const p = await plugin(t, f, 'validating');
  const started = Date.now();
  await rejects(t, p.validate(createConfigMap(f)), 500, 'InternalError',
    `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "${slow.url}?timeout=1s": context deadline exceeded`);
  t.ok(Date.now() - started < 5000, 'gave up after the timeout');

  const f2 = await fixture(t);
  await configure(f2, 'validating', 'a', [webhook('slow.example.com', { url: slow.url, caBundle }, { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
  await (await plugin(t, f2, 'validating')).validate(createConfigMap(f2));
  t.pass('Ignore lets the request through after the timeout');

  const f3 = await fixture(t);
  const wrongCa = Buffer.from(otherCa.cert).toString('base64');
  await configure(f3, 'validating', 'a', [webhook('tls.example.com', { url: slow.url, caBundle: wrongCa })]);
  await rejects(t, (await plugin(t, f3, 'validating')).validate(createConfigMap(f3)), 500, 'InternalError', /certificate signed by unknown authority/);
});

t.test('mutating: JSON patches are applied in webhook order and converted back', async (t) => {
  const f = await fixture(t);
  const first = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/data/first', value: '1' }]) }));
  const second = await startHook(t, (req) => {
    const seen = ((req.object as Obj).data as Obj).first;
    return { allowed: true, ...patchOf([{ op: 'add', path: '/metadata/labels', value: { seen: String(seen) } }]) };
  });
  // configurations are called by name: "a" before "b", whatever the creation order
  await configure(f, 'mutating', 'b', [webhook('second.example.com', { url: second.url, caBundle })]);
  await configure(f, 'mutating', 'a', [webhook('first.example.com', { url: first.url, caBundle })]);
  const p = await plugin(t, f, 'mutating');
  const obj = configMap('cm');
  const a = createConfigMap(f, obj);
  await p.admit(a);
  t.equal(a.object, obj, 'changed in place');
  t.same(obj.data, { k: 'v', first: '1' });
  t.same(obj.metadata?.labels, { seen: '1' });
  await p.validate(a);
  t.equal(first.reviews.length + second.reviews.length, 2, 'the mutating plugin does nothing when validating');
});

t.test('mutating: a patched object is defaulted again, as kube does', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'remove', path: '/spec/replicas' }]) }));
  await configure(f, 'mutating', 'a', [webhook('unset.example.com', { url: hook.url, caBundle }, {
    rules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }],
  })]);
  const p = await plugin(t, f, 'mutating');
  const a: AdmissionAttributes = { ...createConfigMap(f, deployment('web', 'default', { replicas: 3 })), kind: f.kind('deployments') };
  await p.admit(a);
  t.equal((a.object?.spec as Obj).replicas, 1, 'replicas defaulted after the webhook removed it');
});

t.test('mutating: a denial, a namespace move and a rename on update are refused', async (t) => {
  const f = await fixture(t);
  const deny = await startHook(t, () => ({ allowed: false, status: { message: 'nope' } }));
  await configure(f, 'mutating', 'a', [webhook('deny.example.com', { url: deny.url, caBundle })]);
  const p = await plugin(t, f, 'mutating');
  await rejects(t, p.admit(createConfigMap(f)), 403, 'Forbidden', 'admission webhook "deny.example.com" denied the request: nope');

  const f2 = await fixture(t);
  const move = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'replace', path: '/metadata/namespace', value: 'kube-system' }]) }));
  await configure(f2, 'mutating', 'a', [webhook('move.example.com', { url: move.url, caBundle })]);
  await rejects(t, (await plugin(t, f2, 'mutating')).admit(createConfigMap(f2)), 400, 'BadRequest',
    'the namespace of the provided object does not match the namespace sent on the request');

  const setNs = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/metadata/namespace', value: 'default' }]) }));
  const f4 = await fixture(t);
  await configure(f4, 'mutating', 'a', [webhook('setns.example.com', { url: setNs.url, caBundle })]);
  const unset = configMap('cm');
  delete unset.metadata!.namespace;
  const a4 = createConfigMap(f4, unset, { namespace: 'default' });
  await (await plugin(t, f4, 'mutating')).admit(a4);
  t.equal(a4.object?.metadata?.namespace, 'default', 'setting the request namespace is fine');

  const f3 = await fixture(t);
  const rename = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'replace', path: '/metadata/name', value: 'other' }]) }));
  await configure(f3, 'mutating', 'a', [webhook('rename.example.com', { url: rename.url, caBundle })]);
  const old = configMap('cm');
  const patchOptions = { kind: 'PatchOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl', force: true };
  await rejects(t, (await plugin(t, f3, 'mutating')).admit(createConfigMap(f3, configMap('cm'), { operation: 'UPDATE', oldObject: old, options: patchOptions })), 422, 'Invalid',
    'ConfigMap "cm" is invalid: metadata.name: Invalid value: "other": field is immutable');
  t.same((rename.reviews[0].request as Obj).options, { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl' }, 'a patch is an update to webhooks');
});

t.test('mutating: reinvocationPolicy IfNeeded re-runs a webhook once when a later one changed the object', async (t) => {
  const f = await fixture(t);
  // "a" copies the label count into an annotation; "b" adds a label
  const counter = await startHook(t, (req) => {
    const labels = Object.keys(((req.object as KubeObject).metadata?.labels ?? {}) as Obj).length;
    return { allowed: true, ...patchOf([{ op: 'add', path: '/metadata/annotations', value: { labels: String(labels) } }]) };
  });
  const labeller = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/metadata/labels', value: { added: 'yes' } }]) }));
  await configure(f, 'mutating', 'a', [webhook('counter.example.com', { url: counter.url, caBundle }, { reinvocationPolicy: 'IfNeeded' })]);
  await configure(f, 'mutating', 'b', [webhook('labeller.example.com', { url: labeller.url, caBundle })]);
  const p = await plugin(t, f, 'mutating');
  const a = createConfigMap(f);
  await p.admit(a);
  t.equal(counter.reviews.length, 2, 'called again after the later change');
  t.equal(labeller.reviews.length, 1, 'Never webhooks are not');
  t.same(a.object?.metadata?.annotations, { labels: '1' });

  const f2 = await fixture(t);
  const c2 = await startHook(t, () => ({ allowed: true }));
  const l2 = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/metadata/labels', value: { added: 'yes' } }]) }));
  await configure(f2, 'mutating', 'a', [webhook('counter.example.com', { url: c2.url, caBundle })]);
  await configure(f2, 'mutating', 'b', [webhook('labeller.example.com', { url: l2.url, caBundle })]);
  await (await plugin(t, f2, 'mutating')).admit(createConfigMap(f2));
  t.equal(c2.reviews.length, 1, 'reinvocationPolicy Never: once');
});

t.test('dry run: webhooks with side effects refuse it with 400; None and NoneOnDryRun see dryRun true', async (t) => {
  for (const sideEffects of ['Unknown', 'Some']) {
    const f = await fixture(t);
    const hook = await startHook(t, () => ({ allowed: true }));
    await configure(f, 'validating', 'v', [webhook('effects.example.com', { url: hook.url, caBundle }, { sideEffects, admissionReviewVersions: ['v1beta1'] })], 'v1beta1');
    const p = await plugin(t, f, 'validating');
    await rejects(t, p.validate(createConfigMap(f, configMap('cm'), { dryRun: true })), 400, 'BadRequest', 'admission webhook "effects.example.com" does not support dry run');
    t.equal(hook.reviews.length, 0, `${sideEffects}: not called`);
    await p.validate(createConfigMap(f));
    t.equal(hook.reviews.length, 1, `${sideEffects}: called without dry run`);
  }
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ allowed: true }));
  await configure(f, 'mutating', 'm', [
    webhook('none.example.com', { url: hook.url, caBundle }, { sideEffects: 'None' }),
    webhook('noneondryrun.example.com', { url: hook.url, caBundle }, { sideEffects: 'NoneOnDryRun' }),
  ]);
  await (await plugin(t, f, 'mutating')).admit(createConfigMap(f, configMap('cm'), { dryRun: true }));
  t.same(hook.reviews.map((r) => (r.request as Obj).dryRun), [true, true]);
});

t.test('namespace and object selectors', async (t) => {
  const f = await fixture(t);
  const nsKind = f.kind('namespaces');
  await f.registry.create({ kind: nsKind }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } }, write);
  const hook = await startHook(t, () => ({ allowed: true }));
  await configure(f, 'validating', 'v', [
    webhook('ns.example.com', { url: hook.url, caBundle }, {
      namespaceSelector: { matchLabels: { env: 'prod' } },
      rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'namespaces'] }],
    }),
    webhook('obj.example.com', { url: hook.url, caBundle }, { objectSelector: { matchExpressions: [{ key: 'hooked', operator: 'Exists' }] } }),
  ]);
  const p = await plugin(t, f, 'validating');
  const names = (): string[] => hook.reviews.splice(0).map((r) => str((r.request as Obj).name));
  await p.validate(createConfigMap(f, configMap('in-default')));
  t.same(names(), [], 'default has no env=prod label; no hooked label');
  await p.validate(createConfigMap(f, configMap('in-prod', 'prod')));
  t.same(names(), ['in-prod'], 'the namespace labels are read through the registry');
  await p.validate(createConfigMap(f, configMap('labelled', 'default', { hooked: 'x' })));
  t.same(names(), ['labelled'], 'object labels');
  await p.validate(createConfigMap(f, configMap('was-labelled'), { operation: 'UPDATE', oldObject: configMap('was-labelled', 'default', { hooked: '' }) }));
  t.same(names(), ['was-labelled'], 'old object labels');
  const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'staging', labels: { env: 'prod' } } };
  await p.validate({ ...createConfigMap(f, ns), kind: nsKind, namespace: '' });
  t.same(names(), ['staging'], 'a Namespace is matched by its own labels');
  await rejects(t, p.validate(createConfigMap(f, configMap('x', 'missing'))), 500, 'InternalError', 'Internal error occurred: namespaces "missing" not found');
});

t.test('a service reference is resolved through the Service and its Endpoints', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ allowed: false, status: { message: 'via service' } }));
  await f.registry.create(f.target('services', 'default'), {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook', namespace: 'default' },
    spec: { ports: [{ name: 'https', port: 8443, targetPort: 9443 }] },
  }, write);
  await f.registry.create(f.target('endpoints', 'default'), {
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook', namespace: 'default' },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: hook.port }] }],
  }, write);
  await configure(f, 'validating', 'v', [webhook('svc.example.com', { service: { namespace: 'default', name: 'hook', port: 8443, path: '/validate' }, caBundle })]);
  const p = await plugin(t, f, 'validating', { serviceRouting: 'endpoint' });
  await rejects(t, p.validate(createConfigMap(f)), 403, 'Forbidden', 'admission webhook "svc.example.com" denied the request: via service');
  t.equal(hook.paths[0], '/validate?timeout=10s');

  // kube's default routing: the Service's clusterIP at the Service port
  const f3 = await fixture(t);
  await f3.registry.create(f3.target('services', 'default'), {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook', namespace: 'default' },
    spec: { clusterIP: '127.0.0.1', ports: [{ name: 'https', port: hook.port }] },
  }, write);
  await configure(f3, 'validating', 'v', [webhook('cluster.example.com', { service: { namespace: 'default', name: 'hook', port: hook.port }, caBundle })]);
  await rejects(t, (await plugin(t, f3, 'validating')).validate(createConfigMap(f3)), 403, 'Forbidden', 'admission webhook "cluster.example.com" denied the request: via service');

  const f2 = await fixture(t);
  await configure(f2, 'validating', 'v', [webhook('svc.example.com', { service: { namespace: 'default', name: 'absent' }, caBundle })]);
  await rejects(t, (await plugin(t, f2, 'validating', { serviceRouting: 'endpoint' })).validate(createConfigMap(f2)), 500, 'InternalError',
    'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://absent.default.svc:443/?timeout=10s": service "absent" not found');
});

t.test('matchPolicy Equivalent: the object is converted to the version the rules name', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'add', path: '/metadata/labels', value: { seen: 'v2' } }]) }));
  const rules = [{ operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v2'], resources: ['horizontalpodautoscalers'] }];
  await configure(f, 'mutating', 'm', [
    webhook('equivalent.example.com', { url: hook.url, caBundle }, { rules, matchPolicy: 'Equivalent' }),
    webhook('exact.example.com', { url: hook.url, caBundle }, { rules, matchPolicy: 'Exact' }),
  ]);
  const p = await plugin(t, f, 'mutating');
  const v1 = f.scheme.byResource('autoscaling', 'v1', 'horizontalpodautoscalers')!;
  const hpa: KubeObject = {
    apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
  };
  const a: AdmissionAttributes = { ...createConfigMap(f, hpa), kind: v1 };
  await p.admit(a);
  t.equal(hook.reviews.length, 1, 'only the Equivalent webhook is called');
  const r = hook.reviews[0].request as Obj;
  t.same(r.kind, { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
  t.same(r.resource, { group: 'autoscaling', version: 'v2', resource: 'horizontalpodautoscalers' });
  t.same(r.requestKind, { group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
  t.same(r.requestResource, { group: 'autoscaling', version: 'v1', resource: 'horizontalpodautoscalers' });
  const sent = r.object as Obj;
  t.equal(sent.apiVersion, 'autoscaling/v2');
  t.ok(Array.isArray((sent.spec as Obj).metrics), 'v2 has metrics, not targetCPUUtilizationPercentage');
  t.equal(a.object?.apiVersion, 'autoscaling/v1', 'converted back to the request version');
  t.same(a.object?.metadata?.labels, { seen: 'v2' });
});

t.test('configurations created, changed and deleted after start are followed', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ allowed: false }));
  const p = await plugin(t, f, 'validating');
  await p.validate(createConfigMap(f));
  await configure(f, 'validating', 'late', [webhook('late.example.com', { url: hook.url, caBundle })]);
  const until = async (ok: () => Promise<boolean>): Promise<void> => {
    for (let i = 0; i < 100 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 20));
  };
  const refused = (): Promise<boolean> => p.validate(createConfigMap(f)).then(() => false, () => true);
  await until(refused);
  t.ok(await refused(), 'the new configuration is used');
  const k = f.scheme.byResource('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!;
  await f.registry.delete({ kind: k, name: 'late' }, { dryRun: false });
  await until(async () => !(await refused()));
  t.notOk(await refused(), 'the deleted configuration is not');
});

t.test('unusable answers: kube checks the review, patches and patch types', async (t) => {
  const cases: Array<{ kind: 'mutating' | 'validating'; answer: Obj; version?: string; message: RegExp | string }> = [
    { kind: 'validating', answer: { allowed: true, ...patchOf([]) }, message: /received invalid webhook response: validating webhooks may not return response\.patch or response\.patchType$/ },
    { kind: 'mutating', answer: { allowed: true, patch: Buffer.from('[]').toString('base64') }, message: /webhook returned response\.patch but not response\.patchType$/ },
    { kind: 'mutating', answer: { allowed: true, patchType: 'MergePatch', patch: 'e30=' }, message: /webhook returned invalid response\.patchType of "MergePatch"$/ },
    { kind: 'validating', answer: { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { allowed: true } },
      message: /expected webhook response of admission\.k8s\.io\/v1, Kind=AdmissionReview, got admission\.k8s\.io\/v1beta1, Kind=AdmissionReview$/ },
  ];
  for (const c of cases) {
    const f = await fixture(t);
    const hook = await startHook(t, (req) => ('apiVersion' in c.answer ? { ...c.answer, response: { ...(c.answer.response as Obj), uid: req.uid } } : c.answer));
    await configure(f, c.kind, 'x', [webhook('x.example.com', { url: hook.url, caBundle })]);
    const p = await plugin(t, f, c.kind);
    await rejects(t, c.kind === 'mutating' ? p.admit(createConfigMap(f)) : p.validate(createConfigMap(f)), 500, 'InternalError', c.message);
  }

  const f = await fixture(t);
  const failing = await startHook(t, () => ({ allowed: true, ...patchOf([{ op: 'test', path: '/data/k', value: 'other' }]) }));
  await configure(f, 'mutating', 'x', [webhook('x.example.com', { url: failing.url, caBundle }, { failurePolicy: 'Ignore' })]);
  await rejects(t, (await plugin(t, f, 'mutating')).admit(createConfigMap(f)), 500, 'InternalError', /^Internal error occurred: /,);
  t.pass('a patch that does not apply fails the request whatever the failurePolicy');

  const f2 = await fixture(t);
  const old = await startHook(t, () => ({ apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', response: { allowed: true, patch: Buffer.from('[{"op":"add","path":"/data/b","value":"1"}]').toString('base64') } }));
  await configure(f2, 'mutating', 'x', [webhook('old.example.com', { url: old.url, caBundle }, { admissionReviewVersions: ['v1beta1'] })], 'v1beta1');
  const a = createConfigMap(f2);
  await (await plugin(t, f2, 'mutating')).admit(a);
  t.same(a.object?.data, { k: 'v', b: '1' }, 'a v1beta1 patch without patchType is a JSON patch');
});

t.test('before the first list of configurations, requests wait, then are refused as not ready', async (t) => {
  const f = await fixture(t);
  const down = { ...f.registry, list: () => Promise.reject(new Error('store down')) } as unknown as typeof f.registry;
  const logged: string[] = [];
  const p = validatingWebhookAdmission({ registry: down, scheme: f.scheme, readyTimeoutMs: 200, log: { warn: (fields) => logged.push(JSON.stringify(fields)) } });
  t.teardown(() => p.close());
  await rejects(t, p.validate(createConfigMap(f)), 403, 'Forbidden', 'configmaps "cm" is forbidden: not yet ready to handle request');
  t.match(logged[0], /store down/);
});

t.test('the namespace is read once per request, whatever the number of webhooks', async (t) => {
  const f = await fixture(t);
  const hook = await startHook(t, () => ({ allowed: true }));
  const selector = { namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'Exists' }] } };
  await configure(f, 'validating', 'v', [webhook('one.example.com', { url: hook.url, caBundle }, selector), webhook('two.example.com', { url: hook.url, caBundle }, selector)]);
  let gets = 0;
  const counting = Object.create(f.registry) as typeof f.registry;
  counting.get = (target, options) => {
    if (target.kind.resource === 'namespaces') gets++;
    return f.registry.get(target, options);
  };
  const p = validatingWebhookAdmission({ registry: counting, scheme: f.scheme });
  t.teardown(() => p.close());
  await p.validate(createConfigMap(f));
  t.equal(gets, 1);
  t.equal(hook.reviews.length, 2, 'both webhooks match the namespace');
});
