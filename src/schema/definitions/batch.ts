/** batch/v1 Job and CronJob, and batch/v1beta1 CronJob. */
import type { Definitions } from '../types';
import {
  addKind, atomic, bool, condition, core, int32, int64, meta, mergeList, obj, objectMeta, oneOf, ref, set, str, time,
} from '../dsl';

const V1 = 'io.k8s.api.batch.v1.';
const V1BETA1 = 'io.k8s.api.batch.v1beta1.';
const b = (name: string): string => V1 + name;

function cronJobSpec(templateRef: string, concurrency: ReturnType<typeof str>) {
  return obj(
    'Desired state of a CronJob.',
    {
      concurrencyPolicy: concurrency,
      failedJobsHistoryLimit: int32('Failed Jobs kept. Defaults to 1.'),
      jobTemplate: ref(templateRef, 'The Job created at each run.'),
      schedule: str('Cron schedule, e.g. "*/5 * * * *".'),
      startingDeadlineSeconds: int64('Seconds after a missed start within which it may still run.'),
      successfulJobsHistoryLimit: int32('Successful Jobs kept. Defaults to 3.'),
      suspend: bool('Stop creating new Jobs. Defaults to false.'),
      timeZone: str('Time zone of the schedule, e.g. Etc/UTC; defaults to the controller time zone.'),
    },
    { required: ['schedule', 'jobTemplate'] },
  );
}

const cronJobStatus = () =>
  obj('Observed state of a CronJob.', {
    active: atomic(ref(core('ObjectReference')), 'Jobs currently running.'),
    lastScheduleTime: time('When a Job was last scheduled.'),
    lastSuccessfulTime: time('When a Job last completed successfully.'),
  });

const CONCURRENCY = ['Allow', 'Forbid', 'Replace'];
const concurrencyDesc = 'What to do when a run is due while the previous one still runs. Defaults to Allow.';

export const batchDefinitions: Definitions = {
  [b('JobSpec')]: obj(
    'Desired state of a Job.',
    {
      activeDeadlineSeconds: int64('Seconds the Job may run before it is failed.'),
      backoffLimit: int32('Retries before the Job is failed. Defaults to 6.'),
      backoffLimitPerIndex: int32('Retries per index, for Indexed Jobs.'),
      completionMode: oneOf('NonIndexed or Indexed. Defaults to NonIndexed.', ['Indexed', 'NonIndexed']),
      completions: int32('Successful pods needed; nil means any one success once all pods end.'),
      managedBy: str('Controller that manages the Job; empty for the built-in one. Immutable.'),
      manualSelector: bool('Use the given selector instead of a generated one.'),
      maxFailedIndexes: int32('Failed indexes tolerated before the Job fails.'),
      parallelism: int32('Pods running at once. Defaults to 1.'),
      podFailurePolicy: ref(b('PodFailurePolicy'), 'How pod failures count.'),
      podReplacementPolicy: oneOf('When replacement pods are created.', ['Failed', 'TerminatingOrFailed']),
      selector: ref(meta('LabelSelector'), 'Selects the pods; normally generated.'),
      successPolicy: ref(b('SuccessPolicy'), 'When an Indexed Job counts as succeeded early.'),
      suspend: bool('Do not create pods (and delete running ones) while true.'),
      template: ref(core('PodTemplateSpec'), 'Pods created; restartPolicy must be Never or OnFailure.'),
      ttlSecondsAfterFinished: int32('Seconds after completion before the Job is deleted.'),
    },
    { required: ['template'] },
  ),
  [b('PodFailurePolicy')]: obj(
    'Rules deciding what a pod failure means.',
    { rules: atomic(ref(b('PodFailurePolicyRule')), 'Checked in order; the first match wins.') },
    { required: ['rules'] },
  ),
  [b('PodFailurePolicyRule')]: obj(
    'One pod failure rule.',
    {
      action: oneOf('What to do on a match.', ['Count', 'FailIndex', 'FailJob', 'Ignore']),
      onExitCodes: ref(b('PodFailurePolicyOnExitCodesRequirement'), 'Match on container exit codes.'),
      onPodConditions: atomic(ref(b('PodFailurePolicyOnPodConditionsPattern')), 'Match on pod conditions.'),
    },
    { required: ['action'] },
  ),
  [b('PodFailurePolicyOnExitCodesRequirement')]: obj(
    'Match on exit codes.',
    {
      containerName: str('Only this container; all when empty.'),
      operator: oneOf('In or NotIn.', ['In', 'NotIn']),
      values: set(int32(), 'Exit codes, sorted, no duplicates.'),
    },
    { required: ['operator', 'values'] },
  ),
  [b('PodFailurePolicyOnPodConditionsPattern')]: obj(
    'Match on a pod condition.',
    { status: str('Condition status to match.'), type: str('Condition type to match.') },
    { required: ['type', 'status'] },
  ),
  [b('SuccessPolicy')]: obj(
    'When an Indexed Job succeeds early.',
    { rules: atomic(ref(b('SuccessPolicyRule')), 'Any matching rule makes the Job succeed.') },
    { required: ['rules'] },
  ),
  [b('SuccessPolicyRule')]: obj('One success rule.', {
    succeededCount: int32('Succeeded indexes needed.'),
    succeededIndexes: str('Indexes that must succeed, e.g. "0-3,5".'),
  }),
  [b('JobStatus')]: obj('Observed state of a Job.', {
    active: int32('Pods running.'),
    completedIndexes: str('Completed indexes, compressed, for Indexed Jobs.'),
    completionTime: time('When the Job completed.'),
    conditions: mergeList(ref(b('JobCondition')), 'type', 'Complete, Failed, Suspended...', { listType: 'atomic' }),
    failed: int32('Pods that failed.'),
    failedIndexes: str('Failed indexes, compressed.'),
    ready: int32('Pods ready.'),
    startTime: time('When the controller started the Job.'),
    succeeded: int32('Pods that succeeded.'),
    terminating: int32('Pods terminating.'),
    uncountedTerminatedPods: ref(b('UncountedTerminatedPods'), 'Finished pods not yet counted.'),
  }),
  [b('UncountedTerminatedPods')]: obj('Finished pods not yet counted in the status.', {
    failed: set(str(), 'UIDs of failed pods.'),
    succeeded: set(str(), 'UIDs of succeeded pods.'),
  }),
  [b('JobCondition')]: condition('A condition of a Job.', 'Type of the condition.', ['lastProbeTime', 'lastTransitionTime']),
  [b('JobTemplateSpec')]: obj('The Jobs a CronJob creates.', {
    metadata: objectMeta('Metadata given to the Jobs.'),
    spec: ref(b('JobSpec'), 'Spec of the Jobs.'),
  }),
  [b('CronJobSpec')]: cronJobSpec(b('JobTemplateSpec'), oneOf(concurrencyDesc, CONCURRENCY)),
  [b('CronJobStatus')]: cronJobStatus(),
  [`${V1BETA1}JobTemplateSpec`]: obj('The Jobs a CronJob creates.', {
    metadata: objectMeta('Metadata given to the Jobs.'),
    spec: ref(b('JobSpec'), 'Spec of the Jobs.'),
  }),
  [`${V1BETA1}CronJobSpec`]: cronJobSpec(`${V1BETA1}JobTemplateSpec`, str(concurrencyDesc)),
  [`${V1BETA1}CronJobStatus`]: cronJobStatus(),
};

addKind(batchDefinitions, V1, { group: 'batch', version: 'v1', kind: 'Job' }, 'Pods run until a number of them succeed.', {
  spec: ref(b('JobSpec'), 'Desired state.'),
  status: ref(b('JobStatus'), 'Observed state. Read-only.'),
});
addKind(batchDefinitions, V1, { group: 'batch', version: 'v1', kind: 'CronJob' }, 'Jobs created on a schedule.', {
  spec: ref(b('CronJobSpec'), 'Desired state.'),
  status: ref(b('CronJobStatus'), 'Observed state. Read-only.'),
});
addKind(batchDefinitions, V1BETA1, { group: 'batch', version: 'v1beta1', kind: 'CronJob' }, 'Jobs created on a schedule.', {
  spec: ref(`${V1BETA1}CronJobSpec`, 'Desired state.'),
  status: ref(`${V1BETA1}CronJobStatus`, 'Observed state. Read-only.'),
});
