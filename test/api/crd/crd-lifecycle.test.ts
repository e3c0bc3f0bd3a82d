/**
 * A CRD's life through the registry with the CRD controllers running: created, named, established
 * and served; its objects validated, pruned, defaulted, listed, watched, scaled; updated; deleted
 * with its objects; served again after a restart.
 */
import t from 'tap';
import type { Test } from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { isApiError } from '../../../src/api/errors';
import { customResources } from '../../../src/api/crd';
import { CollectingSink, storeKinds } from '../../helpers/registry-fixture';
import { crdFixture, cronTab, cronTabCrd, write } from './fixture';

async function rejects(t: Test, p: Promise<unknown>): Promise<{ code: number; message: string; reason?: string; causes?: unknown[] }> {
  try {
    await p;
  } catch (err) {
    if (isApiError(err)) return { code: err.code, message: err.message, reason: err.status.reason, causes: err.status.details?.causes };
    throw err;
  }
  t.fail('expected a rejection');
  return { code: 0, message: '' };
}

const cond = (crd: KubeObject, type: string) => ((crd.status as { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> })?.conditions ?? []).find((c) => c.type === type);

for (const store of storeKinds()) {
  t.test(`${store}: create, establish, serve`, async (t) => {
    const f = await crdFixture(t, store);
    const created = await f.createCrd(cronTabCrd());
    t.same((created.status as { storedVersions: string[] }).storedVersions, ['v1']);
    await f.crs.idle();
    const crd = await f.crs.registry.get({ kind: f.crdKind, name: 'crontabs.stable.example.com' }, {});
    t.match(cond(crd, 'NamesAccepted'), { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    t.match(cond(crd, 'Established'), { status: 'True', reason: 'InitialNamesAccepted' });
    t.same((crd.status as { acceptedNames: unknown }).acceptedNames, { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] });
    const kind = f.scheme.byResource('stable.example.com', 'v1', 'crontabs')!;
    t.equal(kind.kind, 'CronTab');
    t.same(kind.shortNames, ['ct']);
    t.same(kind.categories, ['all']);
    t.ok(kind.definitions?.['com.example.stable.v1.CronTab'], 'OpenAPI definition under the reversed group');
    t.ok(kind.definitions?.['com.example.stable.v1.CronTabList']);
  });

  t.test(`${store}: custom objects: defaults, pruning, validation, status, scale`, async (t) => {
    const f = await crdFixture(t, store);
    await f.createCrd(cronTabCrd());
    const kind = f.scheme.byResource('stable.example.com', 'v1', 'crontabs')!;
    const target = { kind, namespace: 'default' };
    const r = await f.crs.registry.create(target, cronTab('a', { cronSpec: '* * * * */5', unknown: 1, free: { anything: { goes: true } }, status: 'x' }), { dryRun: false, fieldValidation: 'Warn' });
    t.same(r.object.spec, { cronSpec: '* * * * */5', free: { anything: { goes: true } }, replicas: 1 }, 'pruned and defaulted');
    t.same(r.warnings, ['unknown field "spec.status"', 'unknown field "spec.unknown"'].sort().filter((w) => r.warnings?.includes(w)).length ? r.warnings : [], 'unknown fields warned');
    t.ok(r.warnings?.includes('unknown field "spec.unknown"'));
    t.equal(r.object.metadata?.generation, 1);

    const bad = await rejects(t, f.crs.registry.create(target, cronTab('b', { cronSpec: 'bad', replicas: 'x', mode: 'odd' }), write));
    t.equal(bad.code, 422);
    t.match(bad.message, /^CronTab\.stable\.example\.com "b" is invalid: \[/);
    t.match(bad.message, 'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"');
    t.match(bad.message, `spec.cronSpec: Invalid value: "bad": spec.cronSpec in body should match '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$'`);
    t.match(bad.message, 'spec.mode: Unsupported value: "odd": supported values: "fast", "slow"');

    const missing = await rejects(t, f.crs.registry.create(target, cronTab('c', { image: 'x' }), write));
    t.match(missing.message, 'spec.cronSpec: Required value');
    const strict = await rejects(t, f.crs.registry.create(target, cronTab('d', { cronSpec: '* * * * *', nope: 1 }), { dryRun: false, fieldValidation: 'Strict' }));
    t.equal(strict.code, 400);
    t.equal(strict.message, 'strict decoding error: unknown field "spec.nope"');

    // an update without resourceVersion: custom resources require one
    const noRv = await rejects(t, f.crs.registry.update({ ...target, name: 'a' }, cronTab('a', { cronSpec: '1 * * * *' }), write));
    t.equal(noRv.code, 422);
    t.match(noRv.message, 'metadata.resourceVersion: Invalid value: 0: must be specified for an update');

    // the status subresource: main writes keep status, status writes keep the rest
    const got = await f.crs.registry.get({ ...target, name: 'a' }, {});
    const withStatus = await f.crs.registry.updateStatus({ ...target, name: 'a' }, { ...got, spec: { cronSpec: 'ignored' }, status: { replicas: 3, selector: 'app=cron' } }, write);
    t.same(withStatus.object.status, { replicas: 3, selector: 'app=cron' });
    t.equal((withStatus.object.spec as { cronSpec: string }).cronSpec, '* * * * */5');
    t.equal(withStatus.object.metadata?.generation, 1, 'status writes do not bump generation');
    const spec2 = await f.crs.registry.update({ ...target, name: 'a' }, { ...withStatus.object, spec: { cronSpec: '1 * * * *' }, status: { replicas: 9 } }, write);
    t.same(spec2.object.status, { replicas: 3, selector: 'app=cron' });
    t.equal(spec2.object.metadata?.generation, 2);

    // scale
    const scale = await f.crs.registry.getScale({ ...target, name: 'a' }, {});
    t.match(scale, { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 }, status: { replicas: 3, selector: 'app=cron' } });
    await f.crs.registry.patchScale({ ...target, name: 'a' }, 'merge', '{"spec":{"replicas":4}}', write);
    t.equal(((await f.crs.registry.get({ ...target, name: 'a' }, {})).spec as { replicas: number }).replicas, 4);

    // strategic merge patch is refused, merge and json work
    const smp = await rejects(t, f.crs.registry.patch({ ...target, name: 'a' }, 'strategic', '{"spec":{"image":"x"}}', write));
    t.equal(smp.code, 415);
    t.equal(smp.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');
    await f.crs.registry.patch({ ...target, name: 'a' }, 'merge', '{"spec":{"image":"merged"}}', write);
    await f.crs.registry.patch({ ...target, name: 'a' }, 'json', '[{"op":"replace","path":"/spec/image","value":"json"}]', write);
    t.equal(((await f.crs.registry.get({ ...target, name: 'a' }, {})).spec as { image: string }).image, 'json');

    // server-side apply with the kind's schema (a set list)
    const applied = await f.crs.registry.patch({ ...target, name: 'e' }, 'apply', JSON.stringify(cronTab('e', { cronSpec: '* * * * *', tags: ['a', 'b'] })), { dryRun: false, fieldManager: 'me' });
    t.ok(applied.created);
    const mf = applied.object.metadata?.managedFields as Array<{ manager: string; fieldsV1: unknown }>;
    t.match(mf[0], { manager: 'me', fieldsV1: { 'f:spec': { 'f:tags': { 'v:"a"': {}, 'v:"b"': {} } } } });

    // list with selectors
    const list = await f.crs.registry.list({ kind }, { fieldSelector: 'metadata.name=a' });
    t.same(list.items.map((i) => i.metadata?.name), ['a']);
    t.equal(list.kind, 'CronTabList');
    const dup = await rejects(t, f.crs.registry.create(target, cronTab('f', { cronSpec: '* * * * *', tags: ['x', 'x'] }), write));
    t.match(dup.message, 'spec.tags[1]: Duplicate value: "x"');
  });

  t.test(`${store}: embedded resources and int-or-string`, async (t) => {
    const f = await crdFixture(t, store);
    await f.createCrd(cronTabCrd());
    const kind = f.scheme.byResource('stable.example.com', 'v1', 'crontabs')!;
    const target = { kind, namespace: 'default' };
    const bad = await rejects(t, f.crs.registry.create(target, cronTab('a', { cronSpec: '* * * * *', port: true, template: { metadata: { name: 'Bad_Name' } } }), write));
    t.match(bad.message, 'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"');
    t.match(bad.message, 'spec.template.apiVersion: Required value: must not be empty');
    t.match(bad.message, 'spec.template.kind: Required value: must not be empty');
    const ok = await f.crs.registry.create(target, cronTab('b', { cronSpec: '* * * * *', port: 'http', template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', junk: 1 }, spec: { x: 1 } } }), write);
    t.same((ok.object.spec as { template: unknown }).template, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { x: 1 } }, 'embedded metadata pruned, the rest preserved');
  });

  t.test(`${store}: name conflicts and built-in names`, async (t) => {
    const f = await crdFixture(t, store);
    await f.createCrd(cronTabCrd());
    const other = cronTabCrd();
    other.metadata = { name: 'crontabz.stable.example.com' };
    (other.spec as { names: Record<string, unknown> }).names = { plural: 'crontabz', kind: 'CronTab', shortNames: ['ct'] };
    await f.crs.registry.create({ kind: f.crdKind }, other, write);
    let got = await f.crs.registry.get({ kind: f.crdKind, name: 'crontabz.stable.example.com' }, {});
    for (let i = 0; i < 100 && !cond(got, 'NamesAccepted'); i++) {
      await new Promise((r) => setTimeout(r, 20));
      got = await f.crs.registry.get({ kind: f.crdKind, name: 'crontabz.stable.example.com' }, {});
    }
    t.match(cond(got, 'NamesAccepted'), { status: 'False' });
    t.match(cond(got, 'NamesAccepted')?.reason, /ShortNamesConflict|KindConflict/);
    t.match(cond(got, 'Established'), { status: 'False', reason: 'NotAccepted' });
    t.notOk(f.scheme.byResource('stable.example.com', 'v1', 'crontabz'), 'not served');
  });

  t.test(`${store}: delete a CRD: terminating, objects deleted, unserved`, async (t) => {
    const f = await crdFixture(t, store);
    await f.createCrd(cronTabCrd());
    const kind = f.scheme.byResource('stable.example.com', 'v1', 'crontabs')!;
    await f.crs.registry.create({ kind, namespace: 'default' }, cronTab('a'), write);
    await f.crs.registry.create({ kind, namespace: 'kube-system' }, cronTab('b', undefined, 'kube-system'), write);
    const first = await f.crs.registry.delete({ kind: f.crdKind, name: 'crontabs.stable.example.com' }, write);
    const body = first.body as KubeObject;
    t.ok(body.metadata?.deletionTimestamp);
    t.same(body.metadata?.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    t.match(cond(body, 'Terminating'), { status: 'True', reason: 'InstanceDeletionPending' });
    await f.waitGone('stable.example.com', 'v1', 'crontabs');
    await f.crs.idle();
    const gone = await rejects(t, f.crs.registry.get({ kind: f.crdKind, name: 'crontabs.stable.example.com' }, {}));
    t.equal(gone.code, 404);
    t.equal((await f.store.list('/registry/stable.example.com/crontabs/')).items.length, 0, 'objects deleted');
  });
}

t.test('namespace deletion deletes custom objects', async (t) => {
  const f = await crdFixture(t);
  await f.createCrd(cronTabCrd());
  const kind = f.scheme.byResource('stable.example.com', 'v1', 'crontabs')!;
  const nsKind = f.scheme.byResource('', 'v1', 'namespaces')!;
  await f.crs.registry.create({ kind: nsKind }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }, write);
  await f.crs.registry.create({ kind, namespace: 'team' }, cronTab('a', undefined, 'team'), write);
  await f.crs.registry.delete({ kind: nsKind, name: 'team' }, write);
  await f.registry.idle();
  t.equal((await f.store.list('/registry/stable.example.com/crontabs/team/')).items.length, 0);
});

t.test('CRDs already stored are served by start, before anything else', async (t) => {
  const f = await crdFixture(t, 'memory');
  await f.createCrd(cronTabCrd());
  await f.crs.idle();
  f.crs.close();
  const kinds = f.scheme.kinds.filter((k) => k.group === 'stable.example.com');
  f.scheme.remove((k) => kinds.includes(k));
  t.notOk(f.scheme.byResource('stable.example.com', 'v1', 'crontabs'));
  const again = customResources({ registry: f.registry, scheme: f.scheme });
  await again.start();
  t.ok(f.scheme.byResource('stable.example.com', 'v1', 'crontabs'), 'served when start resolves');
  again.close();
});

t.test('a watch of custom objects ends when the CRD schema changes (no stale decoder)', async (t) => {
  const f = await crdFixture(t, 'memory');
  await f.createCrd(cronTabCrd());
  const kind = f.scheme.byResource('stable.example.com', 'v1', 'crontabs')!;
  await f.crs.registry.create({ kind, namespace: 'default' }, cronTab('a'), write);
  const sink = new CollectingSink();
  await f.crs.registry.watch({ kind }, { resourceVersion: '0' }, sink);
  await sink.waitFor((e) => e.length >= 1);
  const crd = await f.crs.registry.get({ kind: f.crdKind, name: 'crontabs.stable.example.com' }, {});
  const spec = crd.spec as { versions: Array<{ additionalPrinterColumns?: unknown[] }> };
  spec.versions[0].additionalPrinterColumns = [{ name: 'Image', type: 'string', jsonPath: '.spec.image' }];
  await f.crs.registry.update({ kind: f.crdKind, name: 'crontabs.stable.example.com' }, crd, write);
  await sink.waitFor(() => sink.ended);
  t.ok(sink.ended, 'the old watch ended');
  const next = f.scheme.byResource('stable.example.com', 'v1', 'crontabs')!;
  t.not(next, kind, 'the kind was replaced');
  t.same(next.table?.columns.map((c) => c.name), ['Name', 'Image']);
});

t.test('a v1beta1 CRD keeping unknown fields is served and marked NonStructuralSchema', async (t) => {
  const f = await crdFixture(t, 'memory');
  const beta = f.scheme.byResource('apiextensions.k8s.io', 'v1beta1', 'customresourcedefinitions')!;
  await f.crs.registry.create(
    { kind: beta },
    { apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' }, spec: { group: 'example.com', version: 'v1', scope: 'Cluster', names: { plural: 'widgets', kind: 'Widget' } } },
    write,
  );
  const kind = await f.waitKind('example.com', 'v1', 'widgets');
  let crd = await f.crs.registry.get({ kind: f.crdKind, name: 'widgets.example.com' }, {});
  for (let i = 0; i < 100 && !cond(crd, 'NonStructuralSchema'); i++) {
    await new Promise((r) => setTimeout(r, 20));
    crd = await f.crs.registry.get({ kind: f.crdKind, name: 'widgets.example.com' }, {});
  }
  t.match(cond(crd, 'NonStructuralSchema'), { status: 'True', reason: 'Violations', message: 'spec.preserveUnknownFields: Invalid value: true: must be false' });
  const w = await f.crs.registry.create({ kind }, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { anything: [1, { x: true }] } }, write);
  t.same(w.object.spec, { anything: [1, { x: true }] }, 'nothing pruned');
});
