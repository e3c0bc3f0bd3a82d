import t from 'tap';
import { makeFixture, storeKinds, configMap, deployment, write, dryRun } from '../../helpers/registry-fixture';
import type { KubeObject } from '../../../src/api/kind';
import { rejects } from '../../helpers/registry-assert';

const spec = (o: KubeObject) => o.spec as Record<string, unknown>;

for (const backend of storeKinds()) {
  t.test(`update and patch (${backend})`, async (t) => {
    t.test('PUT: precondition, unconditional update, generation, immutable metadata', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = (await f.registry.create(f.target('deployments', 'default'), deployment('web'), write)).object;
      const target = f.target('deployments', 'default', 'web');
      f.clock.now = new Date('2024-05-01T11:00:00Z');
      // a label change is metadata: no generation bump
      const labelled = structuredClone(created);
      labelled.metadata!.labels = { tier: 'front' };
      const r1 = await f.registry.update(target, labelled, write);
      t.equal(r1.created, false);
      t.equal(r1.object.metadata!.generation, 1);
      t.same(r1.object.metadata!.labels, { tier: 'front' });
      t.equal(r1.object.metadata!.creationTimestamp, created.metadata!.creationTimestamp);
      t.equal(r1.object.metadata!.uid, created.metadata!.uid);
      t.not(r1.object.metadata!.resourceVersion, created.metadata!.resourceVersion);
      // stale resourceVersion: 409
      const stale = structuredClone(created);
      spec(stale).replicas = 5;
      await rejects(t, f.registry.update(target, stale, write), 409, 'Conflict',
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
      // no resourceVersion: unconditional; spec change bumps generation
      const uncond = structuredClone(stale);
      delete uncond.metadata!.resourceVersion;
      const r2 = await f.registry.update(target, uncond, write);
      t.equal(r2.object.metadata!.generation, 2);
      t.equal(spec(r2.object).replicas, 5);
      // client cannot set generation, uid or creationTimestamp
      const sneaky = structuredClone(r2.object);
      sneaky.metadata!.generation = 42;
      sneaky.metadata!.creationTimestamp = '2001-01-01T00:00:00Z';
      const r3 = await f.registry.update(target, sneaky, write);
      t.equal(r3.object.metadata!.generation, 2);
      t.equal(r3.object.metadata!.creationTimestamp, created.metadata!.creationTimestamp);
      const otherUid = structuredClone(r3.object);
      otherUid.metadata!.uid = 'another';
      await rejects(t, f.registry.update(target, otherUid, write), 422, 'Invalid', /metadata\.uid/);
      // name/namespace must match the request
      await rejects(t, f.registry.update(target, { ...structuredClone(r3.object), metadata: { ...r3.object.metadata, name: 'other' } }, write), 400, 'BadRequest',
        'the name of the object (other) does not match the name on the URL (web)');
      await rejects(t, f.registry.update(target, { ...structuredClone(r3.object), metadata: { ...r3.object.metadata, namespace: 'kube-system' } }, write), 400, 'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request');
      // missing object: 404 (no create-on-update for deployments)
      await rejects(t, f.registry.update(f.target('deployments', 'default', 'ghost'), deployment('ghost'), write), 404, 'NotFound', 'deployments.apps "ghost" not found');
    });

    t.test('PUT keeps status for kinds with a status subresource; no-op updates do not write', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = (await f.registry.create(f.target('deployments', 'default'), deployment('web'), write)).object;
      const target = f.target('deployments', 'default', 'web');
      const withStatus = (await f.registry.updateStatus(target, { ...structuredClone(created), status: { replicas: 1, observedGeneration: 1 } }, write)).object;
      t.same(withStatus.status, { replicas: 1, observedGeneration: 1 });
      const attempt = structuredClone(withStatus);
      attempt.status = { replicas: 99 };
      spec(attempt).paused = true;
      const r = (await f.registry.update(target, attempt, write)).object;
      t.same(r.status, { replicas: 1, observedGeneration: 1 }, 'status untouched by PUT');
      t.equal(spec(r).paused, true);
      const before = f.store.currentRevision();
      const same = await f.registry.update(target, structuredClone(r), write);
      t.equal(f.store.currentRevision(), before, 'no write for a no-op');
      t.equal(same.object.metadata!.resourceVersion, r.metadata!.resourceVersion);
    });

    t.test('PUT dry-run validates and leaves the store unchanged', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = (await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write)).object;
      const target = f.target('configmaps', 'default', 'cm');
      const before = f.store.currentRevision();
      const changed = { ...structuredClone(created), data: { k: 'new' } };
      const dry = await f.registry.update(target, changed, dryRun);
      t.same(dry.object.data, { k: 'new' });
      t.equal(dry.object.metadata!.resourceVersion, created.metadata!.resourceVersion);
      t.equal(f.store.currentRevision(), before);
      t.same((await f.registry.get(target, {})).data, { k: 'v' });
      await rejects(t, f.registry.update(target, { ...structuredClone(created), data: { 'bad key!': 'x' } }, dryRun), 422, 'Invalid');
    });

    t.test('PATCH: merge, json, strategic; precondition in the patch; 404; apply needs a field manager', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = (await f.registry.create(f.target('deployments', 'default'), deployment('web'), write)).object;
      const target = f.target('deployments', 'default', 'web');
      const m = await f.registry.patch(target, 'merge', JSON.stringify({ spec: { replicas: 3 } }), write);
      t.equal(spec(m.object).replicas, 3);
      t.equal(m.object.metadata!.generation, 2);
      const j = await f.registry.patch(target, 'json', JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { a: 'b' } }]), write);
      t.same(j.object.metadata!.labels, { a: 'b' });
      t.equal(j.object.metadata!.generation, 2);
      // strategic: containers merge by name
      const s = await f.registry.patch(target, 'strategic', JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'side', image: 'busybox' }] } } } }), write);
      const containers = ((spec(s.object).template as KubeObject).spec as { containers: Array<{ name: string }> }).containers;
      t.same(containers.map((c) => c.name), ['side', 'c']);
      t.equal(s.object.metadata!.generation, 3);
      // a resourceVersion in the patch is a precondition
      await rejects(t, f.registry.patch(target, 'merge', JSON.stringify({ metadata: { resourceVersion: created.metadata!.resourceVersion }, spec: { replicas: 9 } }), write), 409, 'Conflict');
      const ok = await f.registry.patch(target, 'merge', JSON.stringify({ metadata: { resourceVersion: s.object.metadata!.resourceVersion }, spec: { replicas: 4 } }), write);
      t.equal(spec(ok.object).replicas, 4);
      await rejects(t, f.registry.patch(f.target('deployments', 'default', 'ghost'), 'merge', '{}', write), 404, 'NotFound');
      // apply is served (test/api/registry/apply*.test.ts); without a field manager it is kube's 422 PatchOptions
      await rejects(t, f.registry.patch(target, 'apply', 'spec: {}', write), 422, 'Invalid', /fieldManager: Required value: is required for apply patch/);
      // a patch that breaks validation: 422; that changes the name: 400
      await rejects(t, f.registry.patch(target, 'merge', JSON.stringify({ spec: { replicas: -2 } }), write), 422, 'Invalid', /spec\.replicas/);
      await rejects(t, f.registry.patch(target, 'merge', JSON.stringify({ metadata: { name: 'other' } }), write), 400, 'BadRequest');
      // dry-run patch
      const before = f.store.currentRevision();
      const dry = await f.registry.patch(target, 'merge', JSON.stringify({ spec: { replicas: 7 } }), dryRun);
      t.equal(spec(dry.object).replicas, 7);
      t.equal(f.store.currentRevision(), before);
    });

    t.test('PATCH retries on a concurrent writer (GuaranteedUpdate)', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('configmaps', 'default'), configMap('cm', 'default', undefined, { n: '0' }), write);
      const target = f.target('configmaps', 'default', 'cm');
      // many concurrent patches, each adding its own key: all must land
      await Promise.all(Array.from({ length: 10 }, (_, i) => f.registry.patch(target, 'merge', JSON.stringify({ data: { [`k${i}`]: String(i) } }), write)));
      const data = (await f.registry.get(target, {})).data as Record<string, string>;
      t.equal(Object.keys(data).length, 11);
    });

    t.test('status subresource: only status changes, generation untouched, labels kept', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = (await f.registry.create(f.target('deployments', 'default'), deployment('web'), write)).object;
      const target = f.target('deployments', 'default', 'web');
      const body = structuredClone(created);
      spec(body).replicas = 10;
      body.metadata!.labels = { sneaky: 'yes' };
      body.metadata!.annotations = { note: 'from-status' };
      body.status = { replicas: 2, readyReplicas: 1 };
      const r = (await f.registry.updateStatus(target, body, write)).object;
      t.equal(spec(r).replicas, 1, 'spec from the stored object');
      t.same(r.status, { replicas: 2, readyReplicas: 1 });
      t.equal(r.metadata!.generation, 1);
      t.equal(r.metadata!.labels, undefined);
      t.same(r.metadata!.annotations, { note: 'from-status' });
      await rejects(t, f.registry.updateStatus(target, { ...structuredClone(created), status: {} }, write), 409, 'Conflict');
      const p = (await f.registry.patchStatus(target, 'merge', JSON.stringify({ status: { availableReplicas: 1 }, spec: { replicas: 50 } }), write)).object;
      t.same(p.status, { replicas: 2, readyReplicas: 1, availableReplicas: 1 });
      t.equal(spec(p).replicas, 1);
      t.same(await f.registry.getStatus(target, {}), p);
      await rejects(t, f.registry.updateStatus(f.target('configmaps', 'default', 'x'), configMap('x'), write), 404, 'NotFound');
    });

    t.test('scale subresource: read, PUT and patch through the parent', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('deployments', 'default'), deployment('web', 'default', { replicas: 2 }), write);
      const target = f.target('deployments', 'default', 'web');
      const scale = await f.registry.getScale(target, {});
      t.match(scale, { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 2 }, status: { replicas: 0, selector: 'app=web' } });
      const put = await f.registry.updateScale(target, { ...scale, spec: { replicas: 4 } }, write);
      t.equal((put.object.spec as { replicas: number }).replicas, 4);
      const parent = await f.registry.get(target, {});
      t.equal(spec(parent).replicas, 4);
      t.equal(parent.metadata!.generation, 2);
      t.equal(put.object.metadata!.resourceVersion, parent.metadata!.resourceVersion);
      // the Scale's resourceVersion is a precondition
      await rejects(t, f.registry.updateScale(target, { ...scale, spec: { replicas: 6 } }, write), 409, 'Conflict');
      const patched = await f.registry.patchScale(target, 'merge', JSON.stringify({ spec: { replicas: 1 } }), write);
      t.equal((patched.object.spec as { replicas: number }).replicas, 1);
      const json = await f.registry.patchScale(target, 'json', JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 3 }]), write);
      t.equal((json.object.spec as { replicas: number }).replicas, 3);
      await rejects(t, f.registry.patchScale(target, 'merge', JSON.stringify({ spec: { replicas: -1 } }), write), 422, 'Invalid',
        'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
      await rejects(t, f.registry.getScale(f.target('deployments', 'default', 'ghost'), {}), 404, 'NotFound');
      const before = f.store.currentRevision();
      await f.registry.patchScale(target, 'merge', JSON.stringify({ spec: { replicas: 8 } }), dryRun);
      t.equal(f.store.currentRevision(), before);
    });
  });
}
