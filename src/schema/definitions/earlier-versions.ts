/**
 * Earlier versions served beside today's: batch/v2alpha1 CronJob (kube 1.20's alpha, without
 * timeZone and lastSuccessfulTime), coordination.k8s.io/v1beta1 Lease and events.k8s.io/v1beta1
 * Event (the same fields as their v1).
 */
import type { Definitions } from '../types';
import { addKind, atomic, bool, core, int32, int64, microTime, obj, objectMeta, ref, str, time } from '../dsl';

const BATCH = 'io.k8s.api.batch.v2alpha1.';
const LEASE = 'io.k8s.api.coordination.v1beta1.';
const EVENTS = 'io.k8s.api.events.v1beta1.';

export const earlierVersionDefinitions: Definitions = {
  [`${BATCH}CronJobSpec`]: obj(
    'Desired state of a CronJob.',
    {
      concurrencyPolicy: str('What to do when a run is due while the previous one still runs. Defaults to Allow.'),
      failedJobsHistoryLimit: int32('Failed Jobs kept. Defaults to 1.'),
      jobTemplate: ref(`${BATCH}JobTemplateSpec`, 'The Job created at each run.'),
      schedule: str('Cron schedule, e.g. "*/5 * * * *".'),
      startingDeadlineSeconds: int64('Seconds after a missed start within which it may still run.'),
      successfulJobsHistoryLimit: int32('Successful Jobs kept. Defaults to 3.'),
      suspend: bool('Stop creating new Jobs. Defaults to false.'),
    },
    { required: ['schedule', 'jobTemplate'] },
  ),
  [`${BATCH}JobTemplateSpec`]: obj('The Jobs a CronJob creates.', {
    metadata: objectMeta('Metadata given to the Jobs.'),
    spec: ref('io.k8s.api.batch.v1.JobSpec', 'Spec of the Jobs.'),
  }),
  [`${BATCH}CronJobStatus`]: obj('Observed state of a CronJob.', {
    active: atomic(ref(core('ObjectReference')), 'Jobs currently running.'),
    lastScheduleTime: time('When a Job was last scheduled.'),
  }),
  [`${LEASE}LeaseSpec`]: obj('Desired state of a Lease.', {
    acquireTime: microTime('When the current holder acquired the lease.'),
    holderIdentity: str('Identity of the current holder.'),
    leaseDurationSeconds: int32('Seconds candidates wait after the last renewal before taking over.'),
    leaseTransitions: int32('How many times the holder changed.'),
    preferredHolder: str('Holder that should take over, in coordinated leader election.'),
    renewTime: microTime('When the holder last renewed the lease.'),
    strategy: str('How the leader is picked in coordinated leader election, e.g. OldestEmulationVersion.'),
  }),
  [`${EVENTS}EventSeries`]: obj(
    'A run of repeated events.',
    { count: int32('Occurrences so far.'), lastObservedTime: microTime('Time of the last occurrence.') },
    { required: ['count', 'lastObservedTime'] },
  ),
};

addKind(earlierVersionDefinitions, BATCH, { group: 'batch', version: 'v2alpha1', kind: 'CronJob' }, 'Jobs created on a schedule.', {
  spec: ref(`${BATCH}CronJobSpec`, 'Desired state.'),
  status: ref(`${BATCH}CronJobStatus`, 'Observed state. Read-only.'),
});

addKind(earlierVersionDefinitions, LEASE, { group: 'coordination.k8s.io', version: 'v1beta1', kind: 'Lease' }, 'A lease, used for leader election and heartbeats.', {
  spec: ref(`${LEASE}LeaseSpec`, 'Desired state.'),
});

addKind(
  earlierVersionDefinitions,
  EVENTS,
  { group: 'events.k8s.io', version: 'v1beta1', kind: 'Event' },
  'A report of something that happened to an object.',
  {
    action: str('What was done, or failed.'),
    deprecatedCount: int32('Deprecated count, for core/v1 compatibility.'),
    deprecatedFirstTimestamp: time('Deprecated first time, for core/v1 compatibility.'),
    deprecatedLastTimestamp: time('Deprecated last time, for core/v1 compatibility.'),
    deprecatedSource: ref(core('EventSource'), 'Deprecated source, for core/v1 compatibility.'),
    eventTime: microTime('When the event first happened.'),
    metadata: objectMeta(),
    note: str('Human-readable description, at most 1kB.'),
    reason: str('Why the action was taken.'),
    regarding: ref(core('ObjectReference'), 'The object the event is about.'),
    related: ref(core('ObjectReference'), 'A second object involved, if any.'),
    reportingController: str('Controller that emitted it, e.g. kubernetes.io/kubelet.'),
    reportingInstance: str('Instance of that controller.'),
    series: ref(`${EVENTS}EventSeries`, 'Data about the series it belongs to.'),
    type: str('Normal or Warning.'),
  },
  ['eventTime'],
);
