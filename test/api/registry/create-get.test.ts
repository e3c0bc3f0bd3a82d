import t from 'tap';
import { makeFixture, storeKinds, configMap, deployment, namespace, write, dryRun } from '../../helpers/registry-fixture';
import { rejects } from '../../helpers/registry-assert';

for (const backend of storeKinds()) {
  t.test(`create and get (${backend})`, async (t) => {
    t.test('bootstrap makes the system namespaces, Active with the kubernetes finalizer', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const l = await f.registry.list(f.target('namespaces'), {});
      t.same(l.items.map((n) => n.metadata!.name).sort(), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
      t.same(l.items[0].status, { phase: 'Active' });
      t.same(l.items[0].spec, { finalizers: ['kubernetes'] });
      await f.registry.bootstrap(); // idempotent
      t.equal((await f.registry.list(f.target('namespaces'), {})).items.length, 4);
    });

    t.test('create fills system metadata and returns the stored object', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const res = await f.registry.create(f.target('deployments', 'default'), deployment('web'), write);
      t.equal(res.created, true);
      const m = res.object.metadata!;
      t.equal(m.name, 'web');
      t.equal(m.namespace, 'default');
      t.match(m.uid, /^[0-9a-f-]{36}$/);
      t.equal(m.creationTimestamp, '2024-05-01T10:00:00Z');
      t.equal(m.generation, 1);
      t.equal(m.resourceVersion, String(f.store.currentRevision()));
      t.equal((res.object.spec as { revisionHistoryLimit: number }).revisionHistoryLimit, 10, 'defaults applied');
      t.same(res.object.status, {}, 'PrepareForCreate resets status');
      const got = await f.registry.get(f.target('deployments', 'default', 'web'), {});
      t.same(got, res.object);
    });

    t.test('create wipes client-set system fields, refuses a client resourceVersion like kube', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const body = configMap('cm');
      body.metadata = { ...body.metadata, uid: 'mine', creationTimestamp: '2000-01-01T00:00:00Z', deletionTimestamp: '2000-01-01T00:00:00Z', selfLink: '/x' };
      const res = await f.registry.create(f.target('configmaps', 'default'), body, write);
      t.not(res.object.metadata!.uid, 'mine');
      t.equal(res.object.metadata!.creationTimestamp, '2024-05-01T10:00:00Z');
      t.equal(res.object.metadata!.deletionTimestamp, undefined);
      t.equal(res.object.metadata!.selfLink, undefined);
      const withRv = configMap('cm2');
      withRv.metadata!.resourceVersion = '5';
      await rejects(t, f.registry.create(f.target('configmaps', 'default'), withRv, write), 500, 'InternalError', /resourceVersion should not be set on objects to be created/);
    });

    t.test('namespace and type checks', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const cm = configMap('cm', 'other');
      await rejects(t, f.registry.create(f.target('configmaps', 'default'), cm, write), 400, 'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request');
      const noNs = configMap('cm2');
      delete noNs.metadata!.namespace;
      t.equal((await f.registry.create(f.target('configmaps', 'default'), noNs, write)).object.metadata!.namespace, 'default');
      await rejects(t, f.registry.create(f.target('configmaps', 'default'), { ...configMap('x'), apiVersion: 'apps/v1' }, write), 400, 'BadRequest',
        'the API version in the data (apps/v1) does not match the expected API version (v1)');
      await rejects(t, f.registry.create(f.target('configmaps', 'default'), { ...configMap('x'), kind: 'Secret' }, write), 400, 'BadRequest');
      // a type error is kube's decode error (400); an unknown field follows fieldValidation
      const bad = deployment('bad');
      (bad.spec as Record<string, unknown>).replicas = 'three';
      await rejects(t, f.registry.create(f.target('deployments', 'default'), bad, write), 400, 'BadRequest',
        /^Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field/);
      const extra = deployment('extra');
      (extra.spec as Record<string, unknown>).replicaz = 3;
      await rejects(t, f.registry.create(f.target('deployments', 'default'), extra, { dryRun: false, fieldValidation: 'Strict' }), 400, 'BadRequest',
        'strict decoding error: unknown field "spec.replicaz"');
      const warned = await f.registry.create(f.target('deployments', 'default'), extra, { dryRun: false, fieldValidation: 'Warn' });
      t.same(warned.warnings, ['unknown field "spec.replicaz"']);
      t.equal((warned.object.spec as Record<string, unknown>).replicaz, undefined, 'unknown fields are dropped, as kube decodes into typed objects');
      const ignored = deployment('ignored');
      (ignored.spec as Record<string, unknown>).replicaz = 3;
      ((ignored.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template.spec.containers[0]).imagez = 'x';
      const quiet = await f.registry.create(f.target('deployments', 'default'), ignored, { dryRun: false, fieldValidation: 'Ignore' });
      t.equal(quiet.warnings, undefined);
      t.equal(JSON.stringify(quiet.object).includes('imagez'), false);
    });

    t.test('namespace lifecycle: missing namespace 404, terminating namespace 403', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await rejects(t, f.registry.create(f.target('configmaps', 'nope'), configMap('cm', 'nope'), write), 404, 'NotFound', 'namespaces "nope" not found');
      await f.registry.create(f.target('namespaces'), namespace('doomed'), write);
      // a pod on a node keeps the namespace terminating while its grace period runs
      await f.registry.create(f.target('pods', 'doomed'), { ...podOnNode('p', 'doomed') }, write);
      await f.registry.delete(f.target('namespaces', undefined, 'doomed'), write);
      const status = await rejects(t, f.registry.create(f.target('configmaps', 'doomed'), configMap('cm', 'doomed'), write), 403, 'Forbidden',
        'configmaps "cm" is forbidden: unable to create new content in namespace doomed because it is being terminated');
      t.same(status?.details?.causes, [{ reason: 'NamespaceTerminating', message: 'namespace doomed is being terminated', field: 'metadata.namespace' }]);
    });

    t.test('validation: metadata and strategy causes in one 422', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const d = deployment('Bad_Name');
      (d.spec as Record<string, unknown>).replicas = -1;
      const status = await rejects(t, f.registry.create(f.target('deployments', 'default'), d, write), 422, 'Invalid', /^Deployment\.apps "Bad_Name" is invalid: \[/);
      const fields = status?.details?.causes?.map((c) => c.field);
      t.ok(fields?.includes('metadata.name'));
      t.ok(fields?.includes('spec.replicas'));
      t.equal(status?.details?.kind, 'Deployment');
      t.equal(status?.details?.group, 'apps');
    });

    t.test('AlreadyExists, generateName, dry-run', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const target = f.target('configmaps', 'default');
      await f.registry.create(target, configMap('cm'), write);
      await rejects(t, f.registry.create(target, configMap('cm'), write), 409, 'AlreadyExists', 'configmaps "cm" already exists');
      const gen = configMap('');
      delete gen.metadata!.name;
      gen.metadata!.generateName = 'web-';
      const a = await f.registry.create(target, gen, write);
      t.match(a.object.metadata!.name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      t.equal(a.object.metadata!.generateName, 'web-');
      const long = { ...gen, metadata: { ...gen.metadata, generateName: 'x'.repeat(70) } };
      const b = await f.registry.create(target, long, write);
      t.equal(b.object.metadata!.name!.length, 63);
      const before = f.store.currentRevision();
      const dry = await f.registry.create(target, configMap('dry'), dryRun);
      t.equal(dry.created, true);
      t.equal(dry.object.metadata!.name, 'dry');
      t.ok(dry.object.metadata!.uid);
      t.equal(dry.object.metadata!.resourceVersion, undefined, 'kube returns no resourceVersion for a dry-run create');
      t.equal(f.store.currentRevision(), before, 'nothing written');
      await rejects(t, f.registry.get(f.target('configmaps', 'default', 'dry'), {}), 404, 'NotFound', 'configmaps "dry" not found');
      // dry-run still validates
      await rejects(t, f.registry.create(target, configMap('Bad_Name'), dryRun), 422, 'Invalid');
    });

    t.test('get: rv semantics and errors', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = await f.registry.create(f.target('deployments', 'default'), deployment('web'), write);
      const target = f.target('deployments', 'default', 'web');
      const rv = Number(created.object.metadata!.resourceVersion);
      t.equal((await f.registry.get(target, { resourceVersion: '0' })).metadata!.resourceVersion, String(rv));
      t.equal((await f.registry.get(target, { resourceVersion: String(rv - 1) })).metadata!.resourceVersion, String(rv), 'not older than');
      await rejects(t, f.registry.get(target, { resourceVersion: String(rv + 10) }), 504, 'Timeout', `Too large resource version: ${rv + 10}, current: ${rv}`);
      await rejects(t, f.registry.get(target, { resourceVersion: 'x1' }), 400, 'BadRequest', /^invalid resource version: resourceVersion: Invalid value: "x1"/);
      await rejects(t, f.registry.get(f.target('deployments', 'default', 'nope'), {}), 404, 'NotFound', 'deployments.apps "nope" not found');
      const status = await rejects(t, f.registry.get(f.target('deployments', 'default', 'nope'), {}), 404, 'NotFound');
      t.same(status?.details, { name: 'nope', group: 'apps', kind: 'deployments' });
    });
  });
}

function podOnNode(name: string, ns: string) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'busybox' }] } };
}
