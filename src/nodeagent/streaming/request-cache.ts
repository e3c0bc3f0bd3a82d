/**
 * One-time tokens for streaming requests (kubelet's streaming requestCache): GetExec and friends
 * store the request and answer a URL holding its token; the client's upgrade takes the request out
 * again. A token lives for the TTL (kubelet: 1 minute) and serves once; at most `max` wait at once
 * (kubelet: 1000; past it the oldest expired one makes room, else the call fails).
 */
import crypto from 'node:crypto';

export class RequestCache<T> {
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { request: T; expires: number }>();

  constructor(options: { ttlMs?: number; max?: number; now?: () => number } = {}) {
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#max = options.max ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** a fresh token for the request; throws when the cache is full of unexpired requests */
  insert(request: T): string {
    this.#sweep();
    if (this.#entries.size >= this.#max) throw new Error('maximum number of in-flight requests exceeded');
    // 8 random bytes, URL-safe base64 without padding: 11 characters, as kubelet's tokens
    const token = crypto.randomBytes(8).toString('base64url');
    this.#entries.set(token, { request, expires: this.#now() + this.#ttlMs });
    return token;
  }

  /** the request for the token, removed from the cache; undefined when unknown or expired */
  consume(token: string): T | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    this.#entries.delete(token);
    return entry.expires > this.#now() ? entry.request : undefined;
  }

  get size(): number {
    return this.#entries.size;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [token, entry] of this.#entries) if (entry.expires <= now) this.#entries.delete(token);
  }
}
