/**
 * The work queue controllers feed from their informers (client-go's workqueue): a key is queued at
 * most once; a key being processed is never handed to a second worker, and if it is added again
 * meanwhile it is queued once more when the first worker is done. Retries go through a rate
 * limiter: per key exponential backoff (5 ms doubling to 1000 s) and an overall token bucket
 * (10 per second, bursts of 100), the larger delay winning, as kube's default controller limiter.
 */
import { TokenBucket } from './rate-limiter';
import { queueMetrics, type QueueMetrics } from './workqueue-metrics';

export interface RetryRateLimiter<K> {
  /** how long to wait before this key may be retried */
  when(key: K): number;
  /** the key succeeded: its backoff starts over */
  forget(key: K): void;
  numRequeues(key: K): number;
}

/** per key: base * 2^failures, capped */
export class ExponentialFailureRateLimiter<K> implements RetryRateLimiter<K> {
  readonly #failures = new Map<K, number>();
  constructor(
    readonly baseMs = 5,
    readonly maxMs = 1000_000,
  ) {}

  when(key: K): number {
    const n = this.#failures.get(key) ?? 0;
    this.#failures.set(key, n + 1);
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(key: K): void {
    this.#failures.delete(key);
  }

  numRequeues(key: K): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** a token bucket shared by all keys */
export class BucketRateLimiter<K> implements RetryRateLimiter<K> {
  readonly #bucket: TokenBucket;
  constructor(qps = 10, burst = 100) {
    this.#bucket = new TokenBucket(qps, burst);
  }
  when(): number {
    return this.#bucket.reserve();
  }
  forget(): void {}
  numRequeues(): number {
    return 0;
  }
}

/** the longest delay of several limiters */
export class MaxOfRateLimiter<K> implements RetryRateLimiter<K> {
  constructor(readonly limiters: RetryRateLimiter<K>[]) {}
  when(key: K): number {
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }
  forget(key: K): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: K): number {
    return Math.max(...this.limiters.map((l) => l.numRequeues(key)));
  }
}

export function defaultControllerRateLimiter<K>(): RetryRateLimiter<K> {
  return new MaxOfRateLimiter<K>([new ExponentialFailureRateLimiter<K>(5, 1000_000), new BucketRateLimiter<K>(10, 100)]);
}

export interface WorkQueueOptions<K> {
  /** the queue's name in the workqueue_* metrics (client-go's); unnamed queues are not measured */
  name?: string;
  limiter?: RetryRateLimiter<K>;
}

export class WorkQueue<K = string> {
  readonly name: string;
  readonly #queue: K[] = [];
  /** keys that need processing (queued, or added again while processing) */
  readonly #dirty = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #waiters: ((key: K | undefined) => void)[] = [];
  readonly #timers = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  readonly #limiter: RetryRateLimiter<K>;
  #shuttingDown = false;
  /** when each queued key was added, and when each key in a worker's hands was handed out (performance.now()) */
  readonly #addedAt = new Map<K, number>();
  readonly #startedAt = new Map<K, number>();
  readonly #metrics: QueueMetrics;
  readonly #releaseMetrics: () => void;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.name = options.name ?? '';
    this.#limiter = options.limiter ?? defaultControllerRateLimiter<K>();
    const startedAt = this.#startedAt;
    const { metrics, release } = queueMetrics({
      name: this.name,
      processingSeconds: (now) => [...startedAt.values()].map((t) => (now - t) / 1000),
    });
    this.#metrics = metrics;
    this.#releaseMetrics = release;
  }

  get length(): number {
    return this.#queue.length;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(key: K): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics.add();
    if (!this.#addedAt.has(key)) this.#addedAt.set(key, performance.now());
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    this.#enqueue(key);
  }

  /** a dirty key not being processed: straight to a waiting worker, else to the back of the queue */
  #enqueue(key: K): void {
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#dirty.delete(key);
      this.#handOut(key);
      waiter(key);
    } else {
      this.#queue.push(key);
      this.#metrics.depth(this.#queue.length);
    }
  }

  /** the key goes to a worker */
  #handOut(key: K): void {
    const now = performance.now();
    this.#processing.add(key);
    this.#metrics.waited((now - (this.#addedAt.get(key) ?? now)) / 1000);
    this.#addedAt.delete(key);
    this.#startedAt.set(key, now);
  }

  /** add after a delay; an earlier pending delay for the same key wins */
  addAfter(key: K, ms: number): void {
    if (this.#shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = Date.now() + ms;
    const pending = this.#timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, ms);
    this.#timers.set(key, { at, timer });
  }

  /** add after the rate limiter's delay for this key (a failed attempt) */
  addRateLimited(key: K): void {
    this.#metrics.retry();
    this.addAfter(key, this.#limiter.when(key));
  }

  /** the key was processed successfully: reset its backoff */
  forget(key: K): void {
    this.#limiter.forget(key);
  }

  numRequeues(key: K): number {
    return this.#limiter.numRequeues(key);
  }

  /** the next key to process; undefined once the queue is shut down */
  get(): Promise<K | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#handOut(key);
      this.#metrics.depth(this.#queue.length);
      return Promise.resolve(key);
    }
    if (this.#shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** the worker is finished with the key; if it was added meanwhile, it is queued again */
  done(key: K): void {
    const started = this.#startedAt.get(key);
    if (started !== undefined) this.#metrics.worked((performance.now() - started) / 1000);
    this.#startedAt.delete(key);
    this.#processing.delete(key);
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#enqueue(key);
  }

  /** stop handing out keys; waiting workers get undefined */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const w of this.#waiters.splice(0)) w(undefined);
    this.#releaseMetrics();
  }
}

/**
 * Run `workers` loops that take keys and call `sync`; a sync that throws is retried with backoff
 * (up to `maxRetries` times when given), one that returns is forgotten. Resolves when the queue
 * shuts down and every worker has finished its key.
 */
export async function runWorkers<K>(
  queue: WorkQueue<K>,
  workers: number,
  sync: (key: K) => Promise<void>,
  onError?: (key: K, err: unknown, willRetry: boolean) => void,
  maxRetries = Infinity,
): Promise<void> {
  const loop = async () => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        await sync(key);
        queue.forget(key);
      } catch (err) {
        const retry = queue.numRequeues(key) < maxRetries;
        onError?.(key, err, retry);
        if (retry) queue.addRateLimited(key);
        else queue.forget(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, loop));
}
