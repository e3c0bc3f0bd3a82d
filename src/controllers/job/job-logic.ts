/**
 * The pure parts of kube 1.20's Job controller (pkg/controller/job/job_controller.go): how many
 * pods a non-indexed Job wants active, when it has failed (backoff limit, active deadline), and the
 * delay before a Job with failed pods is looked at again.
 */
import type { KubeObject } from '../../client/types';
import type { JobCondition } from '../util/jobs';
import { apiTime } from '../util/jobs';

/** kube's DefaultJobBackOff and MaxJobBackOff: the requeue delay after failures doubles from 10 s up to 6 min */
export const DEFAULT_JOB_BACKOFF_MS = 10_000;
export const MAX_JOB_BACKOFF_MS = 360_000;

export const BACKOFF_LIMIT_EXCEEDED = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' } as const;
export const DEADLINE_EXCEEDED = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' } as const;

export interface JobSpec {
  parallelism?: number;
  completions?: number | null;
  backoffLimit?: number;
  activeDeadlineSeconds?: number | null;
  ttlSecondsAfterFinished?: number | null;
  template?: KubeObject & { spec?: { restartPolicy?: string } };
}

export interface JobStatus {
  active?: number;
  succeeded?: number;
  failed?: number;
  startTime?: string;
  completionTime?: string;
  conditions?: JobCondition[];
}

export function specOf(job: KubeObject): JobSpec {
  return (job.spec ?? {}) as JobSpec;
}

export function statusOf(job: KubeObject): JobStatus {
  return (job.status ?? {}) as JobStatus;
}

/**
 * manageJob's target when fewer pods run than parallelism: without completions, parallelism until
 * one pod has succeeded (then no new pods); with completions, what remains, at most parallelism.
 */
export function wantedActive(spec: JobSpec, active: number, succeeded: number): number {
  const parallelism = spec.parallelism ?? 1;
  if (spec.completions === undefined || spec.completions === null) return succeeded > 0 ? active : parallelism;
  return Math.min(spec.completions - succeeded, parallelism);
}

interface ContainerStatus {
  restartCount?: number;
}

/**
 * pastBackoffLimitOnFailure: with restartPolicy OnFailure failed containers restart in place, so
 * kube counts the restarts of the job's running and pending pods against backoffLimit.
 */
export function pastBackoffLimitOnFailure(job: KubeObject, pods: readonly KubeObject[]): boolean {
  const spec = specOf(job);
  if (spec.template?.spec?.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    const status = (pod.status ?? {}) as { phase?: string; initContainerStatuses?: ContainerStatus[]; containerStatuses?: ContainerStatus[] };
    if (status.phase !== 'Running' && status.phase !== 'Pending') continue;
    for (const c of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) restarts += c.restartCount ?? 0;
  }
  const limit = spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** pastActiveDeadline: the job has run (since status.startTime) at least activeDeadlineSeconds */
export function pastActiveDeadline(job: KubeObject, now: number): boolean {
  const deadline = specOf(job).activeDeadlineSeconds;
  const start = statusOf(job).startTime;
  if (deadline === undefined || deadline === null || !start) return false;
  return now - Date.parse(start) >= deadline * 1000;
}

/** milliseconds until the active deadline passes, or undefined when the job has none */
export function untilActiveDeadline(job: KubeObject, now: number): number | undefined {
  const deadline = specOf(job).activeDeadlineSeconds;
  const start = statusOf(job).startTime;
  if (deadline === undefined || deadline === null || !start) return undefined;
  return Math.max(0, Date.parse(start) + deadline * 1000 - now);
}

/**
 * exceedsBackoffLimit: a new failure was seen, the job is not at full parallelism, and the
 * failures so far (the queue's requeues for the key, plus this one) pass backoffLimit.
 */
export function exceedsBackoffLimit(o: { newFailure: boolean; active: number; parallelism: number; requeues: number; backoffLimit: number }): boolean {
  return o.newFailure && o.active !== o.parallelism && o.requeues + 1 > o.backoffLimit;
}

/** getBackoff: no delay for a key that has not failed, then 10 s, 20 s, 40 s ... at most 360 s */
export function jobBackoffMs(requeues: number): number {
  if (requeues <= 0) return 0;
  const ms = DEFAULT_JOB_BACKOFF_MS * 2 ** (requeues - 1);
  return Math.min(ms, MAX_JOB_BACKOFF_MS);
}

/** newCondition: probe and transition time both now */
export function newJobCondition(type: string, reason: string, message: string, now: number): JobCondition {
  const t = apiTime(now);
  const c: JobCondition = { type, status: 'True', lastProbeTime: t, lastTransitionTime: t };
  if (reason) c.reason = reason;
  if (message) c.message = message;
  return c;
}

/** pods of a phase (kube's filterPods for Succeeded and Failed) */
export function countPhase(pods: readonly KubeObject[], phase: string): number {
  return pods.filter((p) => ((p.status ?? {}) as { phase?: string }).phase === phase).length;
}
