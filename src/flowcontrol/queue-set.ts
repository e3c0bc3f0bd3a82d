/**
 * One priority level's seats and queues: kube 1.20's fair queuing for server requests
 * (apiserver/pkg/util/flowcontrol/fairqueuing/queueset). A request takes a seat at once when one is
 * free and nobody waits; otherwise it joins the shortest queue of its flow's shuffle-sharded hand.
 * Seats go to the queue whose head would finish first in virtual time: every queue starts its next
 * request at its own virtual start, each dispatch advances it by the estimated service time (G), and
 * a finished request gives back what it did not use. Virtual time runs at
 * min(executing, seats) / active queues per real second, as in kube.
 */
import { dealHand } from './shuffle-sharding';
import { boundedMemo } from '../util/memo';

export interface QueueSetConfig {
  /** seats: requests of this level executing at once */
  concurrencyLimit: number;
  /** 0: no queuing (limitResponse Reject) */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

/** why a request was not served */
export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export class RequestRejected extends Error {
  constructor(readonly reason: RejectReason) {
    super(`request rejected: ${reason}`);
    this.name = 'RequestRejected';
  }
}

interface Waiting {
  flowHash: bigint;
  queue: Queue;
  enqueuedAt: number;
  admit: (seat: Seat) => void;
  reject: (err: RequestRejected) => void;
}

interface Queue {
  waiting: Waiting[];
  executing: number;
  /** virtual time at which the queue's next request starts */
  virtualStart: number;
}

/** a held seat; release it exactly once when the request is done */
export interface Seat {
  release(): void;
}

/** kube's estimated service time of a request, in virtual seconds */
const ESTIMATED_SERVICE_SECONDS = 60;

export interface QueueSetOptions {
  config: QueueSetConfig;
  /** milliseconds; Date.now unless a test drives the clock */
  now?: () => number;
}

export class QueueSet {
  #config: QueueSetConfig;
  readonly #now: () => number;
  #queues: Queue[] = [];
  #executing = 0;
  #virtualTime = 0;
  #lastRealTime: number;
  #robin = 0;
  /** requests waiting in all queues */
  #waitingCount = 0;
  /** the hand of each flow seen lately (dealing is BigInt arithmetic; flows are few), for the current queues */
  #handOf = this.#hands();

  constructor(opts: QueueSetOptions) {
    this.#now = opts.now ?? Date.now;
    this.#lastRealTime = this.#now();
    this.#config = { ...opts.config };
    this.#queues = makeQueues(opts.config.queues, 0);
  }

  get executing(): number {
    return this.#executing;
  }

  get waiting(): number {
    return this.#waitingCount;
  }

  get config(): QueueSetConfig {
    return { ...this.#config };
  }

  /**
   * A changed priority level: new seats take effect at once; a new number of queues re-deals the
   * waiting requests over the new queues (in their order), as if they had arrived now.
   */
  setConfig(config: QueueSetConfig): void {
    this.#syncTime();
    const old = this.#config;
    this.#config = { ...config };
    if (config.queues !== old.queues || config.handSize !== old.handSize) {
      const waiting = this.#queues.flatMap((q) => q.waiting).sort((a, b) => a.enqueuedAt - b.enqueuedAt);
      this.#queues = makeQueues(config.queues, this.#virtualTime);
      this.#handOf = this.#hands();
      this.#waitingCount = 0;
      for (const w of waiting) {
        if (this.#queues.length === 0) {
          w.reject(new RequestRejected('concurrency-limit'));
          continue;
        }
        w.queue = this.#queues[this.#chooseQueue(w.flowHash)];
        w.queue.waiting.push(w);
        this.#waitingCount++;
      }
    }
    this.#dispatch();
  }

  /**
   * Wait for a seat. Rejects with RequestRejected when the level does not queue and no seat is
   * free, when the chosen queue is full, when `waitLimitMs` passes first, or when `signal` aborts.
   */
  acquire(flowHash: bigint, waitLimitMs: number, signal?: AbortSignal): Promise<Seat> {
    const now = this.tryAcquire(flowHash);
    if (now) return Promise.resolve(now);
    if (this.#queues.length === 0) return Promise.reject(new RequestRejected('concurrency-limit'));
    const queue = this.#queues[this.#chooseQueue(flowHash)];
    if (queue.waiting.length >= this.#config.queueLengthLimit) return Promise.reject(new RequestRejected('queue-full'));
    return new Promise<Seat>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => leave('cancelled');
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiting: Waiting = {
        flowHash,
        queue,
        enqueuedAt: this.#now(),
        admit: (seat) => {
          done();
          resolve(seat);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      };
      const leave = (reason: RejectReason): void => {
        const q = waiting.queue;
        const at = q.waiting.indexOf(waiting);
        if (at < 0) return;
        q.waiting.splice(at, 1);
        this.#waitingCount--;
        waiting.reject(new RequestRejected(reason));
      };
      // a queue that was idle starts at the present virtual time, not where it stopped
      if (queue.waiting.length === 0 && queue.executing === 0) queue.virtualStart = this.#virtualTime;
      queue.waiting.push(waiting);
      this.#waitingCount++;
      timer = setTimeout(() => leave('time-out'), waitLimitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#dispatch();
    });
  }

  /**
   * A seat at once, or undefined when the request would have to wait: a free seat and nobody
   * waiting (so the queue it joins would be the only one with a request, and dispatched at once:
   * the same accounting as enqueuing and dispatching, without a timer or an abort listener).
   */
  tryAcquire(flowHash: bigint): Seat | undefined {
    this.#syncTime();
    if (this.#executing >= this.#config.concurrencyLimit || this.#waitingCount > 0) return undefined;
    if (this.#queues.length === 0) return this.#start(undefined);
    const index = this.#chooseQueue(flowHash);
    const queue = this.#queues[index];
    if (queue.executing === 0) queue.virtualStart = this.#virtualTime;
    this.#robin = (index + 1) % this.#queues.length;
    return this.#start(queue);
  }

  /** the index of the queue of the flow's hand with the fewest waiting requests (kube 1.20; the first of equals, as dealt) */
  #chooseQueue(flowHash: bigint): number {
    const hand = this.#handOf(flowHash);
    let best = hand[0];
    for (let k = 1; k < hand.length; k++) {
      if (this.#queues[hand[k]].waiting.length < this.#queues[best].waiting.length) best = hand[k];
    }
    return best;
  }

  #start(queue: Queue | undefined): Seat {
    const startedAt = this.#now();
    this.#executing++;
    if (queue) {
      queue.executing++;
      queue.virtualStart += ESTIMATED_SERVICE_SECONDS;
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#syncTime();
        this.#executing--;
        if (queue) {
          queue.executing--;
          // give back the part of the estimate the request did not use
          const used = (this.#now() - startedAt) / 1000;
          queue.virtualStart -= ESTIMATED_SERVICE_SECONDS - used;
        }
        this.#dispatch();
      },
    };
  }

  #hands(): (flowHash: bigint) => number[] {
    return boundedMemo(4096, (flowHash: bigint) => dealHand(flowHash, this.#queues.length, Math.max(1, this.#config.handSize)));
  }

  /** hand free seats to the queues whose next request finishes first in virtual time */
  #dispatch(): void {
    while (this.#executing < this.#config.concurrencyLimit) {
      const queue = this.#nextQueue();
      if (!queue) return;
      const w = queue.waiting.shift()!;
      this.#waitingCount--;
      w.admit(this.#start(queue));
    }
  }

  #nextQueue(): Queue | undefined {
    const n = this.#queues.length;
    let best: Queue | undefined;
    let bestIndex = 0;
    for (let k = 0; k < n; k++) {
      const i = (this.#robin + k) % n;
      const q = this.#queues[i];
      if (q.waiting.length === 0) continue;
      if (!best || q.virtualStart + ESTIMATED_SERVICE_SECONDS < best.virtualStart + ESTIMATED_SERVICE_SECONDS) {
        best = q;
        bestIndex = i;
      }
    }
    if (best) this.#robin = (bestIndex + 1) % n;
    return best;
  }

  #syncTime(): void {
    const now = this.#now();
    let active = 0;
    for (const q of this.#queues) if (q.waiting.length > 0 || q.executing > 0) active++;
    if (active > 0) {
      const rate = Math.min(this.#executing, this.#config.concurrencyLimit) / active;
      this.#virtualTime += ((now - this.#lastRealTime) / 1000) * rate;
    }
    this.#lastRealTime = now;
  }
}

function makeQueues(count: number, virtualStart: number): Queue[] {
  return Array.from({ length: Math.max(0, count) }, () => ({ waiting: [], executing: 0, virtualStart }));
}
