import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, fields, kind, podTemplate } from './helpers';

const now = new Date('2024-05-01T12:00:00Z');

function rc(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'web', namespace: 'default', creationTimestamp: '2024-05-01T11:59:00Z', ...meta },
    spec: { template: podTemplate({ app: 'web' }), ...spec },
  };
}

t.test('ReplicationController: defaults from the template, replicas 1, status on create', async (t) => {
  const def = kind('', 'v1', 'ReplicationController');
  t.same([def.shortNames, def.categories, def.tracksGeneration, def.statusSubresource], [['rc'], ['all'], true, true]);
  const obj = rc();
  t.same(create(def, obj), []);
  const spec = obj.spec as Record<string, unknown>;
  t.same(spec.selector, { app: 'web' }, 'selector defaults to the template labels');
  t.same(obj.metadata!.labels, { app: 'web' }, 'and so do the labels');
  t.equal(spec.replicas, 1);
  t.same(obj.status, { replicas: 0 });
  const tpl = spec.template as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  t.equal(tpl.metadata.creationTimestamp, null);
  t.equal(tpl.spec.restartPolicy, 'Always');
  // given selector and labels are kept
  const own = rc({ selector: { app: 'web' }, replicas: 0 }, { labels: { team: 'a' } });
  create(def, own);
  t.same(own.metadata!.labels, { team: 'a' });
  t.equal((own.spec as Record<string, unknown>).replicas, 0);
});

t.test('ReplicationController: validation', async (t) => {
  const def = kind('', 'v1', 'ReplicationController');
  t.same(create(def, rc({ selector: { app: 'other' } })), [
    {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      field: 'spec.template.metadata.labels',
    },
  ]);
  const noLabels = rc({ template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } } });
  t.same(fields(create(def, noLabels)), ['spec.selector']);
  t.same(fields(create(def, rc({ replicas: -1, minReadySeconds: -2 }))), ['spec.minReadySeconds', 'spec.replicas']);
  t.same(create(def, rc({ template: podTemplate({ app: 'web' }, { restartPolicy: 'OnFailure' }) })), [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "OnFailure": supported values: "Always"', field: 'spec.template.spec.restartPolicy' },
  ]);
  t.same(create(def, rc({ template: podTemplate({ app: 'web' }, { activeDeadlineSeconds: 5 }) })), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: activeDeadlineSeconds in ReplicationController is not Supported', field: 'spec.template.spec.activeDeadlineSeconds' },
  ]);
  t.same(fields(create(def, rc({ template: undefined, selector: { app: 'web' } }))), ['spec.template']);
  const pd = podTemplate({ app: 'web' }, { volumes: [{ name: 'd', gcePersistentDisk: { pdName: 'disk' } }] });
  t.same(fields(create(def, rc({ replicas: 2, template: pd }))), ['spec.template.spec.volumes[0].gcePersistentDisk.readOnly']);
  // the selector may change on update (unlike apps/v1)
  const old = rc();
  create(def, old);
  const moved = JSON.parse(JSON.stringify(old)) as KubeObject;
  (moved.spec as Record<string, unknown>).selector = {};
  t.same(fields(def.strategy.validate(moved, old)), ['spec.selector']);
});

t.test('ReplicationController: status validation, scale, field label, table', async (t) => {
  const def = kind('', 'v1', 'ReplicationController');
  const obj = rc();
  create(def, obj);
  obj.status = { replicas: 2, readyReplicas: 3, availableReplicas: 3, fullyLabeledReplicas: -1 };
  t.same(fields(def.strategy.validateStatus!(obj, obj)), [
    'status.fullyLabeledReplicas', 'status.readyReplicas', 'status.availableReplicas',
  ]);
  obj.status = { replicas: 3, readyReplicas: 1, availableReplicas: 2 };
  t.same(def.strategy.validateStatus!(obj, obj), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: 2: cannot be greater than readyReplicas', field: 'status.availableReplicas' },
  ]);
  (obj.spec as Record<string, unknown>).selector = { tier: 'front', app: 'web' };
  t.equal(def.scale!.getSelector(obj), 'app=web,tier=front');
  t.equal(def.scale!.getSpecReplicas(obj), 1);
  def.scale!.setSpecReplicas(obj, 4);
  t.equal((obj.spec as Record<string, unknown>).replicas, 4);
  t.equal(def.scale!.getStatusReplicas(obj), 3);
  t.same(def.selectableFields!(obj), { 'status.replicas': '3' });
  t.same(def.table!.columns.map((c) => [c.name, c.priority]), [
    ['Name', 0], ['Desired', 0], ['Current', 0], ['Ready', 0], ['Age', 0], ['Containers', 1], ['Images', 1], ['Selector', 1],
  ]);
  t.same(def.table!.cells(obj, now), ['web', 4, 3, 1, '60s', 'app', 'nginx:1.25', 'app=web,tier=front']);
});

t.test('PodTemplate: template defaults and validation, generation, table', async (t) => {
  const def = kind('', 'v1', 'PodTemplate');
  t.same([def.shortNames, def.categories, def.tracksGeneration, def.statusSubresource], [[], [], true, false]);
  const obj: KubeObject = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'tpl', namespace: 'default' }, template: podTemplate({ app: 'x', tier: 'a' }) };
  t.same(create(def, obj), []);
  const spec = (obj.template as { spec: Record<string, unknown> }).spec;
  t.equal(spec.dnsPolicy, 'ClusterFirst');
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Containers', 'Images', 'Pod Labels']);
  t.same(def.table!.cells(obj, now), ['tpl', 'app', 'nginx:1.25', 'app=x,tier=a']);
  // an absent template is validated as an empty one: kube reports its missing containers
  t.same(fields(create(def, { metadata: { name: 'e', namespace: 'default' } })), ['template.spec.containers']);
  t.same(fields(create(def, { metadata: { name: 'e', namespace: 'default' }, template: { metadata: { labels: { 'a/b/c': 'x' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } })), [
    'template.metadata.labels',
  ]);
});

t.test('ComponentStatus and Binding: read-only and create-only declarations', async (t) => {
  const cs = kind('', 'v1', 'ComponentStatus');
  t.same([cs.namespaced, cs.shortNames, cs.verbs], [false, ['cs'], ['get', 'list']]);
  t.same(cs.table!.columns.map((c) => c.name), ['Name', 'Status', 'Message', 'Error']);
  const status = (conditions: unknown[]) => ({ metadata: { name: 'etcd-0' }, conditions });
  t.same(cs.table!.cells(status([{ type: 'Healthy', status: 'True', message: 'ok' }]), now), ['etcd-0', 'Healthy', 'ok', '']);
  t.same(cs.table!.cells(status([{ type: 'Healthy', status: 'False', error: 'boom' }]), now), ['etcd-0', 'Unhealthy', '', 'boom']);
  t.same(cs.table!.cells(status([]), now), ['etcd-0', 'Unknown', '', '']);
  const binding = kind('', 'v1', 'Binding');
  t.same([binding.namespaced, binding.resource, binding.verbs], [true, 'bindings', ['create']]);
  const pod = kind('', 'v1', 'Pod');
  t.same(
    pod.subresources!.filter((s) => s.type !== 'connect').map((s) => [s.name, s.type, s.verbs, s.kind?.group, s.kind?.version, s.kind?.kind]),
    [
      ['binding', 'action', ['create'], '', 'v1', 'Binding'],
      ['eviction', 'action', ['create'], 'policy', 'v1', 'Eviction'],
      ['ephemeralcontainers', 'partial', ['get', 'patch', 'update'], undefined, undefined, undefined],
    ],
  );
});
