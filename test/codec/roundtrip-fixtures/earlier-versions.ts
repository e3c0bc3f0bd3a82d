/** round-trip fixtures: batch/v2alpha1 CronJob, coordination v1beta1 Lease, events v1beta1 Event, StorageVersion */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


export const earlierVersionFixtures: Fixtures = {
  'batch/v2alpha1/CronJob': {
    apiVersion: 'batch/v2alpha1',
    kind: 'CronJob',
    metadata: fixtureMeta('report', 'default'),
    spec: {
      schedule: '*/5 * * * *',
      startingDeadlineSeconds: 0,
      concurrencyPolicy: 'Forbid',
      suspend: false,
      jobTemplate: {
        metadata: { labels: { job: 'report' } },
        spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'report', image: 'busybox:1.36', args: ['date'] }] } } },
      },
      successfulJobsHistoryLimit: 0,
      failedJobsHistoryLimit: 1,
    },
    status: { active: [{ kind: 'Job', namespace: 'default', name: 'report-28000000', uid: 'j1', apiVersion: 'batch/v1' }], lastScheduleTime: '2024-05-01T10:00:00Z' },
  },
  'coordination.k8s.io/v1beta1/Lease': {
    apiVersion: 'coordination.k8s.io/v1beta1',
    kind: 'Lease',
    metadata: fixtureMeta('kube-controller-manager', 'kube-system'),
    spec: {
      holderIdentity: 'node-1_0a1b',
      leaseDurationSeconds: 15,
      acquireTime: '2024-05-01T10:00:00.123456Z',
      renewTime: '2024-05-01T10:00:05.654321Z',
      leaseTransitions: 0,
    },
  },
  'events.k8s.io/v1beta1/Event': {
    apiVersion: 'events.k8s.io/v1beta1',
    kind: 'Event',
    metadata: fixtureMeta('web.17a', 'default'),
    eventTime: '2024-05-01T10:00:00.000001Z',
    series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.500000Z' },
    reportingController: 'kubernetes.io/kubelet',
    reportingInstance: 'node-1',
    action: 'Pulling',
    reason: 'Pulled',
    regarding: { kind: 'Pod', namespace: 'default', name: 'web', uid: 'p1', apiVersion: 'v1', fieldPath: 'spec.containers{web}' },
    note: 'pulled image',
    type: 'Normal',
    deprecatedCount: 3,
  },
  'internal.apiserver.k8s.io/v1alpha1/StorageVersion': {
    apiVersion: 'internal.apiserver.k8s.io/v1alpha1',
    kind: 'StorageVersion',
    metadata: fixtureMeta('apps.deployments'),
    spec: {},
    status: {
      storageVersions: [{ apiServerID: 'kube-apiserver-1', encodingVersion: 'apps/v1', decodableVersions: ['apps/v1', 'apps/v1beta2'], servedVersions: ['apps/v1'] }],
      commonEncodingVersion: 'apps/v1',
      conditions: [{ type: 'AllEncodingVersionsEqual', status: 'True', observedGeneration: 1, lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'CommonEncodingVersionSet', message: 'Common encoding version set' }],
    },
  },
};
