import t from 'tap';
import { makeFixture, configMap, deployment, write, dryRun } from '../helpers/registry-fixture';
import type { Admission, AdmissionAttributes } from '../../src/admission/types';
import { ApiError } from '../../src/api/errors';

/** an admission that records every call and may change or refuse */
function recorder(opts: { refuse?: (a: AdmissionAttributes, phase: string) => boolean; mutate?: (a: AdmissionAttributes) => void } = {}) {
  const calls: Array<{ phase: string; op: string; sub: string; name: string; dryRun: boolean; options?: Record<string, unknown>; old?: string; obj?: string }> = [];
  const record = (phase: string) => async (a: AdmissionAttributes) => {
    calls.push({
      phase, op: a.operation, sub: a.subresource, name: a.name, dryRun: a.dryRun, options: a.options,
      old: a.oldObject?.metadata?.resourceVersion, obj: JSON.stringify(a.object?.data ?? a.object?.spec ?? null),
    });
    if (phase === 'admit') opts.mutate?.(a);
    if (opts.refuse?.(a, phase)) throw new ApiError(403, 'Forbidden', `refused ${a.operation} in ${phase}`);
  };
  const admission: Admission = { admit: record('admit'), validate: record('validate') };
  return { admission, calls };
}

t.test('create: mutating admission before validation may change the object; validating sees the final object', async (t) => {
  const r = recorder({ mutate: (a) => { if (a.object?.kind === 'ConfigMap') (a.object.data as Record<string, string>).added = 'yes'; } });
  const f = await makeFixture('memory', { admission: r.admission });
  t.teardown(() => f.close());
  const res = await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), { dryRun: false, user: { name: 'alice', groups: [] } });
  t.same(res.object.data, { k: 'v', added: 'yes' });
  const creates = r.calls.filter((c) => c.op === 'CREATE' && c.name === 'cm');
  t.same(creates.map((c) => c.phase), ['admit', 'validate']);
  t.match(creates[1], { name: 'cm', dryRun: false, options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' } });
});

t.test('create refused by validating admission is not stored, dry-run too', async (t) => {
  const r = recorder({ refuse: (a, phase) => phase === 'validate' && a.kind.kind === 'ConfigMap' });
  const f = await makeFixture('memory', { admission: r.admission });
  t.teardown(() => f.close());
  await t.rejects(f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write), { code: 403 });
  await t.rejects(f.registry.create(f.target('configmaps', 'default'), configMap('cm'), dryRun), { code: 403 });
  const last = r.calls[r.calls.length - 1];
  t.equal(last.dryRun, true);
  t.same(last.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
  t.equal((await f.registry.list(f.target('configmaps', 'default'), {})).items.length, 0);
});

t.test('update, patch, status and scale: UPDATE with the stored object as oldObject and the subresource', async (t) => {
  const r = recorder();
  const f = await makeFixture('memory', { admission: r.admission });
  t.teardown(() => f.close());
  const created = await f.registry.create(f.target('deployments', 'default'), deployment('web'), write);
  const rv = created.object.metadata!.resourceVersion;
  r.calls.length = 0;
  await f.registry.patch(f.target('deployments', 'default', 'web'), 'merge', '{"spec":{"replicas":2}}', write);
  const patched = await f.registry.get(f.target('deployments', 'default', 'web'), {});
  await f.registry.updateStatus(f.target('deployments', 'default', 'web'), { ...patched, status: { replicas: 1 } }, write);
  await f.registry.patchScale(f.target('deployments', 'default', 'web'), 'merge', '{"spec":{"replicas":3}}', write);
  t.same(r.calls.filter((c) => c.phase === 'validate').map((c) => [c.op, c.sub, c.options?.kind]), [
    ['UPDATE', '', 'PatchOptions'],
    ['UPDATE', 'status', 'UpdateOptions'],
    ['UPDATE', 'scale', 'PatchOptions'],
  ]);
  t.equal(r.calls[0].old, rv, 'oldObject is the stored object');
});

t.test('a refused update leaves the object unchanged', async (t) => {
  const r = recorder({ refuse: (a) => a.operation === 'UPDATE' });
  const f = await makeFixture('memory', { admission: r.admission });
  t.teardown(() => f.close());
  await f.registry.create(f.target('configmaps', 'default'), configMap('cm'), write);
  await t.rejects(f.registry.patch(f.target('configmaps', 'default', 'cm'), 'merge', '{"data":{"k":"w"}}', write), { code: 403 });
  t.same((await f.registry.get(f.target('configmaps', 'default', 'cm'), {})).data, { k: 'v' });
});

t.test('delete and deletecollection: DELETE per object with oldObject', async (t) => {
  const r = recorder({ refuse: (a) => a.operation === 'DELETE' && a.name === 'keep' });
  const f = await makeFixture('memory', { admission: r.admission });
  t.teardown(() => f.close());
  for (const n of ['a', 'b', 'keep']) await f.registry.create(f.target('configmaps', 'default'), configMap(n), write);
  await f.registry.delete(f.target('configmaps', 'default', 'a'), { dryRun: false, gracePeriodSeconds: 0 });
  await t.rejects(f.registry.deleteCollection(f.target('configmaps', 'default'), {}, write), { code: 403 });
  const deletes = r.calls.filter((c) => c.op === 'DELETE' && c.phase === 'admit');
  t.same(deletes.map((c) => c.name), ['a', 'b', 'keep']);
  t.match(deletes[0].options, { kind: 'DeleteOptions', gracePeriodSeconds: 0 });
  t.ok(deletes.every((c) => c.old), 'oldObject given');
  t.same((await f.registry.list(f.target('configmaps', 'default'), {})).items.map((i) => i.metadata!.name), ['keep']);
});

t.test('without admission the registry still refuses a missing namespace', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  await t.rejects(f.registry.create(f.target('configmaps', 'nowhere'), configMap('cm', 'nowhere'), write), { code: 404 });
});
