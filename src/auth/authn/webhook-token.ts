/**
 * kube's webhook token authenticator (--authentication-token-webhook-*): a bearer token is POSTed
 * as a TokenReview (authentication.k8s.io v1 or v1beta1) to the server its kubeconfig-format file
 * names, and the review's status says who it is. Answers (authenticated or not) are cached by
 * token and audiences for --authentication-token-webhook-cache-ttl; a webhook that cannot be
 * reached, or answers with an error, is an authentication failure that is not cached (kube's
 * cached token authenticator leaves errors out for webhooks).
 */
import crypto from 'node:crypto';
import type { TokenAuthentication, TokenAuthenticator } from '../../api/reviews/authenticator';
import type { UserInfo } from '../../api/reviews/authorizer';
import type { WebhookTarget } from '../authz/webhook';
import { loadWebhookKubeconfig } from '../authz/webhook';
import { AuthenticationError } from '../authenticator';
import { postJson } from './https-json';

export interface WebhookTokenAuthenticatorOptions {
  target: WebhookTarget;
  version: 'v1' | 'v1beta1';
  /** 0 = no cache */
  cacheTtlMs: number;
  /** the API's audiences, taken as the webhook's when its answer names none (kube's implicit audiences) */
  implicitAudiences?: readonly string[];
  /** extra attempts after a failed call, with a doubling wait (kube retries with backoff) */
  retries?: number;
  retryDelayMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

/** the webhook's kubeconfig; errors name --authentication-token-webhook-config-file */
export function loadTokenWebhookKubeconfig(file: string): WebhookTarget {
  try {
    return loadWebhookKubeconfig(file);
  } catch (err) {
    throw new Error((err as Error).message.replace('--authorization-webhook-config-file', '--authentication-token-webhook-config-file'));
  }
}

interface CacheEntry {
  expires: number;
  result?: TokenAuthentication;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  readonly #o: WebhookTokenAuthenticatorOptions;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #now: () => number;

  constructor(opts: WebhookTokenAuthenticatorOptions) {
    this.#o = opts;
    this.#now = opts.now ?? Date.now;
  }

  async authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    const key = crypto.createHash('sha256').update(token).update('\0').update(audiences.join('\0')).digest('base64');
    const now = this.#now();
    const hit = this.#cache.get(key);
    if (hit && hit.expires > now) return hit.result && structuredClone(hit.result);
    this.#cache.delete(key);
    const status = obj((await this.#review(token, audiences)).status);
    if (status.authenticated !== true) {
      // kube: a reason in status.error makes this an error (not cached); none is a plain "no"
      if (typeof status.error === 'string' && status.error !== '') throw new AuthenticationError(status.error);
      this.#remember(key, undefined);
      return undefined;
    }
    const u = obj(status.user);
    const user: UserInfo = { name: typeof u.username === 'string' ? u.username : '', groups: strings(u.groups) };
    if (typeof u.uid === 'string' && u.uid !== '') user.uid = u.uid;
    const extra = Object.entries(obj(u.extra)).filter(([, v]) => Array.isArray(v));
    if (extra.length > 0) user.extra = Object.fromEntries(extra.map(([k, v]) => [k, strings(v)]));
    let granted: string[] = [];
    if (audiences.length > 0) {
      // kube: the asked audiences the webhook vouches for (its answer's, else the API's); none in common is no
      const got = strings(status.audiences).length > 0 ? strings(status.audiences) : [...(this.#o.implicitAudiences ?? [])];
      granted = audiences.filter((a) => got.includes(a));
      if (granted.length === 0) {
        this.#remember(key, undefined);
        return undefined;
      }
    }
    const result = { user, audiences: granted };
    this.#remember(key, result);
    return structuredClone(result);
  }

  #remember(key: string, result: TokenAuthentication | undefined): void {
    if (this.#o.cacheTtlMs <= 0) return;
    const now = this.#now();
    if (this.#cache.size > 10_000) {
      for (const [k, e] of this.#cache) if (e.expires <= now) this.#cache.delete(k);
    }
    this.#cache.set(key, { expires: now + this.#o.cacheTtlMs, result: result && structuredClone(result) });
  }

  async #review(token: string, audiences: string[]): Promise<Obj> {
    const t = this.#o.target;
    const review = {
      apiVersion: `authentication.k8s.io/${this.#o.version}`,
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token, ...(audiences.length > 0 ? { audiences } : {}) },
      status: { user: {} },
    };
    const retries = this.#o.retries ?? 2;
    let delay = this.#o.retryDelayMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      try {
        return await postJson(t.url, review, { ca: t.ca, cert: t.cert, key: t.key, token: t.token, insecureSkipTLSVerify: t.insecureSkipTLSVerify, timeoutMs: this.#o.timeoutMs ?? 30_000 });
      } catch (err) {
        // a webhook that does not answer in time is not asked again: the request would outlive its timeout
        if (attempt >= retries || /timeout/.test((err as Error).message)) throw new AuthenticationError(`webhook token authenticator: ${(err as Error).message}`, { cause: err });
        await new Promise((r) => setTimeout(r, delay));
        delay *= 2;
      }
    }
  }
}
