/**
 * kube's TTL-after-finished controller (pkg/controller/ttlafterfinished, kube 1.20): a Job that
 * has finished (Complete or Failed) and sets spec.ttlSecondsAfterFinished is deleted, with its
 * pods (foreground cascade, as kube's), once that many seconds have passed since the finishing
 * condition's lastTransitionTime. The cached Job decides when to look; the Job read fresh from the
 * API decides whether to delete, and the delete is conditional on its uid.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, splitKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { finishedCondition } from '../util/jobs';

export interface TtlAfterFinishedControllerOptions {
  ctx: ControllerContext;
  now?: () => number;
}

function ttlOf(job: KubeObject): number | undefined {
  const ttl = ((job.spec ?? {}) as { ttlSecondsAfterFinished?: number | null }).ttlSecondsAfterFinished;
  return ttl === null ? undefined : ttl;
}

/** needsCleanup: a TTL is set and the Job has finished */
export function needsCleanup(job: KubeObject): boolean {
  return ttlOf(job) !== undefined && finishedCondition(job) !== undefined;
}

/**
 * timeLeft: milliseconds until the Job expires (zero or less: expired). Throws when the finishing
 * condition has no lastTransitionTime (kube's "unable to find the time when the Job finished").
 */
export function timeLeft(job: KubeObject, now: number): number {
  const c = finishedCondition(job);
  if (!c) throw new Error(`unable to find the status of the finished Job ${job.metadata?.namespace}/${job.metadata?.name}`);
  const finishAt = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  if (Number.isNaN(finishAt)) throw new Error(`unable to find the time when the Job ${job.metadata?.namespace}/${job.metadata?.name} finished`);
  return finishAt + (ttlOf(job) ?? 0) * 1000 - now;
}

export class TtlAfterFinishedController {
  readonly #ctx: ControllerContext;
  readonly #now: () => number;
  readonly #queue = new WorkQueue<string>({ name: 'ttl_jobs_to_delete' });
  readonly #jobs: SharedInformer;
  readonly #log: Logger;

  constructor(o: TtlAfterFinishedControllerOptions) {
    this.#ctx = o.ctx;
    this.#now = o.now ?? Date.now;
    this.#log = o.ctx.logger;
    this.#jobs = o.ctx.informers.informerFor(RESOURCES.jobs);
    const enqueue = (job: KubeObject) => {
      if (!job.metadata?.deletionTimestamp && needsCleanup(job)) this.#queue.add(objectKey(job));
    };
    this.#jobs.addEventHandler({ add: enqueue, update: (_old, job) => enqueue(job) });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, this.#ctx.settings.concurrentTtlAfterFinishedSyncs, (key) => this.#processJob(key), (key, err) => {
      this.#log.error({ err, key }, 'error cleaning up job');
    });
  }

  /** processTTL: true when the Job's TTL has passed; otherwise look again when it will have */
  #expired(job: KubeObject): boolean {
    if (job.metadata?.deletionTimestamp || !needsCleanup(job)) return false;
    const now = this.#now();
    const c = finishedCondition(job);
    if (c?.lastTransitionTime && Date.parse(c.lastTransitionTime) > now) {
      this.#log.warn({ job: objectKey(job) }, 'found a Job finished in the future, likely clock skew; its cleanup is deferred');
    }
    const left = timeLeft(job, now);
    if (left <= 0) return true;
    this.#queue.addAfter(objectKey(job), left);
    return false;
  }

  async #processJob(key: string): Promise<void> {
    const cached = this.#jobs.store.get(key);
    if (!cached || !this.#expired(cached)) return;
    // the cache may be stale (the TTL changed, the Job was re-created): decide on the Job as it is now
    const { namespace, name } = splitKey(key);
    let fresh: KubeObject;
    try {
      fresh = await this.#ctx.client.get(RESOURCES.jobs, namespace, name);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (!this.#expired(fresh)) return;
    this.#log.info({ job: key }, 'cleaning up job whose TTL after finishing has passed');
    try {
      await this.#ctx.client.delete(RESOURCES.jobs, namespace, name, { propagationPolicy: 'Foreground', preconditions: { uid: fresh.metadata?.uid } });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
