/**
 * The bearer token of a request, as kube's bearertoken and websocket-protocol authenticators find
 * it: `Authorization: Bearer <token>`, or for WebSocket clients (browsers cannot set headers) a
 * `Sec-WebSocket-Protocol` entry `base64url.bearer.authorization.k8s.io.<base64url token>`.
 * An empty token is a bad credential, as in kube.
 */
import crypto from 'node:crypto';
import type { TokenAuthentication, TokenAuthenticator } from '../../api/reviews/authenticator';
import type { AuthenticationRequest, AuthenticationResult, RequestAuthenticator } from '../authenticator';
import { AuthenticationError } from '../authenticator';
import { deepFreeze } from '../../util/freeze';

const WS_PREFIX = 'base64url.bearer.authorization.k8s.io.';

export function bearerToken(req: AuthenticationRequest): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && auth !== '') {
    const m = /^\s*bearer\s+(.*)$/i.exec(auth);
    if (!m) return undefined;
    const token = m[1].trim();
    if (token === '') throw new AuthenticationError('invalid bearer token');
    return token;
  }
  const protocols = req.headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    for (const p of protocols.split(',').map((s) => s.trim())) {
      if (!p.startsWith(WS_PREFIX)) continue;
      const token = Buffer.from(p.slice(WS_PREFIX.length), 'base64url').toString('utf8');
      if (token === '') throw new AuthenticationError('invalid bearer token');
      return token;
    }
  }
  return undefined;
}

/** kube-apiserver's TokenSuccessCacheTTL: how long a recognized token's user is remembered */
export const TOKEN_SUCCESS_CACHE_TTL_MS = 10_000;
/** entries kept at most (kube's cache holds 4,096 per stripe); expired ones go first */
const TOKEN_CACHE_MAX = 16_384;

interface CachedToken {
  expires: number;
  result: TokenAuthentication;
}

/**
 * kube's token authenticator union behind the bearer-token authenticator: the token authenticators
 * in order, the first that recognizes the token wins. A token that none recognizes is a bad
 * credential (401), not an anonymous request, as in kube.
 *
 * As kube-apiserver's cached token authenticator, a recognized token's answer is remembered for
 * 10 s (a service account token's signature check is an RSA or ECDSA verification, the largest
 * single cost of a request made with one); failures are never remembered (TokenFailureCacheTTL 0).
 * So a deleted service account's token keeps working for up to 10 s, as in kube. Entries are keyed
 * by an HMAC of the token and audiences under a per-process key, so the tokens themselves are not
 * kept in memory.
 */
export class BearerTokenAuthenticator implements RequestAuthenticator, TokenAuthenticator {
  readonly #tokens: readonly TokenAuthenticator[];
  readonly #apiAudiences: string[];
  readonly #successTtlMs: number;
  readonly #cache = new Map<string, CachedToken>();
  readonly #cacheKey = crypto.randomBytes(32);

  constructor(tokens: readonly TokenAuthenticator[], opts: { apiAudiences?: string[]; successCacheTtlMs?: number } = {}) {
    this.#tokens = tokens;
    this.#apiAudiences = opts.apiAudiences ?? [];
    this.#successTtlMs = opts.successCacheTtlMs ?? TOKEN_SUCCESS_CACHE_TTL_MS;
  }

  /** the union: undefined when no authenticator recognizes the token; errors only when none does */
  async authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    if (this.#successTtlMs <= 0) return this.#union(token, audiences);
    const key = crypto.createHmac('sha256', this.#cacheKey).update(token).update('\0').update(audiences.join('\0')).digest('base64');
    const now = Date.now();
    const hit = this.#cache.get(key);
    if (hit && hit.expires > now) return hit.result;
    if (hit) this.#cache.delete(key);
    const result = await this.#union(token, audiences);
    // a remembered answer is handed to every later request: nobody may change it
    if (result) this.#remember(key, deepFreeze(result), now);
    return result;
  }

  #remember(key: string, result: TokenAuthentication, now: number): void {
    if (this.#cache.size >= TOKEN_CACHE_MAX) {
      for (const [k, e] of this.#cache) if (e.expires <= now) this.#cache.delete(k);
      // still full: the oldest entries (a Map iterates in insertion order) make room
      for (const k of this.#cache.keys()) {
        if (this.#cache.size < TOKEN_CACHE_MAX) break;
        this.#cache.delete(k);
      }
    }
    this.#cache.set(key, { expires: now + this.#successTtlMs, result });
  }

  async #union(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    const errors: string[] = [];
    for (const a of this.#tokens) {
      try {
        const r = await a.authenticateToken(token, audiences);
        if (r) return r;
      } catch (err) {
        errors.push(err instanceof Error ? err.message : String(err));
      }
    }
    if (errors.length > 0) throw new AuthenticationError(errors.join(', '));
    return undefined;
  }

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | undefined> {
    const token = bearerToken(req);
    if (token === undefined) return undefined;
    const result = await this.authenticateToken(token, this.#apiAudiences);
    if (!result) throw new AuthenticationError('invalid bearer token');
    return result;
  }
}
