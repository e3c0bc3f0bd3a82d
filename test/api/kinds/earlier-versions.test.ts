import t from 'tap';
import { create, fields, kind } from './helpers';
import type { KubeObject } from '../../../src/api/kind';
import { jsonEqual } from '../../../src/api/json-value';
import { PRESERVED_FIELDS_ANNOTATION } from '../../../src/api/kinds/preserved-fields';

t.test('batch/v2alpha1 CronJob: v1 storage, timeZone and lastSuccessfulTime kept aside', async (t) => {
  const alpha = kind('batch', 'v2alpha1', 'CronJob');
  const stored: KubeObject = {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'report', namespace: 'default' },
    spec: { schedule: '0 * * * *', timeZone: 'Europe/Paris', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'busybox' }] } } } } },
    status: { lastScheduleTime: '2024-05-01T10:00:00Z', lastSuccessfulTime: '2024-05-01T10:00:30Z' },
  };
  const read = alpha.fromStorage!(stored);
  t.equal(read.apiVersion, 'batch/v2alpha1');
  t.notOk((read.spec as Record<string, unknown>).timeZone);
  t.notOk((read.status as Record<string, unknown>).lastSuccessfulTime);
  t.same(JSON.parse(read.metadata!.annotations![PRESERVED_FIELDS_ANNOTATION]), { 'spec.timeZone': 'Europe/Paris', 'status.lastSuccessfulTime': '2024-05-01T10:00:30Z' });
  t.ok(jsonEqual(alpha.toStorage!(read), stored), 'written back unchanged');
  t.equal(alpha.table!.cells(read, new Date('2024-05-01T11:00:00Z'))[2], 'Europe/Paris', 'the table shows the time zone kept aside');
  // the kept fields are validated as v1 fields
  const forged = alpha.fromStorage!({ ...stored, spec: { ...(stored.spec as object), timeZone: 'Mars/Olympus' } });
  t.same(fields(create(alpha, forged)), ['spec.timeZone']);
  t.equal(alpha.defaultGarbageCollectionPolicy, 'Orphan', 'kube orphans by default in the earlier versions');
  const plain: KubeObject = { apiVersion: 'batch/v2alpha1', kind: 'CronJob', metadata: { name: 'x' }, spec: { schedule: 'bad', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'a', image: 'b' }] } } } } } };
  t.same(fields(create(alpha, plain)), ['spec.schedule']);
  t.notOk(alpha.toStorage!(plain).metadata?.annotations, 'nothing to restore, no annotation');
});

t.test('coordination.k8s.io/v1beta1 Lease shares v1 storage and validation', async (t) => {
  const beta = kind('coordination.k8s.io', 'v1beta1', 'Lease');
  t.same(beta.storage, { group: 'coordination.k8s.io', resource: 'leases' });
  t.equal(beta.storageVersion, 'v1');
  t.same(fields(create(beta, { apiVersion: 'coordination.k8s.io/v1beta1', kind: 'Lease', metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0 } })), ['spec.leaseDurationSeconds']);
  t.same(beta.table!.columns.map((c) => c.name), ['Name', 'Holder', 'Age']);
});

t.test('events.k8s.io/v1beta1 Event: core storage, legacy validation', async (t) => {
  const beta = kind('events.k8s.io', 'v1beta1', 'Event');
  const ev: KubeObject = {
    apiVersion: 'events.k8s.io/v1beta1',
    kind: 'Event',
    metadata: { name: 'e', namespace: 'default' },
    eventTime: '2024-05-01T10:00:00.000000Z',
    reportingController: 'kubelet',
    reportingInstance: 'node-1',
    action: 'Pull',
    reason: 'Pulled',
    regarding: { kind: 'Pod', namespace: 'default', name: 'web' },
    note: 'pulled',
    type: 'Normal',
  };
  const core = beta.toStorage!(ev);
  t.equal(core.apiVersion, 'v1');
  t.same(core.involvedObject, { kind: 'Pod', namespace: 'default', name: 'web' });
  t.equal(core.message, 'pulled');
  t.ok(jsonEqual(beta.fromStorage!(core), ev), 'read back in v1beta1');
  t.same(create(beta, structuredClone(ev)), []);
  // legacy rules: an old-style event without eventTime is accepted, and updates are not frozen
  const old: KubeObject = { apiVersion: 'events.k8s.io/v1beta1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, regarding: { kind: 'Pod', namespace: 'default', name: 'web' }, reason: 'X' };
  t.same(create(beta, old), []);
  t.same(beta.strategy.validate({ ...ev, note: 'changed' }, ev), [], 'v1beta1 updates may change the note (events.k8s.io/v1 refuses)');
  t.same(fields(kind('events.k8s.io', 'v1', 'Event').strategy.validate({ ...ev, apiVersion: 'events.k8s.io/v1', note: 'changed' }, { ...ev, apiVersion: 'events.k8s.io/v1' })), ['note']);
  t.same(fields(create(beta, { ...structuredClone(ev), type: 'Odd' })), ['type']);
  t.same(beta.selectableFields!(ev)['regarding.name'], 'web');
});

t.test('internal.apiserver.k8s.io/v1alpha1 StorageVersion validation', async (t) => {
  const sv = kind('internal.apiserver.k8s.io', 'v1alpha1', 'StorageVersion');
  t.equal(sv.namespaced, false);
  t.equal(sv.statusSubresource, true);
  const named = (name: string) => create(sv, { apiVersion: 'internal.apiserver.k8s.io/v1alpha1', kind: 'StorageVersion', metadata: { name } }).map((c) => c.message);
  t.same(named('apps.deployments'), []);
  t.same(named('deployments'), ['Invalid value: "deployments": name must be in the form of <group>.<resource>']);
  t.match(named('apps.Deployments')[0], 'the resource segment a DNS-1035 label must consist of lower case alphanumeric characters');
  const status = (s: Record<string, unknown>) => sv.strategy.validateStatus!({ metadata: { name: 'apps.deployments' }, status: s }, {}).map((c) => `${c.field}: ${c.message}`);
  t.same(status({
    storageVersions: [{ apiServerID: 'a', encodingVersion: 'apps/v1', decodableVersions: ['apps/v1'], servedVersions: ['apps/v1'] }],
    commonEncodingVersion: 'apps/v1',
    conditions: [{ type: 'AllEncodingVersionsEqual', status: 'True', reason: 'Same', message: 'same' }],
  }), []);
  t.same(status({
    storageVersions: [
      { apiServerID: 'a', encodingVersion: 'apps/v1', decodableVersions: ['apps/v1beta1'], servedVersions: ['apps/v2'] },
      { apiServerID: 'a', encodingVersion: 'apps/V2', decodableVersions: ['apps/V2'] },
    ],
    commonEncodingVersion: 'apps/v1',
    conditions: [{ type: 'X', status: 'True', reason: '', message: 'm' }, { type: 'X', status: 'True', reason: 'r', message: '' }],
  }), [
    'status.storageVersions[0].decodableVersions: Invalid value: []string{"apps/v1beta1"}: decodableVersions must include encodingVersion apps/v1',
    'status.storageVersions[0].servedVersions[0]: Invalid value: "apps/v2": individual served version : apps/v2 must be included in decodableVersions : [apps/v1beta1]',
    'status.storageVersions[1].apiServerID: Duplicate value: "a"',
    "status.storageVersions[1].encodingVersion: Invalid value: \"apps/V2\": version part: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    "status.storageVersions[1].decodableVersions[0]: Invalid value: \"apps/V2\": version part: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    'status.commonEncodingVersion: Invalid value: "apps/v1": should be nil if servers do not agree on the same encoding version, or if there is no server reporting the supported versions yet',
    'status[0].reason: Required value: reason cannot be empty',
    'status[1].type: Invalid value: "X": the type of the condition is not unique, it also appears in conditions[0]',
    'status[1].message: Required value: message cannot be empty',
  ]);
  t.same(status({ storageVersions: [{ apiServerID: 'a', encodingVersion: 'v1', decodableVersions: ['v1'] }] }), ['status.commonEncodingVersion: Invalid value: null: the common encoding version is v1']);
  const fresh: KubeObject = { apiVersion: 'internal.apiserver.k8s.io/v1alpha1', kind: 'StorageVersion', metadata: { name: 'apps.deployments' }, status: { commonEncodingVersion: 'x' } };
  t.same(create(sv, fresh), [], 'create starts with an empty status');
  t.same(fresh.status, {});
  const now = new Date('2024-05-01T10:01:00Z');
  t.same(sv.table!.columns.map((c) => c.name), ['Name', 'CommonEncodingVersion', 'StorageVersions', 'Age']);
  t.same(sv.table!.cells({ metadata: { name: 'apps.deployments', creationTimestamp: '2024-05-01T10:00:00Z' }, status: {} }, now), ['apps.deployments', '<unset>', '<unset>', '60s']);
  const four = ['a', 'b', 'c', 'd'].map((id) => ({ apiServerID: id, encodingVersion: 'apps/v1' }));
  t.same(sv.table!.cells({ metadata: { name: 'x.y' }, status: { commonEncodingVersion: 'apps/v1', storageVersions: four } }, now).slice(1, 3), ['apps/v1', 'a=apps/v1,b=apps/v1,c=apps/v1 + 1 more...']);
});
