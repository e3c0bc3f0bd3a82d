import t from 'tap';
import { makeFixture, pod, storeKinds, write, dryRun } from '../../helpers/registry-fixture';
import type { KubeObject } from '../../../src/api/kind';
import { rejects } from '../../helpers/registry-assert';
import { withVirtualKinds } from '../../../src/api/virtual';

const binding = (name: string, node: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...extra },
  target: { apiVersion: 'v1', kind: 'Node', name: node },
});

type Conditions = Array<Record<string, unknown>>;

for (const backend of storeKinds()) {
  t.test(`pods/binding (${backend})`, async (t) => {
    t.test('binds an unassigned pod: nodeName, annotations, PodScheduled, 201 Success Status', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await f.registry.create(f.target('pods', 'default'), pod('web'), write);
      f.clock.now = new Date('2024-05-01T10:05:00Z');
      const target = f.target('pods', 'default', 'web');
      const res = await f.registry.createSubresource(target, 'binding', binding('web', 'node-a', { annotations: { 'scheduler.alpha.kubernetes.io/note': 'x' } }), write);
      t.equal(res.created, true);
      t.same(res.object, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
      const bound = await f.registry.get(target, {});
      t.equal((bound.spec as Record<string, unknown>).nodeName, 'node-a');
      t.same(bound.metadata!.annotations, { 'scheduler.alpha.kubernetes.io/note': 'x' });
      const conditions = (bound.status as { conditions: Conditions }).conditions;
      t.same(conditions.filter((c) => c.type === 'PodScheduled'), [
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2024-05-01T10:05:00Z' },
      ]);
      // a second binding: 409 on pods/binding with kube's words
      const st = await rejects(t, f.registry.createSubresource(target, 'binding', binding('web', 'node-b'), write), 409, 'Conflict',
        'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "node-a"');
      t.same(st?.details, { name: 'web', group: '', kind: 'pods/binding' });
    });

    t.test('missing pod 404, name mismatch 400, bad target 500, terminating pod 409', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await rejects(t, f.registry.createSubresource(f.target('pods', 'default', 'ghost'), 'binding', binding('ghost', 'n'), write), 404, 'NotFound', 'pods "ghost" not found');
      await f.registry.create(f.target('pods', 'default'), pod('web'), write);
      const target = f.target('pods', 'default', 'web');
      await rejects(t, f.registry.createSubresource(target, 'binding', binding('other', 'n'), write), 400, 'BadRequest', 'name in URL does not match name in Binding object');
      try {
        await f.registry.createSubresource(target, 'binding', { ...binding('web', ''), target: { kind: 'Pod', name: '' } }, write);
        t.fail('expected a failure');
      } catch (err) {
        const status = (err as { status: Record<string, unknown> }).status;
        t.equal(status.code, 500);
        t.equal(status.reason, undefined, 'kube answers its aggregate validation error without a reason');
        t.equal(status.message, '[target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>", target.name: Required value]');
      }
      // a uid precondition that does not hold
      await rejects(t, f.registry.createSubresource(target, 'binding', binding('web', 'n', { uid: 'not-the-uid' }), write), 409, 'Conflict',
        /^Operation cannot be fulfilled on pods "web": Precondition failed: UID in precondition: not-the-uid, UID in object meta: /);
      // a pod on its way out cannot be bound (a finalizer keeps it while it terminates)
      const p = await f.registry.get(target, {});
      p.metadata!.finalizers = ['example.com/keep'];
      await f.registry.update(target, p, write);
      await f.registry.delete(target, { dryRun: false });
      await rejects(t, f.registry.createSubresource(target, 'binding', binding('web', 'n'), write), 409, 'Conflict',
        'Operation cannot be fulfilled on pods/binding "web": pod web is being deleted, cannot be assigned to a host');
    });

    t.test('dry run changes nothing', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const created = (await f.registry.create(f.target('pods', 'default'), pod('web'), write)).object;
      const target = f.target('pods', 'default', 'web');
      const res = await f.registry.createSubresource(target, 'binding', binding('web', 'node-a'), dryRun);
      t.equal(res.object.status, 'Success');
      const after = await f.registry.get(target, {});
      t.equal((after.spec as Record<string, unknown>).nodeName, undefined);
      t.equal(after.metadata!.resourceVersion, created.metadata!.resourceVersion);
    });

    t.test('POST bindings (the legacy resource) binds the pod the Binding names', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      const registry = withVirtualKinds(f.registry, { scheme: f.scheme, componentProbes: [] });
      await registry.create(f.target('pods', 'default'), pod('web'), write);
      const bindings = { kind: f.kind('bindings'), namespace: 'default' };
      const res = await registry.create(bindings, binding('web', 'node-a'), write);
      t.same([res.created, res.object.status], [true, 'Success']);
      const bound = await registry.get(f.target('pods', 'default', 'web'), {});
      t.equal((bound.spec as Record<string, unknown>).nodeName, 'node-a');
      await rejects(t, registry.create(bindings, binding('', 'node-a'), write), 400, 'BadRequest', 'Name parameter required.');
      await rejects(t, registry.create(bindings, { ...binding('web', 'n'), metadata: { name: 'web', namespace: 'other' } }, write), 400, 'BadRequest',
        'the namespace of the provided object does not match the namespace sent on the request');
      const stored = await f.store.list('/registry/bindings/', {}).catch(() => undefined);
      t.same(stored?.items ?? [], [], 'nothing is stored under bindings');
    });
  });
}
