import t from 'tap';
import { makeFixture, storeKinds, configMap, deployment, pod, namespace, write, dryRun } from '../../helpers/registry-fixture';
import type { KubeObject } from '../../../src/api/kind';
import type { Status } from '../../../src/api/errors';
import { rejects } from '../../helpers/registry-assert';

for (const backend of storeKinds()) {
  t.test(`delete (${backend})`, async (t) => {
    t.test('plain delete: Success Status for most kinds, the object for pods', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const d = (await f.registry.create(f.target('deployments', 'default'), deployment('web'), write)).object;
      const res = await f.registry.delete(f.target('deployments', 'default', 'web'), write);
      t.equal(res.code, 200);
      t.same(res.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'web', group: 'apps', kind: 'deployments', uid: d.metadata!.uid } });
      await rejects(t, f.registry.get(f.target('deployments', 'default', 'web'), {}), 404, 'NotFound');
      await rejects(t, f.registry.delete(f.target('deployments', 'default', 'web'), write), 404, 'NotFound', 'deployments.apps "web" not found');
      await f.registry.create(f.target('pods', 'default'), pod('p'), write);
      const p = await f.registry.delete(f.target('pods', 'default', 'p'), write);
      t.equal((p.body as KubeObject).kind, 'Pod');
      t.equal((p.body as KubeObject).metadata!.name, 'p');
      t.equal((p.body as KubeObject).metadata!.resourceVersion, String(f.store.currentRevision()), 'the revision of the deletion');
    });

    t.test('preconditions and option validation', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const cm = (await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write)).object;
      const target = f.target('configmaps', 'default', 'cm');
      await rejects(t, f.registry.delete(target, { dryRun: false, preconditions: { uid: 'other' } }), 409, 'Conflict',
        `Operation cannot be fulfilled on ConfigMap "cm": the UID in the precondition (other) does not match the UID in record (${cm.metadata!.uid}). The object might have been deleted and then recreated`);
      await rejects(t, f.registry.delete(target, { dryRun: false, preconditions: { resourceVersion: '1' } }), 409, 'Conflict',
        /the ResourceVersion in the precondition \(1\) does not match the ResourceVersion in record/);
      await rejects(t, f.registry.delete(target, { dryRun: false, propagationPolicy: 'Sideways' }), 422, 'Invalid',
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
      await rejects(t, f.registry.delete(target, { dryRun: false, propagationPolicy: 'Orphan', orphanDependents: true }), 422, 'Invalid',
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set');
      const ok = await f.registry.delete(target, { dryRun: false, preconditions: { uid: cm.metadata!.uid, resourceVersion: cm.metadata!.resourceVersion } });
      t.equal((ok.body as Status).status, 'Success');
    });

    t.test('dry-run delete leaves the store unchanged', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write);
      await f.registry.create(f.target('configmaps', 'default'), { ...configMap('fin'), metadata: { name: 'fin', namespace: 'default', finalizers: ['example.com/keep'] } }, write);
      const before = f.store.currentRevision();
      t.equal(((await f.registry.delete(f.target('configmaps', 'default', 'cm'), dryRun)).body as Status).status, 'Success');
      const fin = await f.registry.delete(f.target('configmaps', 'default', 'fin'), dryRun);
      t.ok((fin.body as KubeObject).metadata!.deletionTimestamp, 'the would-be state');
      t.equal(f.store.currentRevision(), before);
      t.equal((await f.registry.get(f.target('configmaps', 'default', 'fin'), {})).metadata!.deletionTimestamp, undefined);
    });

    t.test('finalizers: deletionTimestamp, kept until the last finalizer goes by update', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const target = f.target('deployments', 'default', 'web');
      const body = deployment('web');
      body.metadata!.finalizers = ['example.com/a', 'example.com/b'];
      await f.registry.create(f.target('deployments', 'default'), body, write);
      f.clock.now = new Date('2024-05-01T12:00:00Z');
      const res = await f.registry.delete(target, write);
      t.equal(res.code, 200);
      const terminating = res.body as KubeObject;
      t.equal(terminating.metadata!.deletionTimestamp, '2024-05-01T12:00:00Z');
      t.equal(terminating.metadata!.deletionGracePeriodSeconds, 0);
      t.equal(terminating.metadata!.generation, 2, 'kube bumps generation when deletion starts');
      // a second delete changes nothing
      const again = await f.registry.delete(target, write);
      t.equal((again.body as KubeObject).metadata!.resourceVersion, terminating.metadata!.resourceVersion);
      // no new finalizers while deleting; deletionTimestamp cannot be changed
      await rejects(t, f.registry.patch(target, 'merge', JSON.stringify({ metadata: { finalizers: ['example.com/a', 'example.com/b', 'example.com/c'] } }), write), 422, 'Invalid',
        /no new finalizers can be added if the object is being deleted/);
      const one = await f.registry.patch(target, 'json', JSON.stringify([{ op: 'remove', path: '/metadata/finalizers/0' }]), write);
      t.same(one.object.metadata!.finalizers, ['example.com/b']);
      t.equal(one.object.metadata!.deletionTimestamp, '2024-05-01T12:00:00Z');
      const last = await f.registry.patch(target, 'json', JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]), write);
      t.equal(last.object.metadata!.name, 'web');
      await rejects(t, f.registry.get(target, {}), 404, 'NotFound');
      // an update cannot start a deletion
      await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write);
      await rejects(t, f.registry.patch(f.target('configmaps', 'default', 'cm'), 'merge', JSON.stringify({ metadata: { deletionTimestamp: '2024-01-01T00:00:00Z' } }), write), 422, 'Invalid',
        /metadata\.deletionTimestamp/);
    });

    t.test('propagation: Orphan adds orphan, Foreground adds foregroundDeletion, 202 for orphanDependents=false', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      for (const n of ['a', 'b', 'c', 'd']) await f.registry.create(f.target('configmaps', 'default'), configMap(n), write);
      const a = await f.registry.delete(f.target('configmaps', 'default', 'a'), { dryRun: false, propagationPolicy: 'Orphan' });
      t.same((a.body as KubeObject).metadata!.finalizers, ['orphan']);
      t.ok((a.body as KubeObject).metadata!.deletionTimestamp);
      const b = await f.registry.delete(f.target('configmaps', 'default', 'b'), { dryRun: false, propagationPolicy: 'Foreground' });
      t.same((b.body as KubeObject).metadata!.finalizers, ['foregroundDeletion']);
      t.equal(b.code, 200);
      const c = await f.registry.delete(f.target('configmaps', 'default', 'c'), { dryRun: false, orphanDependents: false });
      t.equal(c.code, 200, 'nothing pending: deleted at once');
      t.equal((c.body as Status).status, 'Success');
      const d = await f.registry.delete(f.target('configmaps', 'default', 'd'), { dryRun: false, orphanDependents: true });
      t.same((d.body as KubeObject).metadata!.finalizers, ['orphan']);
      // switching policy on a terminating object swaps the GC finalizer (non-graceful kinds allow it)
      const d2 = await f.registry.delete(f.target('configmaps', 'default', 'd'), { dryRun: false, orphanDependents: false });
      t.equal(d2.code, 200, 'orphan removed, nothing left: deleted');
      await rejects(t, f.registry.get(f.target('configmaps', 'default', 'd'), {}), 404, 'NotFound');
      const b2 = await f.registry.delete(f.target('configmaps', 'default', 'b'), { dryRun: false, propagationPolicy: 'Orphan' });
      t.same((b2.body as KubeObject).metadata!.finalizers, ['orphan']);
      // an object with its own finalizer and orphanDependents=false stays: 202
      await f.registry.create(f.target('configmaps', 'default'), { ...configMap('e'), metadata: { name: 'e', namespace: 'default', finalizers: ['example.com/x'] } }, write);
      const e = await f.registry.delete(f.target('configmaps', 'default', 'e'), { dryRun: false, orphanDependents: false });
      t.equal(e.code, 202);
      // a future GC removing `orphan` finishes the deletion
      await f.registry.patch(f.target('configmaps', 'default', 'a'), 'merge', JSON.stringify({ metadata: { finalizers: null } }), write);
      await rejects(t, f.registry.get(f.target('configmaps', 'default', 'a'), {}), 404, 'NotFound');
    });

    t.test('graceful deletion of pods on a node; unscheduled pods go at once', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('pods', 'default'), pod('bound', 'default', 'node-1'), write);
      await f.registry.create(f.target('pods', 'default'), pod('free'), write);
      const target = f.target('pods', 'default', 'bound');
      const res = await f.registry.delete(target, write);
      const p = res.body as KubeObject;
      t.equal(p.metadata!.deletionGracePeriodSeconds, 30);
      t.equal(p.metadata!.deletionTimestamp, '2024-05-01T10:00:30Z');
      t.ok(await f.registry.get(target, {}), 'still there for the node agent');
      // a longer grace period changes nothing; a shorter one moves the deadline
      const longer = await f.registry.delete(target, { dryRun: false, gracePeriodSeconds: 60 });
      t.equal((longer.body as KubeObject).metadata!.deletionGracePeriodSeconds, 30);
      const shorter = await f.registry.delete(target, { dryRun: false, gracePeriodSeconds: 10 });
      t.equal((shorter.body as KubeObject).metadata!.deletionGracePeriodSeconds, 10);
      t.equal((shorter.body as KubeObject).metadata!.deletionTimestamp, '2024-05-01T10:00:10Z');
      // the agent finishes with grace 0
      const done = await f.registry.delete(target, { dryRun: false, gracePeriodSeconds: 0 });
      t.equal((done.body as KubeObject).metadata!.name, 'bound');
      await rejects(t, f.registry.get(target, {}), 404, 'NotFound');
      // unscheduled: gone at once whatever grace is asked
      await f.registry.delete(f.target('pods', 'default', 'free'), { dryRun: false, gracePeriodSeconds: 30 });
      await rejects(t, f.registry.get(f.target('pods', 'default', 'free'), {}), 404, 'NotFound');
      // unscheduled with no grace asked (kubectl delete pod): gone at once, not left Terminating
      await f.registry.create(f.target('pods', 'default'), pod('free2'), write);
      const free2 = await f.registry.delete(f.target('pods', 'default', 'free2'), write);
      t.equal((free2.body as KubeObject).metadata!.deletionGracePeriodSeconds, 0);
      await rejects(t, f.registry.get(f.target('pods', 'default', 'free2'), {}), 404, 'NotFound');
      // bound but finished (Succeeded or Failed): no agent will finish it, so gone at once too
      for (const phase of ['Succeeded', 'Failed']) {
        const name = `done-${phase.toLowerCase()}`;
        await f.registry.create(f.target('pods', 'default'), pod(name, 'default', 'node-1'), write);
        await f.registry.patchStatus(f.target('pods', 'default', name), 'merge', JSON.stringify({ status: { phase } }), write);
        await f.registry.delete(f.target('pods', 'default', name), write);
        await rejects(t, f.registry.get(f.target('pods', 'default', name), {}), 404, 'NotFound');
      }
      // a negative grace period reads as 1 second
      await f.registry.create(f.target('pods', 'default'), pod('neg', 'default', 'node-1'), write);
      const neg = await f.registry.delete(f.target('pods', 'default', 'neg'), { dryRun: false, gracePeriodSeconds: -5 });
      t.equal((neg.body as KubeObject).metadata!.deletionGracePeriodSeconds, 1);
    });

    t.test('deletecollection: selectors, list of deleted objects, rules per object', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      for (let i = 0; i < 5; i++) await f.registry.create(f.target('configmaps', 'default'), configMap(`cm${i}`, 'default', { keep: i < 2 ? 'yes' : 'no' }), write);
      await f.registry.create(f.target('configmaps', 'default'), { ...configMap('held', 'default', { keep: 'no' }), metadata: { name: 'held', namespace: 'default', labels: { keep: 'no' }, finalizers: ['example.com/x'] } }, write);
      const before = f.store.currentRevision();
      const dry = await f.registry.deleteCollection(f.target('configmaps', 'default'), { labelSelector: 'keep=no' }, dryRun);
      t.equal(dry.items.length, 4);
      t.equal(f.store.currentRevision(), before);
      const res = await f.registry.deleteCollection(f.target('configmaps', 'default'), { labelSelector: 'keep=no' }, write);
      t.equal(res.kind, 'ConfigMapList');
      t.same(res.items.map((o) => o.metadata!.name), ['cm2', 'cm3', 'cm4', 'held']);
      const left = await f.registry.list(f.target('configmaps', 'default'), {});
      t.same(left.items.map((o) => o.metadata!.name), ['cm0', 'cm1', 'held']);
      t.ok(left.items[2].metadata!.deletionTimestamp);
      await rejects(t, f.registry.deleteCollection(f.target('configmaps', 'default'), {}, { dryRun: false, propagationPolicy: 'Nope' }), 422, 'Invalid');
    });

    t.test('namespace deletion: Terminating, content removed by the in-process finalizer, then gone', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('namespaces'), namespace('team'), write);
      await f.registry.create(f.target('configmaps', 'team'), configMap('cm', 'team'), write);
      await f.registry.create(f.target('deployments', 'team'), deployment('web', 'team'), write);
      await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write);
      const held = configMap('held', 'team');
      held.metadata!.finalizers = ['example.com/x'];
      await f.registry.create(f.target('configmaps', 'team'), held, write);
      const res = await f.registry.delete(f.target('namespaces', undefined, 'team'), write);
      t.equal(res.code, 200);
      const ns = res.body as KubeObject;
      t.equal((ns.status as { phase: string }).phase, 'Terminating');
      t.ok(ns.metadata!.deletionTimestamp);
      await rejects(t, f.registry.create(f.target('configmaps', 'team'), configMap('new', 'team'), write), 403, 'Forbidden');
      // content goes, except the object held by its finalizer
      await waitUntil(async () => (await f.registry.list(f.target('deployments', 'team'), {})).items.length === 0);
      const cms = await f.registry.list(f.target('configmaps', 'team'), {});
      t.same(cms.items.map((o) => o.metadata!.name), ['held']);
      t.ok(cms.items[0].metadata!.deletionTimestamp);
      t.ok(await f.registry.get(f.target('namespaces', undefined, 'team'), {}), 'namespace waits for its content');
      // releasing the finalizer lets the namespace go
      await f.registry.patch(f.target('configmaps', 'team', 'held'), 'merge', JSON.stringify({ metadata: { finalizers: null } }), write);
      await waitUntil(async () => (await f.registry.list(f.target('namespaces'), {})).items.every((n) => n.metadata!.name !== 'team'));
      t.equal((await f.registry.list(f.target('configmaps', 'default'), {})).items.length, 1, 'other namespaces untouched');
      // system namespaces cannot be deleted
      await rejects(t, f.registry.delete(f.target('namespaces', undefined, 'default'), write), 403, 'Forbidden', 'namespaces "default" is forbidden: this namespace may not be deleted');
    });
  });
}

async function waitUntil(cond: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}
