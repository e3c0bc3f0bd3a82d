import t from 'tap';
import { makeFixture, pod, storeKinds, write, dryRun } from '../../helpers/registry-fixture';
import type { Fixture } from '../../helpers/registry-fixture';
import type { KubeObject } from '../../../src/api/kind';
import { rejects } from '../../helpers/registry-assert';

const eviction = (name: string, apiVersion = 'policy/v1', deleteOptions?: Record<string, unknown>): KubeObject => ({
  apiVersion,
  kind: 'Eviction',
  metadata: { name, namespace: 'default' },
  ...(deleteOptions ? { deleteOptions } : {}),
});

/** a pod with labels in the given phase (no node: the test pod kind deletes it at once) */
async function podIn(f: Fixture, name: string, phase: string, labels: Record<string, string> = { app: 'web' }): Promise<void> {
  const p = pod(name);
  p.metadata!.labels = labels;
  await f.registry.create(f.target('pods', 'default'), p, write);
  const target = f.target('pods', 'default', name);
  const current = await f.registry.get(target, {});
  current.status = { ...(current.status as object), phase };
  await f.registry.updateStatus(target, current, write);
}

/** a v1 budget over app=web with the given disruptions allowed, processed (observedGeneration = generation) */
async function budget(f: Fixture, name: string, allowed: number, selector: Record<string, unknown> = { matchLabels: { app: 'web' } }): Promise<void> {
  const kind = f.scheme.byResource('policy', 'v1', 'poddisruptionbudgets')!;
  await f.registry.create({ kind, namespace: 'default' }, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector } }, write);
  const target = { kind, namespace: 'default', name };
  const current = await f.registry.get(target, {});
  current.status = { observedGeneration: 1, disruptionsAllowed: allowed, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3 };
  await f.registry.updateStatus(target, current, write);
}

const budgetOf = (f: Fixture, name: string) => f.registry.get({ kind: f.scheme.byResource('policy', 'v1', 'poddisruptionbudgets')!, namespace: 'default', name }, {});
const gone = async (f: Fixture, name: string): Promise<boolean> => f.registry.get(f.target('pods', 'default', name), {}).then(() => false, () => true);
const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };

for (const backend of storeKinds()) {
  t.test(`pods/eviction (${backend})`, async (t) => {
    t.test('no budget: the pod is deleted, 201 Success; 404 for a missing pod; 400 for another name', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await podIn(f, 'web-1', 'Running');
      const res = await f.registry.createSubresource(f.target('pods', 'default', 'web-1'), 'eviction', eviction('web-1'), write);
      t.same([res.created, res.object], [true, success]);
      t.ok(await gone(f, 'web-1'));
      await rejects(t, f.registry.createSubresource(f.target('pods', 'default', 'web-1'), 'eviction', eviction('web-1'), write), 404, 'NotFound', 'pods "web-1" not found');
      await podIn(f, 'web-2', 'Running');
      await rejects(t, f.registry.createSubresource(f.target('pods', 'default', 'web-2'), 'eviction', eviction('web-3'), write), 400, 'BadRequest',
        'name in URL does not match name in Eviction object');
    });

    t.test('a budget that allows it: one disruption taken, the pod recorded, the pod deleted (v1beta1 body too)', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await budget(f, 'web-pdb', 2);
      await podIn(f, 'web-1', 'Running');
      await podIn(f, 'web-2', 'Running');
      f.clock.now = new Date('2024-05-01T10:30:00Z');
      await f.registry.createSubresource(f.target('pods', 'default', 'web-1'), 'eviction', eviction('web-1'), write);
      t.ok(await gone(f, 'web-1'));
      let status = (await budgetOf(f, 'web-pdb')).status as Record<string, unknown>;
      t.equal(status.disruptionsAllowed, 1);
      t.same(status.disruptedPods, { 'web-1': '2024-05-01T10:30:00Z' });
      const managers = ((await budgetOf(f, 'web-pdb')).metadata!.managedFields as Array<Record<string, unknown>>).map((m) => [m.manager, m.subresource]);
      t.ok(managers.some(([m, s]) => m === 'kube-apiserver' && s === 'status'), 'the API server owns its status write');
      // the last allowed disruption: the DisruptionAllowed condition turns False
      await f.registry.createSubresource(f.target('pods', 'default', 'web-2'), 'eviction', eviction('web-2', 'policy/v1beta1'), write);
      t.ok(await gone(f, 'web-2'));
      status = (await budgetOf(f, 'web-pdb')).status as Record<string, unknown>;
      t.equal(status.disruptionsAllowed, 0);
      t.same(Object.keys(status.disruptedPods as object).sort(), ['web-1', 'web-2']);
      t.match(status.conditions, [{ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' }]);
    });

    t.test('a budget with no disruption left: 429 with the DisruptionBudget cause, nothing changed', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await budget(f, 'web-pdb', 0);
      await podIn(f, 'web-1', 'Running');
      const before = await budgetOf(f, 'web-pdb');
      const st = await rejects(t, f.registry.createSubresource(f.target('pods', 'default', 'web-1'), 'eviction', eviction('web-1'), write), 429, 'TooManyRequests',
        "Cannot evict pod as it would violate the pod's disruption budget.");
      t.same(st?.details, { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget web-pdb needs 2 healthy pods and has 3 currently' }] });
      t.notOk(await gone(f, 'web-1'));
      t.equal((await budgetOf(f, 'web-pdb')).metadata!.resourceVersion, before.metadata!.resourceVersion);
      // a budget whose spec changed since the controller last saw it is not trusted yet
      const kind = f.scheme.byResource('policy', 'v1', 'poddisruptionbudgets')!;
      const changed = await budgetOf(f, 'web-pdb');
      (changed.spec as Record<string, unknown>).minAvailable = 2;
      await f.registry.update({ kind, namespace: 'default', name: 'web-pdb' }, changed, write);
      const stale = await rejects(t, f.registry.createSubresource(f.target('pods', 'default', 'web-1'), 'eviction', eviction('web-1'), write), 429, 'TooManyRequests');
      t.same(stale?.details?.causes, [{ reason: 'DisruptionBudget', message: 'The disruption budget web-pdb is still being processed by the server.' }]);
    });

    t.test('two budgets: 500 with kube\'s message; pods that are not running skip budgets', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await budget(f, 'a', 5);
      await budget(f, 'b', 5, {});
      await podIn(f, 'web-1', 'Running');
      try {
        await f.registry.createSubresource(f.target('pods', 'default', 'web-1'), 'eviction', eviction('web-1'), write);
        t.fail('expected a failure');
      } catch (err) {
        const status = (err as { status: Record<string, unknown> }).status;
        t.same(status, {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
          code: 500,
        });
      }
      t.notOk(await gone(f, 'web-1'));
      // Pending, Succeeded and Failed pods are deleted without looking at budgets
      for (const phase of ['Pending', 'Succeeded', 'Failed']) {
        const name = `p-${phase.toLowerCase()}`;
        await podIn(f, name, phase);
        await f.registry.createSubresource(f.target('pods', 'default', name), 'eviction', eviction(name), write);
        t.ok(await gone(f, name), phase);
      }
      t.equal(((await budgetOf(f, 'a')).status as Record<string, unknown>).disruptionsAllowed, 5);
      // a budget selecting other pods does not count
      await podIn(f, 'other', 'Running', { app: 'other' });
      const kind = f.scheme.byResource('policy', 'v1', 'poddisruptionbudgets')!;
      await f.registry.delete({ kind, namespace: 'default', name: 'b' }, { dryRun: false });
      await f.registry.createSubresource(f.target('pods', 'default', 'other'), 'eviction', eviction('other'), write);
      t.ok(await gone(f, 'other'));
    });

    t.test('dry run (request or deleteOptions) changes nothing; disagreeing dry runs are a 500', async (t) => {
      const f = await makeFixture(backend);
      t.teardown(() => f.close());
      await budget(f, 'web-pdb', 1);
      await podIn(f, 'web-1', 'Running');
      const before = await budgetOf(f, 'web-pdb');
      const target = f.target('pods', 'default', 'web-1');
      t.same((await f.registry.createSubresource(target, 'eviction', eviction('web-1'), dryRun)).object, success);
      t.same((await f.registry.createSubresource(target, 'eviction', eviction('web-1', 'policy/v1', { dryRun: ['All'] }), write)).object, success);
      t.notOk(await gone(f, 'web-1'));
      const after = await budgetOf(f, 'web-pdb');
      t.equal(after.metadata!.resourceVersion, before.metadata!.resourceVersion);
      t.equal((after.status as Record<string, unknown>).disruptionsAllowed, 1);
      await rejects(t, f.registry.createSubresource(target, 'eviction', eviction('web-1', 'policy/v1', { dryRun: ['Nope'] }), write), 422, 'Invalid');
      try {
        await f.registry.createSubresource(target, 'eviction', eviction('web-1', 'policy/v1', { dryRun: ['Nope'] }), dryRun);
        t.fail('expected a failure');
      } catch (err) {
        const status = (err as { status: Record<string, unknown> }).status;
        t.same([status.code, status.message], [500, 'DryRun in DeleteOptions [Nope] does not match the DryRun in CreateOptions [All]']);
      }
      // the deleteOptions apply to the pod's deletion: a stale uid precondition refuses it
      await rejects(t, f.registry.createSubresource(target, 'eviction', eviction('web-1', 'policy/v1', { preconditions: { uid: 'old' } }), write), 409, 'Conflict');
      t.notOk(await gone(f, 'web-1'));
    });
  });
}
