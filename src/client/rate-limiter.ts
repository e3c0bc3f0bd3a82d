/**
 * A token bucket: `burst` requests at once, then `qps` per second (client-go's `--kube-api-qps`
 * and `--kube-api-burst`). Each caller reserves a token, possibly one not yet earned, and waits
 * until it is: callers are served in arrival order. A negative qps means no limit.
 */
export class TokenBucket {
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;
  readonly #now: () => number;

  constructor(qps: number, burst: number, now: () => number = () => performance.now()) {
    this.#qps = qps;
    this.#burst = Math.max(1, burst);
    this.#tokens = this.#burst;
    this.#now = now;
    this.#last = now();
  }

  get unlimited(): boolean {
    return this.#qps < 0;
  }

  /** take a token if one is there right now */
  tryAccept(): boolean {
    if (this.unlimited) return true;
    this.#refill();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return true;
    }
    return false;
  }

  /** milliseconds until a token would be available for the next caller (0 when one is) */
  reserve(): number {
    if (this.unlimited) return 0;
    this.#refill();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return 0;
    // owed tokens are paid back at qps
    return this.#qps === 0 ? Infinity : (-this.#tokens / this.#qps) * 1000;
  }

  /** resolve when the caller may send its request */
  async wait(signal?: AbortSignal): Promise<void> {
    const delay = this.reserve();
    if (delay === 0) return;
    if (!Number.isFinite(delay)) throw new Error('rate limiter with qps 0 never admits a request');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, delay);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          this.#tokens += 1; // give the reservation back
          reject(signal.reason ?? new Error('aborted'));
        },
        { once: true },
      );
    });
  }

  #refill(): void {
    const now = this.#now();
    const elapsed = (now - this.#last) / 1000;
    this.#last = now;
    this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#qps);
  }
}
