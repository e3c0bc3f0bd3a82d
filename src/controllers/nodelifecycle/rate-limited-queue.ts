/**
 * kube's RateLimitedTimedQueue (nodelifecycle/scheduler): node names waiting for an action (here,
 * the NoExecute taint), each at most once, taken in order through a token bucket (burst 1) whose
 * rate can be swapped as the zone's state changes; a rate of 0 stops the queue.
 */
import { TokenBucket } from '../../client/rate-limiter';

interface Item {
  value: string;
  uid: string;
  /** not before this time (ms) */
  processAt: number;
}

export class RateLimitedTimedQueue {
  #items: Item[] = [];
  /** values taken off the queue but not removed: kube's UniqueQueue keeps them so they are not queued again */
  readonly #taken = new Set<string>();
  #limiter: TokenBucket | undefined;
  #qps: number;

  constructor(qps: number) {
    this.#qps = qps;
    this.#limiter = qps > 0 ? new TokenBucket(qps, 1) : undefined;
  }

  get qps(): number {
    return this.#qps;
  }

  get length(): number {
    return this.#items.length;
  }

  /** false when the value is queued already */
  add(value: string, uid: string): boolean {
    if (this.#taken.has(value) || this.#items.some((i) => i.value === value)) return false;
    this.#items.push({ value, uid, processAt: Date.now() });
    return true;
  }

  /** forget the value, queued or taken; true when it was known */
  remove(value: string): boolean {
    const before = this.#items.length;
    this.#items = this.#items.filter((i) => i.value !== value);
    return this.#taken.delete(value) || this.#items.length !== before;
  }

  clear(): void {
    this.#items = [];
    this.#taken.clear();
  }

  swapLimiter(qps: number): void {
    if (qps === this.#qps) return;
    this.#qps = qps;
    this.#limiter = qps > 0 ? new TokenBucket(qps, 1) : undefined;
  }

  /**
   * Offer due items to `fn` while the limiter admits them: `fn` answers done (drop the item) or a
   * delay before it is offered again.
   */
  async try(fn: (value: string, uid: string) => Promise<{ done: boolean; retryAfterMs?: number }>): Promise<void> {
    const now = Date.now();
    for (const item of [...this.#items].sort((a, b) => a.processAt - b.processAt)) {
      if (item.processAt > now) continue;
      if (!this.#limiter?.tryAccept()) return;
      const { done, retryAfterMs } = await fn(item.value, item.uid);
      if (done && this.#items.includes(item)) {
        this.#items = this.#items.filter((i) => i !== item);
        this.#taken.add(item.value);
      }
      else item.processAt = Date.now() + (retryAfterMs ?? 0);
    }
  }
}
