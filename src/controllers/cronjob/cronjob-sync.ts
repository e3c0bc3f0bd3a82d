/**
 * One pass of kube 1.20's CronJob controller (the v1 controller, pkg/controller/cronjob) over one
 * CronJob: reconcile status.active with the Jobs it owns, start the most recent unmet scheduled
 * run if the concurrency policy, suspend and startingDeadlineSeconds allow it, then trim finished
 * Jobs to the history limits. Reads come from the caller (the controller's caches); writes and
 * events go through `CronJobActions`, so tests drive a pass with a fake clock and fake API.
 */
import type { Logger } from 'pino';
import { isAlreadyExists } from '../../client/errors';
import type { EventType } from '../../client/events';
import type { KubeObject } from '../../client/types';
import { newControllerRef } from '../util/controller-ref';
import { apiTime, finishedCondition } from '../util/jobs';
import { formatRfc1123z, unmetScheduleTimes } from './schedule';
import { errorMessage } from '../util/errors';

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

export interface CronJobSpec {
  schedule: string;
  startingDeadlineSeconds?: number | null;
  concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
  suspend?: boolean;
  jobTemplate?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: Record<string, unknown> };
  successfulJobsHistoryLimit?: number | null;
  failedJobsHistoryLimit?: number | null;
}

export interface CronJobStatus {
  active?: ObjectReference[];
  lastScheduleTime?: string;
}

/** the API calls and events a pass makes */
export interface CronJobActions {
  createJob(namespace: string, job: KubeObject): Promise<KubeObject>;
  getJob(namespace: string, name: string): Promise<KubeObject>;
  /** delete with propagationPolicy Background (kube's realJobControl.DeleteJob) */
  deleteJob(namespace: string, name: string): Promise<void>;
  /** PUT the status subresource; returns the written CronJob */
  updateStatus(cronJob: KubeObject): Promise<KubeObject>;
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
  logger?: Logger;
}

export function cronSpecOf(cj: KubeObject): CronJobSpec {
  return (cj.spec ?? { schedule: '' }) as CronJobSpec;
}

function cronStatusOf(cj: KubeObject): CronJobStatus {
  cj.status ??= {};
  return cj.status as CronJobStatus;
}

function inActiveList(cj: KubeObject, uid: string | undefined): boolean {
  return (cronStatusOf(cj).active ?? []).some((r) => r.uid === uid);
}

function deleteFromActiveList(cj: KubeObject, uid: string | undefined): void {
  const status = cronStatusOf(cj);
  status.active = (status.active ?? []).filter((r) => r.uid !== uid);
}

/** getJobFromTemplate: `<cronjob>-<scheduled time in minutes since the epoch>`, the template's labels, annotations and spec */
export function jobFromTemplate(cj: KubeObject, scheduledTime: number): KubeObject {
  const template = cronSpecOf(cj).jobTemplate ?? {};
  const job: KubeObject = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${cj.metadata?.name}-${Math.floor(scheduledTime / 60_000)}`,
      namespace: cj.metadata?.namespace,
      labels: { ...(template.metadata?.labels ?? {}) },
      annotations: { ...(template.metadata?.annotations ?? {}) },
      ownerReferences: [newControllerRef({ ...cj, apiVersion: cj.apiVersion ?? 'batch/v1beta1', kind: 'CronJob' })],
    },
    spec: structuredClone(template.spec ?? {}),
  };
  return job;
}

export function jobReference(job: KubeObject): ObjectReference {
  return {
    kind: 'Job',
    namespace: job.metadata?.namespace,
    name: job.metadata?.name,
    uid: job.metadata?.uid,
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata?.resourceVersion,
  };
}

async function deleteJob(cj: KubeObject, job: KubeObject, act: CronJobActions): Promise<boolean> {
  try {
    await act.deleteJob(job.metadata?.namespace ?? '', job.metadata?.name ?? '');
  } catch (err) {
    act.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errorMessage(err)}`);
    act.logger?.error({ err, job: job.metadata?.name }, 'error deleting job of cronjob');
    return false;
  }
  deleteFromActiveList(cj, job.metadata?.uid);
  act.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name}`);
  return true;
}

/**
 * syncOne: `cj` is a copy the pass may change; `jobs` are the Jobs it controls. Returns the
 * CronJob as last written (or undefined when the status could not be written: the pass stops).
 */
export async function syncCronJob(cj: KubeObject, jobs: readonly KubeObject[], now: number, act: CronJobActions): Promise<KubeObject | undefined> {
  const activeBefore = JSON.stringify(cronStatusOf(cj).active ?? []);
  const children = new Set<string>();
  for (const job of jobs) {
    children.add(job.metadata?.uid ?? '');
    const finished = finishedCondition(job);
    if (!inActiveList(cj, job.metadata?.uid)) {
      // finished Jobs missing from the list are the history, not surprises
      if (!finished) act.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${job.metadata?.name}`);
    } else if (finished) {
      deleteFromActiveList(cj, job.metadata?.uid);
      act.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${job.metadata?.name}, status: ${finished.type}`);
    }
  }
  for (const ref of [...(cronStatusOf(cj).active ?? [])]) {
    if (children.has(ref.uid ?? '')) continue;
    act.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
    deleteFromActiveList(cj, ref.uid);
  }
  // kube writes the status on every pass; an unchanged status is a no-op write, so it is skipped here
  if (JSON.stringify(cronStatusOf(cj).active ?? []) !== activeBefore) {
    try {
      cj = { ...(await act.updateStatus(cj)), apiVersion: cj.apiVersion, kind: cj.kind };
    } catch (err) {
      act.logger?.error({ err, cronjob: cj.metadata?.name }, 'unable to update status for cronjob');
      return undefined;
    }
  }

  const spec = cronSpecOf(cj);
  if (cj.metadata?.deletionTimestamp || spec.suspend === true) return cj;

  const status = cronStatusOf(cj);
  let times: number[];
  try {
    times = unmetScheduleTimes(
      {
        schedule: spec.schedule,
        lastScheduleTime: status.lastScheduleTime ? Date.parse(status.lastScheduleTime) : undefined,
        creationTime: Date.parse(cj.metadata?.creationTimestamp ?? '') || now,
        startingDeadlineSeconds: spec.startingDeadlineSeconds,
      },
      now,
    );
  } catch (err) {
    act.event(cj, 'Warning', 'FailedNeedsStart', `Cannot determine if job needs to be started: ${errorMessage(err)}`);
    return cj;
  }
  if (times.length === 0) return cj;
  // only the most recent unmet time starts a Job; the others are missed
  const scheduledTime = times[times.length - 1]!;
  const deadline = spec.startingDeadlineSeconds;
  if (deadline !== undefined && deadline !== null && scheduledTime + deadline * 1000 < now) {
    act.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${formatRfc1123z(scheduledTime)}`);
    return cj;
  }
  const policy = spec.concurrencyPolicy ?? 'Allow';
  if (policy === 'Forbid' && (status.active ?? []).length > 0) return cj;
  if (policy === 'Replace') {
    for (const ref of [...(status.active ?? [])]) {
      let job: KubeObject;
      try {
        job = await act.getJob(ref.namespace ?? cj.metadata?.namespace ?? '', ref.name ?? '');
      } catch (err) {
        act.event(cj, 'Warning', 'FailedGet', `Get job: ${errorMessage(err)}`);
        return cj;
      }
      if (!(await deleteJob(cj, job, act))) return cj;
    }
  }
  let created: KubeObject;
  try {
    created = await act.createJob(cj.metadata?.namespace ?? '', jobFromTemplate(cj, scheduledTime));
  } catch (err) {
    // the Job of this scheduled time exists already: a previous pass made it
    if (!isAlreadyExists(err)) act.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${errorMessage(err)}`);
    return cj;
  }
  act.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata?.name}`);
  status.active = [...(status.active ?? []), jobReference(created)];
  status.lastScheduleTime = apiTime(scheduledTime);
  try {
    cj = { ...(await act.updateStatus(cj)), apiVersion: cj.apiVersion, kind: cj.kind };
  } catch (err) {
    act.logger?.error({ err, cronjob: cj.metadata?.name }, 'unable to update status for cronjob');
  }
  return cj;
}

function startTimeOf(job: KubeObject): number | undefined {
  const t = ((job.status ?? {}) as { startTime?: string }).startTime;
  return t ? Date.parse(t) : undefined;
}

/** byJobStartTime: the oldest start first; Jobs not started yet last, by name among equals */
export function compareByStartTime(a: KubeObject, b: KubeObject): number {
  const at = startTimeOf(a);
  const bt = startTimeOf(b);
  if (at === undefined && bt !== undefined) return 1;
  if (at !== undefined && bt === undefined) return -1;
  if (at === bt) return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0;
  return at! - bt!;
}

/** cleanupFinishedJobs: delete the oldest finished Jobs beyond successfulJobsHistoryLimit and failedJobsHistoryLimit */
export async function cleanupFinishedJobs(cj: KubeObject, jobs: readonly KubeObject[], act: CronJobActions): Promise<KubeObject> {
  const spec = cronSpecOf(cj);
  const unset = (v: number | null | undefined): v is null | undefined => v === undefined || v === null;
  if (unset(spec.successfulJobsHistoryLimit) && unset(spec.failedJobsHistoryLimit)) return cj;
  const succeeded: KubeObject[] = [];
  const failed: KubeObject[] = [];
  for (const job of jobs) {
    const c = finishedCondition(job);
    if (c?.type === 'Complete') succeeded.push(job);
    else if (c?.type === 'Failed') failed.push(job);
  }
  const before = JSON.stringify(cronStatusOf(cj).active ?? []);
  let deleted = false;
  for (const [list, limit] of [[succeeded, spec.successfulJobsHistoryLimit], [failed, spec.failedJobsHistoryLimit]] as const) {
    if (unset(limit)) continue;
    const excess = list.length - limit;
    if (excess <= 0) continue;
    for (const job of [...list].sort(compareByStartTime).slice(0, excess)) deleted = (await deleteJob(cj, job, act)) || deleted;
  }
  if (deleted && JSON.stringify(cronStatusOf(cj).active ?? []) !== before) {
    try {
      cj = { ...(await act.updateStatus(cj)), apiVersion: cj.apiVersion, kind: cj.kind };
    } catch (err) {
      act.logger?.error({ err, cronjob: cj.metadata?.name }, 'unable to update status for cronjob');
    }
  }
  return cj;
}
