import t from 'tap';
import { makeFixture, deployment } from '../../helpers/registry-fixture';
import { rejects } from '../../helpers/registry-assert';
import type { KubeObject } from '../../../src/api/kind';

type Entry = { manager: string; operation: string; apiVersion: string; time?: string; fieldsV1: unknown; subresource?: string };
const entries = (o: KubeObject) => (o.metadata?.managedFields ?? []) as Entry[];
const summary = (o: KubeObject) => entries(o).map((e) => `${e.manager}/${e.operation}${e.subresource ? `/${e.subresource}` : ''}`);
const write = { dryRun: false };

function applied(name: string, replicas: number, image = 'nginx:1.25'): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } } },
  });
}

t.test('apply creates (201), updates (200), stays a no-op, and conflicts as kube', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const target = f.target('deployments', 'default', 'web');
  const created = await f.registry.patch(target, 'apply', applied('web', 1), { ...write, fieldManager: 'kubectl' });
  t.equal(created.created, true);
  t.same(summary(created.object), ['kubectl/Apply']);
  t.same(entries(created.object)[0].fieldsV1, {
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
    },
  });
  t.equal((created.object.spec as any).strategy.type, 'RollingUpdate', 'defaults apply to an applied create');
  const again = await f.registry.patch(target, 'apply', applied('web', 1), { ...write, fieldManager: 'kubectl' });
  t.equal(again.created, false);
  t.equal(again.object.metadata!.resourceVersion, created.object.metadata!.resourceVersion, 'the same apply is a no-op');
  f.clock.now = new Date('2024-05-01T11:00:00Z');
  const updated = await f.registry.patch(target, 'apply', applied('web', 2), { ...write, fieldManager: 'kubectl' });
  t.equal((updated.object.spec as any).replicas, 2);
  t.equal(entries(updated.object)[0].time, '2024-05-01T11:00:00Z');
  const status = await rejects(t, f.registry.patch(target, 'apply', applied('web', 5), { ...write, fieldManager: 'other' }), 409, 'Conflict',
    'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
  t.same(status?.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' }]);
  const forced = await f.registry.patch(target, 'apply', applied('web', 5), { ...write, fieldManager: 'other', force: true });
  t.equal((forced.object.spec as any).replicas, 5);
  const other = entries(forced.object).find((e) => e.manager === 'other')!;
  t.same((other.fieldsV1 as any)['f:spec']['f:replicas'], {});
  const kubectl = entries(forced.object).find((e) => e.manager === 'kubectl')!;
  t.notOk((kubectl.fieldsV1 as any)['f:spec']['f:replicas'], 'force took replicas from kubectl');
  // dry-run apply changes nothing
  const dry = await f.registry.patch(target, 'apply', applied('web', 7), { dryRun: true, fieldManager: 'other' });
  t.equal((dry.object.spec as any).replicas, 7);
  t.equal(((await f.registry.get(target, {})).spec as any).replicas, 5);
});

t.test('apply checks: type, managedFields, name, precondition, validation', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const target = f.target('deployments', 'default', 'web');
  await rejects(t, f.registry.patch(target, 'apply', '{"apiVersion":"v1","kind":"Deployment","metadata":{"name":"web"}}', { ...write, fieldManager: 'm' }), 400, 'BadRequest', 'invalid object type: /v1, Kind=Deployment');
  await rejects(t, f.registry.patch(target, 'apply', '{"metadata":{"name":"web"}}', { ...write, fieldManager: 'm' }), 400, 'BadRequest', 'invalid object type: /, Kind=');
  await rejects(t, f.registry.patch(target, 'apply', 'a: [', { ...write, fieldManager: 'm' }), 400, 'BadRequest', /^error decoding patch: /);
  await rejects(t, f.registry.patch(target, 'apply', '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","managedFields":[]}}', { ...write, fieldManager: 'm' }), 400, 'BadRequest', 'metadata.managedFields must be nil');
  await rejects(t, f.registry.patch(target, 'apply', applied('other', 1), { ...write, fieldManager: 'm' }), 400, 'BadRequest', 'the name of the object (other) does not match the name on the URL (web)');
  await rejects(t, f.registry.patch(target, 'apply', applied('web', -1), { ...write, fieldManager: 'm' }), 422, 'Invalid', /spec\.replicas/);
  // YAML bodies are accepted
  const yaml = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: c\n        image: nginx\n';
  const created = await f.registry.patch(target, 'apply', yaml, { ...write, fieldManager: 'm' });
  t.equal(created.created, true);
  const stale = JSON.parse(applied('web', 3));
  stale.metadata.resourceVersion = '1';
  await rejects(t, f.registry.patch(target, 'apply', JSON.stringify(stale), { ...write, fieldManager: 'm' }), 409, 'Conflict', /the object has been modified/);
  stale.metadata.resourceVersion = created.object.metadata!.resourceVersion;
  const ok = await f.registry.patch(target, 'apply', JSON.stringify(stale), { ...write, fieldManager: 'm' });
  t.equal((ok.object.spec as any).replicas, 3);
});

t.test('managedFields after every verb', async (t) => {
  const f = await makeFixture('memory');
  t.teardown(() => f.close());
  const target = f.target('deployments', 'default', 'web');
  const ua = 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc';
  const created = await f.registry.create(f.target('deployments', 'default'), deployment('web'), { ...write, userAgent: ua });
  t.same(summary(created.object), ['kubectl/Update'], 'the manager defaults to the user agent\'s first segment');
  const labelled = await f.registry.patch(target, 'merge', '{"metadata":{"labels":{"a":"b"}}}', { ...write, fieldManager: 'kubectl-label' });
  t.same(summary(labelled.object), ['kubectl/Update', 'kubectl-label/Update']);
  t.same(entries(labelled.object)[1].fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
  const scaled = await f.registry.patchScale(target, 'merge', '{"spec":{"replicas":3}}', { ...write, userAgent: ua });
  t.equal(scaled.object.kind, 'Scale');
  const afterScale = await f.registry.get(target, {});
  // kube's order: operation, time, manager, apiVersion, subresource
  t.same(summary(afterScale), ['kubectl/Update', 'kubectl/Update/scale', 'kubectl-label/Update']);
  const scaleEntry = entries(afterScale).find((e) => e.subresource === 'scale')!;
  t.same(scaleEntry.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  t.equal(scaleEntry.apiVersion, 'apps/v1', 'scale entries carry the parent\'s apiVersion');
  t.notOk((entries(afterScale)[0].fieldsV1 as any)['f:spec']['f:replicas'], 'the creator lost replicas');
  const st = await f.registry.patchStatus(target, 'merge', '{"status":{"replicas":3}}', { ...write, fieldManager: 'controller' });
  t.ok(summary(st.object).includes('controller/Update/status'));
  t.same(entries(st.object).find((e) => e.subresource === 'status')!.fieldsV1, { 'f:status': { 'f:replicas': {} } });
  const put = { ...st.object, spec: { ...(st.object.spec as object), paused: true } };
  const replaced = await f.registry.update(target, put, { ...write, fieldManager: 'editor' });
  t.same(entries(replaced.object).find((e) => e.manager === 'editor')!.fieldsV1, { 'f:spec': { 'f:paused': {} } });
  // a no-op update stays a no-op (no new resourceVersion, no new entry)
  f.clock.now = new Date('2024-05-01T12:00:00Z');
  const noop = await f.registry.update(target, replaced.object, { ...write, fieldManager: 'someone-else' });
  t.equal(noop.object.metadata!.resourceVersion, replaced.object.metadata!.resourceVersion);
  t.notOk(summary(noop.object).includes('someone-else/Update'));
  // invalid managedFields in a request are replaced by the live ones; [] clears them
  const invalid = { ...replaced.object, metadata: { ...replaced.object.metadata, managedFields: [{ manager: 'x', operation: 'Nope' }] } };
  const kept = await f.registry.update(target, { ...invalid, metadata: { ...invalid.metadata, labels: { a: 'c' } } }, { ...write, fieldManager: 'fixer' });
  t.ok(summary(kept.object).includes('fixer/Update'));
  t.notOk(summary(kept.object).includes('x/Nope'));
  const cleared = await f.registry.patch(target, 'merge', '{"metadata":{"managedFields":[]}}', { ...write, fieldManager: 'cleaner' });
  t.notOk(cleared.object.metadata!.managedFields, 'managedFields: [] clears them');
  // a JSON patch rewriting managedFields (kubectl's client-side to server-side apply migration) is honoured
  const rewritten = [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
  const migrated = await f.registry.patch(target, 'json', JSON.stringify([{ op: 'add', path: '/metadata/managedFields', value: rewritten }]), { ...write, userAgent: ua });
  t.same(entries(migrated.object), rewritten);
});
