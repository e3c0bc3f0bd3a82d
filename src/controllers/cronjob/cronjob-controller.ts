/**
 * kube 1.20's CronJob controller (the v1 controller; CronJobControllerV2 is off by default): every
 * ten seconds it takes every CronJob and the Jobs each controls (from the shared caches) and runs
 * one pass over each (cronjob-sync.ts). Its clock and period are options, for tests.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import type { ControllerContext } from '../types';
import { controllerOf } from '../util/controller-ref';
import { cleanupFinishedJobs, syncCronJob, type CronJobActions } from './cronjob-sync';

/** kube's v1 controller polls every 10 s */
export const CRONJOB_POLL_MS = 10_000;

export interface CronJobControllerOptions {
  ctx: ControllerContext;
  pollMs?: number;
  now?: () => number;
}

export class CronJobController {
  readonly #ctx: ControllerContext;
  readonly #pollMs: number;
  readonly #now: () => number;
  readonly #cronJobs: SharedInformer;
  readonly #jobs: SharedInformer;
  readonly #log: Logger;
  readonly #actions: CronJobActions;

  constructor(o: CronJobControllerOptions) {
    this.#ctx = o.ctx;
    this.#pollMs = o.pollMs ?? CRONJOB_POLL_MS;
    this.#now = o.now ?? Date.now;
    this.#log = o.ctx.logger;
    this.#cronJobs = o.ctx.informers.informerFor(RESOURCES.cronJobs);
    this.#jobs = o.ctx.informers.informerFor(RESOURCES.jobs);
    const client = o.ctx.client;
    this.#actions = {
      createJob: (namespace, job) => client.create(RESOURCES.jobs, namespace, job),
      getJob: (namespace, name) => client.get(RESOURCES.jobs, namespace, name),
      deleteJob: async (namespace, name) => {
        try {
          await client.delete(RESOURCES.jobs, namespace, name, { propagationPolicy: 'Background' });
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
      },
      updateStatus: (cj) => client.update(RESOURCES.cronJobs, cj, 'status'),
      event: (obj, type, reason, message) => o.ctx.recorder.event(obj, type, reason, message),
      logger: this.#log,
    };
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    while (!signal.aborted) {
      try {
        await this.syncAll();
      } catch (err) {
        this.#log.error({ err }, 'error syncing cronjobs');
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#pollMs);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** one pass over every CronJob (kube's syncAll) */
  async syncAll(): Promise<void> {
    const byParent = new Map<string, KubeObject[]>();
    for (const job of this.#jobs.store.list()) {
      const ref = controllerOf(job);
      if (ref?.kind !== 'CronJob') continue;
      const list = byParent.get(ref.uid) ?? [];
      list.push(job);
      byParent.set(ref.uid, list);
    }
    for (const cached of this.#cronJobs.store.list()) {
      if (this.#ctx.signal.aborted) return;
      const cj = structuredClone({ ...cached, apiVersion: cached.apiVersion ?? 'batch/v1beta1', kind: 'CronJob' });
      const jobs = byParent.get(cj.metadata?.uid ?? '') ?? [];
      try {
        const synced = await syncCronJob(cj, jobs, this.#now(), this.#actions);
        if (synced) await cleanupFinishedJobs(synced, jobs, this.#actions);
      } catch (err) {
        this.#log.error({ err, cronjob: `${cj.metadata?.namespace}/${cj.metadata?.name}` }, 'error syncing cronjob');
      }
    }
  }
}
