/**
 * Service account tokens for projected volumes (kubelet's token.Manager): tokens are cached per
 * (namespace, service account, audiences, expiration, bound pod) and requested again through the
 * TokenRequest API once 80% of their lifetime has passed, or 24 hours after issue, whichever is
 * first (with up to 10 s of jitter, so refreshes of many pods spread out).
 */
import type { IssuedToken, ObjectSources, TokenRequestSpec } from '../env/sources';

const MAX_TTL_MS = 24 * 3600_000;
const MAX_JITTER_MS = 10_000;

interface Cached {
  issued: IssuedToken;
  expirationSeconds: number;
}

export interface TokenManagerOptions {
  sources: Pick<ObjectSources, 'createToken'>;
  /** epoch milliseconds; tests pass a fake clock */
  now?: () => number;
  /** in [0, 1); tests pass () => 0 */
  random?: () => number;
}

export class ServiceAccountTokenManager {
  readonly #sources: Pick<ObjectSources, 'createToken'>;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #cache = new Map<string, Cached>();

  constructor(opts: TokenManagerOptions) {
    this.#sources = opts.sources;
    this.#now = opts.now ?? Date.now;
    this.#random = opts.random ?? Math.random;
  }

  /** the token, from the cache while it is fresh, else from the API server */
  async getToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec): Promise<string> {
    const key = JSON.stringify([namespace, serviceAccount, spec.audiences, spec.expirationSeconds, spec.boundObjectRef]);
    const cached = this.#cache.get(key);
    if (cached && !this.#requiresRefresh(cached)) return cached.issued.token;
    try {
      const issued = await this.#sources.createToken(namespace, serviceAccount, spec);
      this.#cache.set(key, { issued, expirationSeconds: spec.expirationSeconds });
      return issued.token;
    } catch (err) {
      // a token not yet expired still serves while the API server cannot issue a new one
      if (cached && cached.issued.expirationTimestamp > this.#now()) return cached.issued.token;
      throw err;
    }
  }

  #requiresRefresh(c: Cached): boolean {
    const now = this.#now();
    const exp = c.issued.expirationTimestamp;
    const issuedAt = exp - c.expirationSeconds * 1000;
    const jitter = Math.floor(this.#random() * MAX_JITTER_MS / 1000) * 1000;
    if (now > issuedAt + MAX_TTL_MS - jitter) return true;
    return now > exp - Math.floor(c.expirationSeconds * 20 / 100) * 1000 - jitter;
  }

  /** forgets the tokens bound to a pod (kubelet's DeleteServiceAccountToken) */
  deletePodTokens(podUid: string): void {
    for (const key of this.#cache.keys()) {
      const bound = (JSON.parse(key) as unknown[])[4] as { uid?: string } | undefined;
      if (bound?.uid === podUid) this.#cache.delete(key);
    }
  }
}
