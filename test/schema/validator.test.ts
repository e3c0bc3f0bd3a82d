import t from 'tap';
import { definitions } from '../../src/schema/index';
import { createSchemaValidator } from '../../src/schema/validator';
import { cronJob, daemonSet, deployment, job, pod, service, statefulSet } from './fixtures';

const DEPLOYMENT = 'io.k8s.api.apps.v1.Deployment';
const v = createSchemaValidator(definitions);

t.test('realistic objects validate clean and have no unknown fields', async (t) => {
  const cases: Array<[string, unknown]> = [
    [DEPLOYMENT, deployment()],
    ['io.k8s.api.core.v1.Pod', pod()],
    ['io.k8s.api.batch.v1.Job', job()],
    ['io.k8s.api.batch.v1.CronJob', cronJob()],
    ['io.k8s.api.batch.v1beta1.CronJob', cronJob('batch/v1beta1')],
    ['io.k8s.api.core.v1.Service', service()],
    ['io.k8s.api.apps.v1.DaemonSet', daemonSet()],
    ['io.k8s.api.apps.v1.StatefulSet', statefulSet()],
    ['io.k8s.api.apps.v1.DeploymentList', { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: { resourceVersion: '9' }, items: [deployment()] }],
    ['io.k8s.api.core.v1.ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' }, binaryData: { bin: 'AAEC' } }],
    ['io.k8s.api.core.v1.Secret', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { p: 'cGFzcw==' } }],
    ['io.k8s.api.coordination.v1.Lease', { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2024-05-01T10:00:00.123456Z' } }],
    ['io.k8s.api.apps.v1.ControllerRevision', { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: 'r' }, revision: 2, data: { spec: { template: { anything: [1, 'x'] } } } }],
  ];
  for (const [name, obj] of cases) {
    t.same(v.validate(name, obj), [], `${name} validates`);
    t.same(v.unknownFields(name, obj), [], `${name} has no unknown fields`);
  }
});

t.test('type errors carry the kube path and a Go-style decode message', async (t) => {
  const d = deployment();
  (d.spec as Record<string, unknown>).replicas = 'three';
  d.spec.template.spec.containers[0].ports[1] = { containerPort: '81' as unknown as number };
  d.metadata.labels = { app: 7 as unknown as string };
  t.same(v.validate(DEPLOYMENT, d), [
    {
      field: 'metadata.labels[app]',
      type: 'type',
      message: 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    },
    {
      field: 'spec.replicas',
      type: 'type',
      message: 'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    },
    {
      field: 'spec.template.spec.containers[0].ports[1].containerPort',
      type: 'type',
      message: 'json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32',
    },
  ]);
});

t.test('a wrong element type names the element Go type', async (t) => {
  const d = deployment();
  (d.spec.template.spec as Record<string, unknown>).containers = ['nginx'];
  const issues = v.validate(DEPLOYMENT, d);
  t.same(issues, [
    {
      field: 'spec.template.spec.containers[0]',
      type: 'type',
      message: 'json: cannot unmarshal string into Go struct field PodSpec.spec.template.spec.containers of type v1.Container',
    },
  ]);
});

t.test('missing required fields are reported at their paths', async (t) => {
  const d = deployment();
  delete (d.spec as Record<string, unknown>).selector;
  delete (d.spec.template.spec.containers[0] as Record<string, unknown>).name;
  const issues = v.validate(DEPLOYMENT, d);
  t.same(
    issues.map((i) => [i.field, i.type, i.message]).sort(),
    [
      ['spec.selector', 'required', 'Required value'],
      ['spec.template.spec.containers[0].name', 'required', 'Required value'],
    ],
  );
});

t.test('null means unset, as in kube decoding', async (t) => {
  const d = deployment();
  (d.metadata as Record<string, unknown>).creationTimestamp = null;
  (d.spec as Record<string, unknown>).replicas = null;
  (d.spec as Record<string, unknown>).strategy = null;
  t.same(v.validate(DEPLOYMENT, d), []);
  (d.spec as Record<string, unknown>).template = null;
  t.same(v.validate(DEPLOYMENT, d), [{ field: 'spec.template', type: 'required', message: 'Required value' }]);
  t.same(v.validate(DEPLOYMENT, null), [], 'a null document is an empty one');
  (d.spec as Record<string, unknown>).template = deployment().spec.template;
  (d.spec.template.spec.containers[0] as Record<string, unknown>).args = ['a', null];
  t.same(v.validate(DEPLOYMENT, d), [], 'a null list item is a zero value, not a type error');
});

t.test('int-or-string and quantities accept both forms and reject others', async (t) => {
  const d = deployment();
  d.spec.strategy.rollingUpdate = { maxSurge: 2, maxUnavailable: '50%' } as never;
  d.spec.template.spec.containers[0].resources = { limits: { cpu: 2, memory: '1.5Gi' }, requests: { cpu: '100m' } } as never;
  t.same(v.validate(DEPLOYMENT, d), []);
  d.spec.strategy.rollingUpdate = { maxSurge: true, maxUnavailable: 1.5 } as never;
  d.spec.template.spec.containers[0].resources = { limits: { cpu: 'lots' } } as never;
  t.same(v.validate(DEPLOYMENT, d), [
    {
      field: 'spec.strategy.rollingUpdate.maxSurge',
      type: 'type',
      message: 'json: cannot unmarshal bool into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type intstr.IntOrString',
    },
    {
      field: 'spec.strategy.rollingUpdate.maxUnavailable',
      type: 'type',
      message: 'json: cannot unmarshal number into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxUnavailable of type intstr.IntOrString',
    },
    {
      field: 'spec.template.spec.containers[0].resources.limits[cpu]',
      type: 'format',
      message: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    },
  ]);
});

t.test('formats: date-time, byte, int32 range; enums', async (t) => {
  const p = pod();
  (p.metadata as Record<string, unknown>).creationTimestamp = 'yesterday';
  p.spec.containers[0].ports[0].containerPort = 2 ** 40;
  p.spec.restartPolicy = 'Sometimes';
  const issues = v.validate('io.k8s.api.core.v1.Pod', p);
  t.same(issues, [
    {
      field: 'metadata.creationTimestamp',
      type: 'format',
      message: 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": not an RFC 3339 timestamp',
    },
    {
      field: 'spec.containers[0].ports[0].containerPort',
      type: 'format',
      message: 'json: cannot unmarshal number 1099511627776 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    },
    {
      field: 'spec.restartPolicy',
      type: 'enum',
      message: 'Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
    },
  ]);
  const s = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { k: 'not base64!' } };
  t.same(v.validate('io.k8s.api.core.v1.Secret', s), [{ field: 'data[k]', type: 'format', message: 'illegal base64 data' }]);
});

t.test('unknown fields are listed with kube paths; maps and preserved values accept any key', async (t) => {
  const d = deployment() as Record<string, any>;
  d.spec.replicaz = 3;
  d.spec.template.spec.containers[0].imagee = 'x';
  d.spec.template.spec.volumes[1].configMap.itemz = [];
  d.metadata.labels['any-key'] = 'fine';
  d.metadata.managedFields[0].fieldsV1['f:metadata'] = { 'f:labels': {} };
  d.top = true;
  // in the order the fields appear, as kube's strict decoder meets them
  t.same(v.unknownFields(DEPLOYMENT, d), [
    'spec.template.spec.containers[0].imagee',
    'spec.template.spec.volumes[1].configMap.itemz',
    'spec.replicaz',
    'top',
  ]);
  const rev = { apiVersion: 'apps/v1', kind: 'ControllerRevision', revision: 1, data: { whatever: { deep: 1 } } };
  t.same(v.unknownFields('io.k8s.api.apps.v1.ControllerRevision', rev), []);
});

t.test('unknown fields inside map values are named like struct fields', async (t) => {
  const mapOfStructs = createSchemaValidator({
    'x.Holder': {
      description: 'test',
      type: 'object',
      properties: { byName: { type: 'object', additionalProperties: { type: 'object', properties: { a: { type: 'string' } } } } },
    },
  });
  t.same(mapOfStructs.unknownFields('x.Holder', { byName: { one: { a: 'x', b: 1 } } }), ['byName.one.b']);
  t.same(mapOfStructs.validate('x.Holder', { byName: { one: { a: 1 } } }), [
    { field: 'byName[one].a', type: 'type', message: 'json: cannot unmarshal number into Go struct field Holder.byName.a of type string' },
  ]);
});

t.test('unknown schema names throw; validators are reused', async (t) => {
  t.throws(() => v.validate('io.k8s.api.apps.v1.Nope', {}), /unknown schema definition/);
  t.throws(() => v.unknownFields('io.k8s.api.apps.v1.Nope', {}), /unknown schema definition/);
  const first = Date.now();
  for (let i = 0; i < 200; i++) v.validate(DEPLOYMENT, deployment());
  t.ok(Date.now() - first < 5000, 'repeated validation does not recompile');
});
