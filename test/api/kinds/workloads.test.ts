import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { create, fields, kind, podTemplate } from './helpers';

function workload(apiVersion: string, k: string, spec: Record<string, unknown>): KubeObject {
  return { apiVersion, kind: k, metadata: { name: 'w', namespace: 'default', uid: 'uid-1' }, spec };
}

t.test('ReplicaSet: defaults, status reset, field label, table, scale', async (t) => {
  const def = kind('apps', 'v1', 'ReplicaSet');
  const rs = workload('apps/v1', 'ReplicaSet', { selector: { matchLabels: { app: 'w' } }, template: podTemplate({ app: 'w' }) });
  rs.status = { replicas: 7 };
  t.same(create(def, rs), []);
  t.equal((rs.spec as any).replicas, 1);
  t.same(rs.status, { replicas: 0 });
  t.same(def.selectableFields!(rs), { 'status.replicas': '0' });
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Desired', 'Current', 'Ready', 'Age', 'Containers', 'Images', 'Selector']);
  t.same(def.table!.cells(rs, new Date()).slice(0, 4), ['w', 1, 0, 0]);
  t.equal(def.scale!.getSelector(rs), 'app=w');
});

t.test('DaemonSet: defaults and the maxUnavailable/maxSurge rule', async (t) => {
  const def = kind('apps', 'v1', 'DaemonSet');
  const ds = workload('apps/v1', 'DaemonSet', { selector: { matchLabels: { app: 'w' } }, template: podTemplate({ app: 'w' }) });
  t.same(create(def, ds), []);
  t.same((ds.spec as any).updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
  t.equal((ds.spec as any).revisionHistoryLimit, 10);
  const zero = workload('apps/v1', 'DaemonSet', {
    selector: { matchLabels: { app: 'w' } },
    template: podTemplate({ app: 'w' }),
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } },
  });
  t.same(create(def, zero), [
    { reason: 'FieldValueRequired', message: 'Required value: cannot be 0 when maxSurge is 0', field: 'spec.updateStrategy.rollingUpdate.maxUnavailable' },
  ]);
  const both = workload('apps/v1', 'DaemonSet', {
    selector: { matchLabels: { app: 'w' } },
    template: podTemplate({ app: 'w' }),
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } },
  });
  t.match(create(def, both), [{ field: 'spec.updateStrategy.rollingUpdate.maxSurge', message: /may not be set when maxUnavailable is non-zero/ }]);
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers', 'Images', 'Selector']);
  t.equal(def.table!.cells(ds, new Date())[6], '<none>');
});

t.test('StatefulSet: defaults and update restrictions', async (t) => {
  const def = kind('apps', 'v1', 'StatefulSet');
  const sts = workload('apps/v1', 'StatefulSet', {
    serviceName: 'w',
    selector: { matchLabels: { app: 'w' } },
    template: podTemplate({ app: 'w' }),
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }],
  });
  t.same(create(def, sts), []);
  const spec = sts.spec as any;
  t.equal(spec.podManagementPolicy, 'OrderedReady');
  t.same(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
  t.same(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
  t.equal(spec.replicas, 1);
  t.equal(spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
  t.same(sts.status, { replicas: 0, availableReplicas: 0 });
  const scaled = JSON.parse(JSON.stringify(sts));
  scaled.spec.replicas = 3;
  t.same(def.strategy.validate(scaled, sts), []);
  const renamed = JSON.parse(JSON.stringify(sts));
  renamed.spec.serviceName = 'other';
  t.match(def.strategy.validate(renamed, sts), [{ field: 'spec', reason: 'FieldValueForbidden', message: /updates to statefulset spec for fields other than 'replicas'/ }]);
  const bad = workload('apps/v1', 'StatefulSet', { selector: { matchLabels: { app: 'w' } }, template: podTemplate({ app: 'w' }), podManagementPolicy: 'Random' });
  t.match(create(def, bad), [{ field: 'spec.podManagementPolicy', message: /must be 'OrderedReady' or 'Parallel'/ }]);
  t.same(def.table!.cells(sts, new Date()).slice(0, 2), ['w', '0/1']);
});

t.test('StatefulSet: mounts of volumeClaimTemplates volumes are accepted; the template is checked as kube checks it', async (t) => {
  const def = kind('apps', 'v1', 'StatefulSet');
  const template = podTemplate({ app: 'db' }, { containers: [{ name: 'db', image: 'postgres:16', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }] }] });
  const sts = workload('apps/v1', 'StatefulSet', {
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    template,
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  });
  t.same(create(def, sts), [], 'the claim template "data" is the mounted volume (kube: 201 Created)');
  // kube's ValidateStatefulSetSpec: restart policy Always, no activeDeadlineSeconds, template labels at spec.template.labels
  const bad = workload('apps/v1', 'StatefulSet', {
    selector: { matchLabels: { app: 'db' } },
    template: podTemplate({ app: 'db' }, { restartPolicy: 'Never', activeDeadlineSeconds: 5 }),
  });
  t.match(create(def, bad), [
    { field: 'spec.template.spec.restartPolicy', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Never": supported values: "Always"' },
    { field: 'spec.template.spec.activeDeadlineSeconds', reason: 'FieldValueForbidden', message: 'Forbidden: activeDeadlineSeconds in StatefulSet is not Supported' },
  ]);
  const badLabel = workload('apps/v1', 'StatefulSet', { selector: { matchLabels: { app: 'db' } }, template: podTemplate({ app: 'db', 'bad key!': 'x' }) });
  t.match(create(def, badLabel), [{ field: 'spec.template.labels', reason: 'FieldValueInvalid' }]);
});

t.test('Job: defaults, generated selector and labels, restart policy, immutability', async (t) => {
  const def = kind('batch', 'v1', 'Job');
  const job = workload('batch/v1', 'Job', { template: podTemplate({}, { restartPolicy: 'Never' }) });
  t.same(create(def, job), []);
  const spec = job.spec as any;
  t.same([spec.completions, spec.parallelism, spec.backoffLimit, spec.completionMode, spec.suspend], [1, 1, 6, 'NonIndexed', false]);
  t.same(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': 'uid-1' } });
  t.same(spec.template.metadata.labels, {
    'job-name': 'w',
    'batch.kubernetes.io/job-name': 'w',
    'controller-uid': 'uid-1',
    'batch.kubernetes.io/controller-uid': 'uid-1',
  });
  t.equal(def.defaultGarbageCollectionPolicy, 'Orphan');
  const always = workload('batch/v1', 'Job', { template: podTemplate({}) });
  t.match(create(def, always), [
    { field: 'spec.template.spec.restartPolicy', message: 'Unsupported value: "Always": supported values: "OnFailure", "Never"' },
  ]);
  const changed = JSON.parse(JSON.stringify(job));
  changed.spec.template.spec.containers[0].image = 'other';
  t.same(fields(def.strategy.validate(changed, job)), ['spec.template']);
  const zeroBackoff = workload('batch/v1', 'Job', { backoffLimit: 0, template: podTemplate({}, { restartPolicy: 'Never' }) });
  create(def, zeroBackoff);
  t.equal((zeroBackoff.spec as any).backoffLimit, 0);
  job.status = { succeeded: 1, startTime: '2024-01-01T00:00:00Z', completionTime: '2024-01-01T00:00:12Z', conditions: [{ type: 'Complete', status: 'True' }] };
  t.same(def.selectableFields!(job), { 'status.successful': '1' });
  t.same(def.table!.cells(job, new Date()).slice(1, 4), ['Complete', '1/1', '12s']);
});

t.test('Job with manualSelector keeps the user selector', async (t) => {
  const def = kind('batch', 'v1', 'Job');
  const job = workload('batch/v1', 'Job', { manualSelector: true, selector: { matchLabels: { a: 'b' } }, template: podTemplate({ a: 'b' }, { restartPolicy: 'OnFailure' }) });
  t.same(create(def, job), []);
  t.same((job.spec as any).selector, { matchLabels: { a: 'b' } });
});

function cronJob(apiVersion: string, spec: Record<string, unknown> = {}): KubeObject {
  return workload(apiVersion, 'CronJob', {
    schedule: '*/5 * * * *',
    jobTemplate: { spec: { template: podTemplate({}, { restartPolicy: 'OnFailure' }) } },
    ...spec,
  });
}

t.test('CronJob: defaults keep explicit zeros', async (t) => {
  const def = kind('batch', 'v1', 'CronJob');
  const cj = cronJob('batch/v1');
  t.same(create(def, cj), []);
  const spec = cj.spec as any;
  t.same([spec.concurrencyPolicy, spec.suspend, spec.successfulJobsHistoryLimit, spec.failedJobsHistoryLimit], ['Allow', false, 3, 1]);
  const zero = cronJob('batch/v1', { successfulJobsHistoryLimit: 0, failedJobsHistoryLimit: 0 });
  create(def, zero);
  t.same([(zero.spec as any).successfulJobsHistoryLimit, (zero.spec as any).failedJobsHistoryLimit], [0, 0]);
});

t.test('CronJob: schedules and policies', async (t) => {
  const def = kind('batch', 'v1', 'CronJob');
  for (const schedule of ['@hourly', '@every 1h30m', '0 0 * * MON', '0 0 31 2 *']) t.same(create(def, cronJob('batch/v1', { schedule })), [], schedule);
  t.match(create(def, cronJob('batch/v1', { schedule: '* * *' })), [{ field: 'spec.schedule', message: 'Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]' }]);
  t.match(create(def, cronJob('batch/v1', { schedule: '61 * * * *' })), [{ field: 'spec.schedule', reason: 'FieldValueInvalid' }]);
  t.match(create(def, cronJob('batch/v1', { schedule: '@often' })), [{ message: /unrecognized descriptor: @often/ }]);
  t.match(create(def, cronJob('batch/v1', { schedule: 'TZ=UTC 0 * * * *' })), [{ message: /cannot use TZ or CRON_TZ in schedule, use timeZone field instead/ }]);
  t.match(create(def, cronJob('batch/v1', { timeZone: 'Mars/Base' })), [{ field: 'spec.timeZone', message: /unknown time zone Mars\/Base/ }]);
  t.same(create(def, cronJob('batch/v1', { timeZone: 'Europe/Paris' })), []);
  t.same(create(def, cronJob('batch/v1', { concurrencyPolicy: 'Sometimes' })), [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"', field: 'spec.concurrencyPolicy' },
  ]);
  t.match(create(def, cronJob('batch/v1', { successfulJobsHistoryLimit: -1 })), [{ field: 'spec.successfulJobsHistoryLimit', message: 'Invalid value: -1: must be greater than or equal to 0' }]);
});

t.test('CronJob v1beta1 shares v1 storage and round-trips', async (t) => {
  const beta = kind('batch', 'v1beta1', 'CronJob');
  const v1 = kind('batch', 'v1', 'CronJob');
  t.same(beta.storage, { group: 'batch', resource: 'cronjobs' });
  t.equal(beta.storageVersion, 'v1');
  t.equal(beta.schemaName, 'io.k8s.api.batch.v1beta1.CronJob');
  t.equal(beta.defaultGarbageCollectionPolicy, 'Orphan');
  t.equal(v1.defaultGarbageCollectionPolicy, 'Background');
  const obj = cronJob('batch/v1beta1');
  create(beta, obj);
  const stored = beta.toStorage!(obj);
  t.equal(stored.apiVersion, 'batch/v1');
  const back = beta.fromStorage!(stored);
  t.same(back, obj);
  t.not(back, obj);
  t.same(beta.table!.columns.map((c) => c.name), ['Name', 'Schedule', 'Timezone', 'Suspend', 'Active', 'Last Schedule', 'Age', 'Containers', 'Images', 'Selector']);
  t.same(beta.table!.cells(obj, new Date()).slice(0, 6), ['w', '*/5 * * * *', '<none>', 'False', 0, '<none>']);
});
