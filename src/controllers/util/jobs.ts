/**
 * Job predicates shared by the job, cronjob and ttl-after-finished controllers (kube's
 * pkg/controller/job/utils.go): a Job is finished once it has a Complete or Failed condition
 * whose status is True.
 */
import type { KubeObject } from '../../client/types';

export interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export function jobConditions(job: KubeObject): JobCondition[] {
  return ((job.status ?? {}) as { conditions?: JobCondition[] }).conditions ?? [];
}

/** the condition that finished the job (Complete or Failed, True), if any */
export function finishedCondition(job: KubeObject): JobCondition | undefined {
  return jobConditions(job).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export function isJobFinished(job: KubeObject): boolean {
  return finishedCondition(job) !== undefined;
}

/** a time as the API writes it: RFC 3339, whole seconds */
export function apiTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
