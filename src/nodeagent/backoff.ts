/**
 * Per-key exponential back-off (client-go's flowcontrol.Backoff), as the node agent uses it for
 * crash loops and image pulls: 10 s, doubling to 5 minutes; an entry unused for twice the maximum
 * starts again from the initial delay.
 */

/** kubelet's crash-loop and image-pull back-off bounds */
export const INITIAL_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 300_000;

interface Entry {
  delayMs: number;
  lastUpdate: number;
}

export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(initialMs = INITIAL_BACKOFF_MS, maxMs = MAX_BACKOFF_MS, now: () => number = Date.now) {
    this.#initialMs = initialMs;
    this.#maxMs = maxMs;
    this.#now = now;
  }

  /** the key's current delay (0 when it has none) */
  get(key: string): number {
    return this.#entries.get(key)?.delayMs ?? 0;
  }

  /** one more failure: start at the initial delay, or double it up to the maximum */
  next(key: string): number {
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (!entry || this.#expired(entry, now)) {
      this.#entries.set(key, { delayMs: this.#initialMs, lastUpdate: now });
      return this.#initialMs;
    }
    entry.delayMs = Math.min(entry.delayMs * 2, this.#maxMs);
    entry.lastUpdate = now;
    return entry.delayMs;
  }

  /** whether `since` (epoch ms, e.g. when the container last finished) is still within the key's delay */
  isInBackOffSince(key: string, since: number): boolean {
    const entry = this.#entries.get(key);
    if (!entry) return false;
    const now = this.#now();
    if (this.#expired(entry, now)) return false;
    return now - since < entry.delayMs;
  }

  /** forget a key (its pod is gone, or it succeeded) */
  reset(key: string): void {
    this.#entries.delete(key);
  }

  /** drop entries unused for twice the maximum */
  gc(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (this.#expired(entry, now)) this.#entries.delete(key);
  }

  #expired(entry: Entry, now: number): boolean {
    return now - entry.lastUpdate > 2 * this.#maxMs;
  }
}
