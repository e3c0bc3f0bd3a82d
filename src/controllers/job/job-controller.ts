/**
 * kube 1.20's Job controller (pkg/controller/job), for non-indexed Jobs: each sync claims the pods
 * the Job's selector matches, counts them by phase, fails the Job past its backoff limit or active
 * deadline (deleting its active pods), otherwise creates or deletes pods toward parallelism and the
 * remaining completions, marks it Complete once enough pods succeeded, and writes the status.
 *
 * Failures slow the Job down: a sync that sees new failed pods ends in an error, so the key is
 * requeued with a per-Job backoff (10 s doubling to 6 min); the number of such requeues is the
 * retry count that backoffLimit bounds. That count is kept until a pod succeeds, so this controller
 * runs its own worker loop instead of runWorkers (which forgets a key after any clean sync).
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject } from '../../client/types';
import { ExponentialFailureRateLimiter, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { claimObjects, controllerOf, recheckOwner } from '../util/controller-ref';
import { ControllerExpectations } from '../util/expectations';
import { apiTime, isJobFinished } from '../util/jobs';
import { errorMessage } from '../util/errors';
import { createPodFor, deletePodOf, slowStartBatch } from '../util/pod-control';
import { isPodActive, rankForDeletion } from '../util/pods';
import { selectorOf } from '../util/selectors';
import {
  BACKOFF_LIMIT_EXCEEDED,
  countPhase,
  DEADLINE_EXCEEDED,
  DEFAULT_JOB_BACKOFF_MS,
  exceedsBackoffLimit,
  jobBackoffMs,
  MAX_JOB_BACKOFF_MS,
  newJobCondition,
  pastActiveDeadline,
  pastBackoffLimitOnFailure,
  specOf,
  statusOf,
  untilActiveDeadline,
  wantedActive,
  type JobStatus,
} from './job-logic';

/** kube 1.20 has no flag for it: JobControllerConfiguration.ConcurrentJobSyncs defaults to 5 */
export const JOB_WORKERS = 5;

export interface JobControllerOptions {
  ctx: ControllerContext;
  workers?: number;
  /** the clock (tests) */
  now?: () => number;
}

function phaseOf(pod: KubeObject): string | undefined {
  return ((pod.status ?? {}) as { phase?: string }).phase;
}

export class JobController {
  readonly #ctx: ControllerContext;
  readonly #workers: number;
  readonly #now: () => number;
  readonly #queue = new WorkQueue<string>({ name: 'job', limiter: new ExponentialFailureRateLimiter<string>(DEFAULT_JOB_BACKOFF_MS, MAX_JOB_BACKOFF_MS) });
  readonly #expectations: ControllerExpectations;
  readonly #jobs: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #log: Logger;

  constructor(o: JobControllerOptions) {
    this.#ctx = o.ctx;
    this.#workers = o.workers ?? JOB_WORKERS;
    this.#now = o.now ?? Date.now;
    this.#expectations = new ControllerExpectations(this.#now);
    this.#log = o.ctx.logger;
    this.#jobs = o.ctx.informers.informerFor(RESOURCES.jobs);
    this.#pods = o.ctx.informers.informerFor(RESOURCES.pods);
    this.#jobs.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#pods.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#jobs.addEventHandler({
      add: (job) => this.#enqueue(job, true),
      update: (old, job) => this.#jobUpdated(old, job),
      delete: (job) => {
        this.#expectations.forget(objectKey(job));
        this.#enqueue(job, true);
      },
    });
    this.#pods.addEventHandler({
      add: (pod) => this.#podAdded(pod),
      update: (old, pod) => this.#podUpdated(old, pod),
      delete: (pod) => this.#podDeleted(pod),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    const loop = async () => {
      for (;;) {
        const key = await this.#queue.get();
        if (key === undefined) return;
        try {
          const forget = await this.#sync(key);
          if (forget) this.#queue.forget(key);
        } catch (err) {
          this.#log.error({ err, key }, 'error syncing job');
          this.#queue.addRateLimited(key);
        } finally {
          this.#queue.done(key);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.#workers) }, loop));
  }

  // ---- event handlers ------------------------------------------------------------------------

  /** enqueueController: at once, or after the Job's current backoff (a pod just failed) */
  #enqueue(job: KubeObject, immediate: boolean): void {
    const key = objectKey(job);
    this.#queue.addAfter(key, immediate ? 0 : jobBackoffMs(this.#queue.numRequeues(key)));
  }

  #jobUpdated(old: KubeObject, job: KubeObject): void {
    this.#enqueue(job, true);
    // a changed activeDeadlineSeconds: look again when the new deadline passes
    if (specOf(old).activeDeadlineSeconds !== specOf(job).activeDeadlineSeconds) {
      const left = untilActiveDeadline(job, this.#now());
      if (left !== undefined) this.#queue.addAfter(objectKey(job), left);
    }
  }

  #jobOf(pod: KubeObject): KubeObject | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'Job') return undefined;
    const job = this.#jobs.store.getObject(pod.metadata?.namespace, ref.name);
    return job && job.metadata?.uid === ref.uid ? job : undefined;
  }

  #jobsSelecting(pod: KubeObject): KubeObject[] {
    if (!pod.metadata?.labels) return [];
    return this.#jobs.store.byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? '').filter((j) => selectorOf(j).matches(pod.metadata?.labels));
  }

  #podAdded(pod: KubeObject): void {
    if (pod.metadata?.deletionTimestamp) {
      this.#podDeleted(pod);
      return;
    }
    if (controllerOf(pod)) {
      const job = this.#jobOf(pod);
      if (!job) return;
      this.#expectations.creationObserved(objectKey(job));
      this.#enqueue(job, true);
      return;
    }
    for (const job of this.#jobsSelecting(pod)) this.#enqueue(job, true);
  }

  #podUpdated(old: KubeObject, pod: KubeObject): void {
    if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
    // a failed pod waits for the Job's backoff; anything else is looked at at once
    const immediate = phaseOf(pod) !== 'Failed';
    if (pod.metadata?.deletionTimestamp) {
      this.#podDeleted(pod);
      return;
    }
    const labelsChanged = JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(pod.metadata?.labels ?? {});
    const oldRef = controllerOf(old);
    const newRef = controllerOf(pod);
    if (oldRef && oldRef.uid !== newRef?.uid) {
      const oldJob = this.#jobOf(old);
      if (oldJob) this.#enqueue(oldJob, immediate);
    }
    if (newRef) {
      const job = this.#jobOf(pod);
      if (job) this.#enqueue(job, immediate);
      return;
    }
    if (labelsChanged || oldRef) for (const job of this.#jobsSelecting(pod)) this.#enqueue(job, immediate);
  }

  #podDeleted(pod: KubeObject): void {
    const job = this.#jobOf(pod);
    if (!job) return;
    this.#expectations.deletionObserved(objectKey(job), pod.metadata?.uid);
    this.#enqueue(job, true);
  }

  // ---- sync ----------------------------------------------------------------------------------

  #withKind(job: KubeObject): KubeObject {
    return job.kind && job.apiVersion ? job : { ...job, kind: 'Job', apiVersion: 'batch/v1' };
  }

  /** syncJob: true when the key's failure count may be forgotten */
  async #sync(key: string): Promise<boolean> {
    const cached = this.#jobs.store.get(key);
    if (!cached) {
      this.#expectations.forget(key);
      return true;
    }
    const job = structuredClone(this.#withKind(cached));
    if (isJobFinished(job)) return true;
    const now = this.#now();
    const spec = specOf(job);
    const parallelism = spec.parallelism ?? 1;
    const backoffLimit = spec.backoffLimit ?? 6;
    const previousRetry = this.#queue.numRequeues(key);
    // check the expectations before counting pods, so a pod seen after the count is not missed
    const needsSync = this.#expectations.satisfied(key);

    const candidates = this.#pods.store.byIndex(NAMESPACE_INDEX, job.metadata?.namespace ?? '');
    const pods = await claimObjects(
      { client: this.#ctx.client, owner: job, selector: selectorOf(job), ref: RESOURCES.pods, canAdopt: recheckOwner(this.#ctx.client, RESOURCES.jobs, job) },
      candidates,
    );
    const activePods = pods.filter(isPodActive);
    let active = activePods.length;
    let succeeded = countPhase(pods, 'Succeeded');
    let failed = countPhase(pods, 'Failed');

    const old = statusOf(job);
    const status: JobStatus = { ...old, conditions: [...(old.conditions ?? [])] };
    const conditionsBefore = status.conditions!.length;
    if (!status.startTime) {
      status.startTime = apiTime(now);
      // look again once the active deadline has passed
      if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) this.#queue.addAfter(key, spec.activeDeadlineSeconds * 1000);
    }
    const withStart = { ...job, status };

    const newFailure = failed > (old.failed ?? 0);
    let failure: { reason: string; message: string } | undefined;
    if (exceedsBackoffLimit({ newFailure, active, parallelism, requeues: previousRetry, backoffLimit }) || pastBackoffLimitOnFailure(job, pods)) {
      failure = BACKOFF_LIMIT_EXCEEDED;
    } else if (pastActiveDeadline(withStart, now)) {
      failure = DEADLINE_EXCEEDED;
    }

    let manageError: unknown;
    if (failure) {
      // the Job has failed: its running pods go, and count as failed
      const results = await Promise.allSettled(activePods.map((p) => this.#deletePod(job, p)));
      manageError = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason;
      failed += active;
      active = 0;
      status.conditions!.push(newJobCondition('Failed', failure.reason, failure.message, now));
      this.#ctx.recorder.event(job, 'Warning', failure.reason, failure.message);
    } else {
      if (needsSync && !job.metadata?.deletionTimestamp) {
        try {
          active = await this.#manageJob(key, job, activePods, succeeded);
        } catch (err) {
          manageError = err;
          active = (err as { active?: number }).active ?? active;
        }
      }
      let complete = false;
      if (spec.completions === undefined || spec.completions === null) {
        // without completions, the first success ends the Job once nothing else runs
        complete = succeeded > 0 && active === 0;
      } else if (succeeded >= spec.completions) {
        complete = true;
        if (active > 0) this.#ctx.recorder.event(job, 'Warning', 'TooManyActivePods', 'Too many active pods running after completion count reached');
        if (succeeded > spec.completions) this.#ctx.recorder.event(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      if (complete) {
        status.conditions!.push(newJobCondition('Complete', '', '', now));
        status.completionTime = apiTime(now);
        this.#ctx.recorder.event(job, 'Normal', 'Completed', 'Job completed');
      }
    }

    const forget = (old.succeeded ?? 0) < succeeded;
    if (
      (old.active ?? 0) !== active ||
      (old.succeeded ?? 0) !== succeeded ||
      (old.failed ?? 0) !== failed ||
      status.conditions!.length !== conditionsBefore ||
      old.startTime !== status.startTime
    ) {
      status.active = active;
      status.succeeded = succeeded;
      status.failed = failed;
      if (!status.conditions!.length) delete status.conditions;
      await this.#writeStatus(job, status);
    }
    if (newFailure && !failure && !status.conditions?.some((c) => c.type === 'Complete')) {
      throw new Error(`failed pod(s) detected for job key "${key}"`);
    }
    if (manageError) {
      throw manageError;
    }
    return forget;
  }

  /** manageJob: delete pods over parallelism, or create toward the wanted count; returns the new active count */
  async #manageJob(key: string, job: KubeObject, activePods: KubeObject[], succeeded: number): Promise<number> {
    const spec = specOf(job);
    const parallelism = spec.parallelism ?? 1;
    let active = activePods.length;
    if (active > parallelism) {
      const diff = active - parallelism;
      const victims = rankForDeletion(activePods).slice(0, diff);
      this.#expectations.expectDeletions(key, victims.map((p) => p.metadata?.uid ?? ''));
      active -= diff;
      const results = await Promise.allSettled(victims.map((p) => this.#deletePod(job, p)));
      let error: unknown;
      results.forEach((r, i) => {
        if (r.status === 'rejected') {
          this.#expectations.deletionObserved(key, victims[i]!.metadata?.uid);
          active += 1;
          error ??= r.reason;
        }
      });
      if (error) throw Object.assign(error as object, { active });
      return active;
    }
    if (active < parallelism) {
      const diff = Math.max(0, wantedActive(spec, active, succeeded) - active);
      if (diff === 0) return active;
      this.#expectations.expectCreations(key, diff);
      const { successes, error } = await slowStartBatch(diff, 1, () => this.#createPod(job));
      const skipped = diff - successes;
      if (skipped > 0) this.#expectations.lowerCreations(key, skipped);
      active += successes;
      if (error) throw Object.assign(new Error(errorMessage(error)), { active });
    }
    return active;
  }

  async #createPod(job: KubeObject): Promise<void> {
    await createPodFor(this.#ctx, job, specOf(job).template);
  }

  async #deletePod(job: KubeObject, pod: KubeObject): Promise<void> {
    await deletePodOf(this.#ctx, job, pod);
  }

  /** updateJobStatus: on a conflict, put the status on the newest Job and try again */
  async #writeStatus(job: KubeObject, status: JobStatus): Promise<void> {
    let current = job;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#ctx.client.update(RESOURCES.jobs, { ...current, status }, 'status');
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 2) throw err;
        try {
          current = this.#withKind(await this.#ctx.client.get(RESOURCES.jobs, job.metadata?.namespace, job.metadata?.name ?? ''));
        } catch (getErr) {
          if (isNotFound(getErr)) return;
          throw getErr;
        }
      }
    }
  }
}
