import t from 'tap';
import { definitions } from '../../../src/schema';
import { ApplyConflicts, SchemaType, applyManagedFields, conflictError, updateManagedFields } from '../../../src/api/apply';
import type { FieldManagerScope } from '../../../src/api/apply';
import type { KubeObject } from '../../../src/api/kind';

const scope: FieldManagerScope = {
  type: SchemaType.forDefinition(definitions, 'io.k8s.api.core.v1.ConfigMap'),
  apiVersion: 'v1',
  now: '2024-05-01T10:00:00Z',
};
const depScope: FieldManagerScope = { ...scope, type: SchemaType.forDefinition(definitions, 'io.k8s.api.apps.v1.Deployment'), apiVersion: 'apps/v1', resetFields: 'status' };

const cm = (data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data, ...extra });
const entries = (o: KubeObject) => (o.metadata?.managedFields ?? []) as Array<Record<string, unknown>>;
const live = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, uid: 'u1' } });

t.test('add, change, and remove what the applier no longer applies', async (t) => {
  const first = applyManagedFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, cm({ a: '1', b: '2' }), 'm', false, scope);
  t.ok(first.changed);
  t.same(first.object.data, { a: '1', b: '2' });
  t.same(entries(first.object), [{ manager: 'm', operation: 'Apply', apiVersion: 'v1', time: '2024-05-01T10:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } }]);
  const second = applyManagedFields(live(first.object), cm({ a: '9' }), 'm', false, scope);
  t.same(second.object.data, { a: '9' }, 'b is pruned: m applied it before and nobody else owns it');
  t.same(entries(second.object)[0].fieldsV1, { 'f:data': { 'f:a': {} } });
  const same = applyManagedFields(live(second.object), cm({ a: '9' }), 'm', false, scope);
  t.notOk(same.changed, 'applying the same again changes nothing');
});

t.test('shared ownership keeps a field another applier still applies', async (t) => {
  const a = applyManagedFields({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, cm({ x: '1', y: '2' }), 'a', false, scope).object;
  const b = applyManagedFields(live(a), cm({ x: '1' }), 'b', false, scope).object;
  // b changed nothing, so (as kube) its entry has no time and sorts first
  t.same(entries(b).map((e) => [e.manager, e.fieldsV1, e.time]), [
    ['b', { 'f:data': { 'f:x': {} } }, undefined],
    ['a', { 'f:data': { 'f:x': {}, 'f:y': {} } }, '2024-05-01T10:00:00Z'],
  ]);
  const a2 = applyManagedFields(live(b), cm({ y: '2' }), 'a', false, scope).object;
  t.same(a2.data, { x: '1', y: '2' }, 'x stays: b still owns it');
});

t.test('conflict with an updater; force takes the field over', async (t) => {
  const created: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 1, selector: { matchLabels: { a: 'b' } } } };
  updateManagedFields(undefined, created, 'kubectl-client-side-apply', depScope);
  const config: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { replicas: 3 } };
  let err: unknown;
  try {
    applyManagedFields(live(created), config, 'other', false, depScope);
  } catch (e) {
    err = e;
  }
  t.ok(err instanceof ApplyConflicts);
  const status = conflictError((err as ApplyConflicts).conflicts).status;
  t.equal(status.code, 409);
  t.equal(status.reason, 'Conflict');
  t.equal(status.message, 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas');
  t.same(status.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-client-side-apply" using apps/v1', field: '.spec.replicas' }] });
  const forced = applyManagedFields(live(created), config, 'other', true, depScope).object;
  t.equal((forced.spec as { replicas: number }).replicas, 3);
  const byManager = Object.fromEntries(entries(forced).map((e) => [e.manager, e.fieldsV1]));
  t.same(byManager.other, { 'f:spec': { 'f:replicas': {} } });
  t.same(byManager['kubectl-client-side-apply'], { 'f:spec': { 'f:selector': {} } }, 'the forced field left the old owner');
  // same value: no conflict, shared
  const shared = applyManagedFields(live(created), { ...config, spec: { replicas: 1 } }, 'other', false, depScope).object;
  t.equal(entries(shared).length, 2);
});

t.test('several conflicts are grouped by manager', async (t) => {
  const err = conflictError([
    { managerKey: '{"manager":"b","operation":"Apply"}', path: ['f:data', 'f:x'] },
    { managerKey: '{"manager":"a","operation":"Update","apiVersion":"v1","subresource":"status"}', path: ['f:data', 'f:y'] },
    { managerKey: '{"manager":"b","operation":"Apply"}', path: ['f:data', 'f:z'] },
  ]);
  t.equal(err.status.message, 'Apply failed with 3 conflicts: conflicts with "a" with subresource "status" using v1:\n- .data.y\nconflicts with "b":\n- .data.x\n- .data.z');
});

t.test('map lists merge by key; atomic lists are replaced', async (t) => {
  const base: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', uid: 'u' },
    spec: { template: { spec: { containers: [{ name: 'a', image: 'x', args: ['1', '2'] }, { name: 'b', image: 'y' }] } } },
  };
  const config: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'z' }, { name: 'a', args: ['3'] }] } } } };
  const out = applyManagedFields(base, config, 'm', true, depScope).object;
  const containers = ((out.spec as any).template.spec.containers) as Array<Record<string, unknown>>;
  t.same(containers.map((c) => c.name), ['c', 'a', 'b']);
  t.same(containers[1], { name: 'a', image: 'x', args: ['3'] });
});

t.test('kubectl: conflicts on fields client-side apply last applied with today\'s values are allowed', async (t) => {
  const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } });
  const csa = cm({ a: '1' }, { metadata: { name: 'c', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } } });
  updateManagedFields(undefined, csa, 'kubectl-client-side-apply', scope);
  const result = applyManagedFields(live(csa), cm({ a: '2' }), 'kubectl', false, scope).object;
  t.same(result.data, { a: '2' });
  t.equal(result.metadata!.annotations!['kubectl.kubernetes.io/last-applied-configuration'], '{"apiVersion":"v1","data":{"a":"2"},"kind":"ConfigMap","metadata":{"name":"c"}}\n', 'the annotation follows what kubectl applied');
  // another manager gets the conflict
  let conflicted = false;
  try {
    applyManagedFields(live(csa), cm({ a: '2' }), 'someone', false, scope);
  } catch (e) {
    conflicted = e instanceof ApplyConflicts;
  }
  t.ok(conflicted, 'another manager gets the conflict');
});

t.test('updates: changed fields move to the updater; [] clears; invalid entries fall back to the live ones', async (t) => {
  const obj = cm({ a: '1' });
  updateManagedFields(undefined, obj, 'creator', scope);
  t.same(entries(obj).map((e) => e.manager), ['creator']);
  const next = { ...live(obj), data: { a: '1', b: '2' } };
  updateManagedFields(live(obj), next, 'editor', { ...scope, now: '2024-05-01T11:00:00Z' });
  t.same(entries(next).map((e) => [e.manager, e.fieldsV1, e.time]), [
    ['creator', { 'f:data': { '.': {}, 'f:a': {} } }, '2024-05-01T10:00:00Z'],
    ['editor', { 'f:data': { 'f:b': {} } }, '2024-05-01T11:00:00Z'],
  ]);
  const invalid = { ...next, metadata: { ...next.metadata, managedFields: [{ manager: 'x', operation: 'Bogus', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {} }] } };
  updateManagedFields(live(next), invalid, 'editor', scope);
  t.same(entries(invalid).map((e) => e.manager), ['creator', 'editor'], 'invalid request entries: the live ones are kept');
  const cleared = { ...next, metadata: { ...next.metadata, managedFields: [] } };
  updateManagedFields(live(next), cleared, 'editor', scope);
  t.notOk(cleared.metadata.managedFields, '[] clears them');
  const untracked = { ...cleared, data: { z: '1' } };
  updateManagedFields(live(cleared as KubeObject), untracked, 'editor', scope);
  t.notOk(untracked.metadata.managedFields, 'an existing object without managed fields stays untracked');
  const honoured = { ...next, metadata: { ...next.metadata, managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {}, 'f:b': {} } } }] } };
  updateManagedFields(live(next), honoured, 'kubectl', scope);
  t.same(entries(honoured), honoured.metadata.managedFields, 'valid entries in the request are kept');
  t.same(entries(honoured).map((e) => e.manager), ['kubectl']);
});

t.test('at most 10 update managers: the oldest go to ancient-changes', async (t) => {
  let obj = cm({});
  updateManagedFields(undefined, obj, 'm0', { ...scope, now: '2024-05-01T10:00:00Z' });
  for (let i = 1; i <= 11; i++) {
    const next = { ...live(obj), data: { ...(obj.data as object), [`k${i}`]: 'v' } };
    updateManagedFields(live(obj), next, `m${i}`, { ...scope, now: `2024-05-01T10:${String(i).padStart(2, '0')}:00Z` });
    obj = next;
  }
  const managers = entries(obj).map((e) => e.manager);
  t.equal(managers.length, 10);
  t.ok(managers.includes('ancient-changes'));
  t.notOk(managers.includes('m1'));
});
