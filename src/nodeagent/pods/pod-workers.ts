/**
 * The pod workers (kubelet's podWorkers): one sync at a time per pod. Work that arrives while a
 * pod's sync runs waits, and only the latest waits (a newer update replaces an older one, a kill
 * replaces a sync); after each sync the pod is requeued: after the sync period when it went well,
 * after the back-off period when it failed.
 */
import type { Logger } from 'pino';

export type PodWork = { kind: 'sync' } | { kind: 'kill'; gracePeriodSeconds?: number };

export interface PodWorkersOptions {
  logger: Logger;
  /** do one piece of work; resolves with how long until the pod should be synced again (undefined: not again) */
  run(uid: string, work: PodWork): Promise<number | undefined>;
  /** called when a requeue falls due */
  requeue(uid: string): void;
}

interface Worker {
  busy: Promise<void>;
  pending: PodWork | undefined;
}

export class PodWorkers {
  readonly #opts: PodWorkersOptions;
  readonly #workers = new Map<string, Worker>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #stopped = false;

  constructor(opts: PodWorkersOptions) {
    this.#opts = opts;
  }

  /** queue work for a pod; it runs at once unless the pod's worker is busy */
  dispatch(uid: string, work: PodWork): void {
    if (this.#stopped) return;
    const worker = this.#workers.get(uid);
    if (worker) {
      // a kill is never overtaken by a sync queued after it
      if (worker.pending?.kind !== 'kill' || work.kind === 'kill') worker.pending = work;
      return;
    }
    this.#start(uid, work);
  }

  /** whether a pod's worker is running or has work waiting */
  isBusy(uid: string): boolean {
    return this.#workers.has(uid);
  }

  /** drop a pod's requeue timer (it is gone) */
  forget(uid: string): void {
    clearTimeout(this.#timers.get(uid));
    this.#timers.delete(uid);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers.values()) clearTimeout(t);
    this.#timers.clear();
    while (this.#workers.size > 0) await Promise.all([...this.#workers.values()].map((w) => w.busy));
  }

  #start(uid: string, work: PodWork): void {
    const worker: Worker = { busy: Promise.resolve(), pending: undefined };
    this.#workers.set(uid, worker);
    worker.busy = (async () => {
      let next: PodWork | undefined = work;
      while (next) {
        let requeueMs: number | undefined;
        try {
          requeueMs = await this.#opts.run(uid, next);
        } catch (err) {
          this.#opts.logger.warn({ uid, err: (err as Error).message }, 'pod sync failed');
        }
        this.#schedule(uid, requeueMs);
        next = worker.pending;
        worker.pending = undefined;
      }
      this.#workers.delete(uid);
    })();
  }

  #schedule(uid: string, delayMs: number | undefined): void {
    clearTimeout(this.#timers.get(uid));
    this.#timers.delete(uid);
    if (delayMs === undefined || this.#stopped) return;
    const timer = setTimeout(() => {
      this.#timers.delete(uid);
      this.#opts.requeue(uid);
    }, delayMs);
    timer.unref?.();
    this.#timers.set(uid, timer);
  }
}
