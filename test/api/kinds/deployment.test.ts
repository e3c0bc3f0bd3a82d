import t from 'tap';
import { create, deployment, fields, kind } from './helpers';

const def = kind('apps', 'v1', 'Deployment');

t.test('defaults follow SetDefaults_Deployment and the pod spec defaults', async (t) => {
  const d = deployment();
  t.same(create(def, d), []);
  const spec = d.spec as any;
  t.equal(spec.replicas, 1);
  t.same(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  t.equal(spec.revisionHistoryLimit, 10);
  t.equal(spec.progressDeadlineSeconds, 600);
  t.equal(spec.template.metadata.creationTimestamp, null);
  const pod = spec.template.spec;
  t.same(
    [pod.restartPolicy, pod.dnsPolicy, pod.terminationGracePeriodSeconds, pod.schedulerName, pod.securityContext],
    ['Always', 'ClusterFirst', 30, 'default-scheduler', {}],
  );
  const c = pod.containers[0];
  t.same([c.imagePullPolicy, c.terminationMessagePath, c.terminationMessagePolicy, c.resources], ['IfNotPresent', '/dev/termination-log', 'File', {}]);
  t.same(d.status, {});
});

t.test('explicit zeros are kept', async (t) => {
  const d = deployment({ replicas: 0, revisionHistoryLimit: 0 });
  t.same(create(def, d), []);
  t.equal((d.spec as any).replicas, 0);
  t.equal((d.spec as any).revisionHistoryLimit, 0);
});

t.test('selector must match template labels', async (t) => {
  const d = deployment({ selector: { matchLabels: { app: 'x' } } });
  t.same(create(def, d), [
    {
      reason: 'FieldValueInvalid',
      message: 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
      field: 'spec.template.metadata.labels',
    },
  ]);
});

t.test('selector required and not empty', async (t) => {
  const d = deployment();
  delete (d.spec as any).selector;
  t.same(fields(create(def, d)), ['spec.selector']);
  const e = deployment({ selector: {} });
  t.match(create(def, e)[0], { field: 'spec.selector', message: /empty selector is invalid for deployment/ });
});

t.test('template restart policy must be Always; bad pull policy; negative replicas', async (t) => {
  const d = deployment({ replicas: -1 });
  (d.spec as any).template.spec.restartPolicy = 'Never';
  (d.spec as any).template.spec.containers[0].imagePullPolicy = 'Sometimes';
  const causes = create(def, d);
  t.same(causes.map((c) => [c.field, c.reason]), [
    ['spec.replicas', 'FieldValueInvalid'],
    ['spec.template.spec.containers[0].imagePullPolicy', 'FieldValueNotSupported'],
    ['spec.template.spec.restartPolicy', 'FieldValueNotSupported'],
  ]);
  t.equal(causes[1].message, 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"');
  t.equal(causes[2].message, 'Unsupported value: "Never": supported values: "Always"');
});

t.test('image is required; container names unique DNS labels; ports in range', async (t) => {
  const d = deployment();
  (d.spec as any).template.spec.containers = [
    { name: 'a', ports: [{ containerPort: 70000 }] },
    { name: 'a', image: 'x' },
    { name: 'B_', image: 'x' },
  ];
  const causes = create(def, d);
  t.same(fields(causes), [
    'spec.template.spec.containers[0].image',
    'spec.template.spec.containers[0].ports[0].containerPort',
    'spec.template.spec.containers[1].name',
    'spec.template.spec.containers[2].name',
  ]);
  t.same(causes.map((c) => c.reason), ['FieldValueRequired', 'FieldValueInvalid', 'FieldValueDuplicate', 'FieldValueInvalid']);
  t.equal(causes[1].message, 'Invalid value: 70000: must be between 1 and 65535, inclusive');
});

t.test('rolling update: maxUnavailable and maxSurge both 0, bad percent', async (t) => {
  const d = deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } });
  t.same(create(def, d), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: 0: may not be 0 when `maxSurge` is 0', field: 'spec.strategy.rollingUpdate.maxUnavailable' },
  ]);
  const p = deployment({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25', maxSurge: '150%' } } });
  // kube caps only maxUnavailable at 100%; a surge above 100% is allowed
  t.match(create(def, p), [{ field: 'spec.strategy.rollingUpdate.maxUnavailable', message: /^Invalid value: "25": a valid percent string/ }]);
  const q = deployment({ strategy: { type: 'Sometimes' } });
  t.match(create(def, q), [{ field: 'spec.strategy.type', reason: 'FieldValueNotSupported' }]);
  const r = deployment({ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } });
  t.match(create(def, r), [{ field: 'spec.strategy.rollingUpdate', reason: 'FieldValueForbidden' }]);
});

t.test('progressDeadlineSeconds must exceed minReadySeconds', async (t) => {
  const d = deployment({ minReadySeconds: 700 });
  t.match(create(def, d), [{ field: 'spec.progressDeadlineSeconds', message: 'Invalid value: 600: must be greater than minReadySeconds' }]);
});

t.test('selector is immutable on update', async (t) => {
  const old = deployment();
  create(def, old);
  const next = JSON.parse(JSON.stringify(old));
  next.spec.selector = { matchLabels: { app: 'web', tier: 'x' } };
  next.spec.template.metadata.labels.tier = 'x';
  def.strategy.defaults(next);
  t.match(def.strategy.validate(next, old), [{ field: 'spec.selector', reason: 'FieldValueInvalid', message: /field is immutable$/ }]);
  const same = JSON.parse(JSON.stringify(old));
  same.spec.replicas = 3;
  t.same(def.strategy.validate(same, old), []);
});

t.test('table columns and a row', async (t) => {
  t.same(
    def.table!.columns.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Up-to-date', 'string', '', 0],
      ['Available', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['Containers', 'string', '', 1],
      ['Images', 'string', '', 1],
      ['Selector', 'string', '', 1],
    ],
  );
  const d = deployment({ replicas: 3 });
  create(def, d);
  d.metadata!.creationTimestamp = '2024-01-01T00:00:00Z';
  d.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 };
  t.same(def.table!.cells(d, new Date('2024-01-01T00:03:20Z')), ['web', '2/3', 3, 2, '3m20s', 'app', 'nginx:1.25', 'app=web']);
});

t.test('scale get/set', async (t) => {
  const d = deployment({ replicas: 2 });
  d.status = { replicas: 1 };
  const scale = def.scale!;
  t.equal(scale.getSpecReplicas(d), 2);
  scale.setSpecReplicas(d, 5);
  t.equal((d.spec as any).replicas, 5);
  t.equal(scale.getStatusReplicas(d), 1);
  t.equal(scale.getSelector(d), 'app=web');
});
