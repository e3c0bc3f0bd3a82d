/**
 * kube's OpenID Connect token authenticator (--oidc-*): ID tokens (JWTs) of one issuer are checked
 * against the keys its discovery document names, and their claims name the user. Discovery runs in
 * the background and is retried until it works (the identity provider may start after us); until
 * then tokens of the issuer fail with "oidc: authenticator not initialized", as in kube. A token
 * naming a key we do not know makes us fetch the key set again, so the provider may rotate keys.
 * A JWT of another issuer is not recognized, so the service-account authenticator can try it.
 */
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors } from 'jose';
import type { JSONWebKeySet, JWTPayload } from 'jose';
import type { TokenAuthentication, TokenAuthenticator } from '../../api/reviews/authenticator';
import type { UserInfo } from '../../api/reviews/authorizer';
import { AuthenticationError } from '../authenticator';
import { getJson } from './https-json';

/** the asymmetric algorithms kube accepts in --oidc-signing-algs */
export const OIDC_SIGNING_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

/** the --oidc-* flags as given */
export interface OidcFlags {
  issuerUrl?: string;
  clientId?: string;
  caFile?: string;
  usernameClaim: string;
  /** undefined when the flag was not given */
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  requiredClaims: Readonly<Record<string, string>>;
  signingAlgs: readonly string[];
}

/** what the authenticator needs, with kube's defaults resolved */
export interface OidcSettings {
  issuerUrl: string;
  clientId: string;
  /** PEM bundle trusted for the issuer's HTTPS (else the system roots) */
  ca?: string;
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim?: string;
  groupsPrefix: string;
  requiredClaims: Readonly<Record<string, string>>;
  signingAlgs: readonly string[];
}

/**
 * kube's checks of the --oidc-* flags; the message of the thrown error is kube's, naming the flag.
 * Returns undefined when OIDC is not configured.
 */
export function validateOidcFlags(f: OidcFlags): Omit<OidcSettings, 'ca'> | undefined {
  const issuer = f.issuerUrl ?? '';
  const clientId = f.clientId ?? '';
  if ((issuer !== '') !== (clientId !== '')) throw new Error('oidc-issuer-url and oidc-client-id should be specified together');
  if (issuer === '') return undefined;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`invalid authentication config: parsing --oidc-issuer-url ${JSON.stringify(issuer)}: invalid URL`);
  }
  if (url.protocol !== 'https:') {
    throw new Error(`invalid authentication config: 'oidc-issuer-url' (${JSON.stringify(issuer)}) has invalid scheme (${JSON.stringify(url.protocol.replace(/:$/, ''))}), require 'https'`);
  }
  if (f.usernameClaim === '') throw new Error('invalid authentication config: --oidc-username-claim: no username claim provided');
  const algs = f.signingAlgs.filter((a) => a !== '');
  for (const alg of algs) {
    if (!OIDC_SIGNING_ALGS.includes(alg)) throw new Error(`invalid authentication config: --oidc-signing-algs: oidc: unsupported signing alg: ${JSON.stringify(alg)}`);
  }
  // kube: claims other than email get "<issuer>#" unless a prefix is given; "-" means none
  let usernamePrefix = f.usernamePrefix ?? '';
  if (usernamePrefix === '' && f.usernameClaim !== 'email') usernamePrefix = `${issuer}#`;
  if (usernamePrefix === '-') usernamePrefix = '';
  return {
    issuerUrl: issuer,
    clientId,
    usernameClaim: f.usernameClaim,
    usernamePrefix,
    groupsClaim: f.groupsClaim || undefined,
    groupsPrefix: f.groupsPrefix ?? '',
    requiredClaims: { ...f.requiredClaims },
    signingAlgs: algs.length > 0 ? algs : ['RS256'],
  };
}

export interface OidcAuthenticatorOptions {
  settings: OidcSettings;
  /** first and longest wait between discovery attempts (kube retries every 10s) */
  retryMs?: { first: number; max: number };
  /** told about failed discovery attempts */
  warn?: (message: string) => void;
  /** the clock, in ms (tests) */
  now?: () => number;
}

/** go-oidc lets nbf be this far in the future (clock skew) */
const ALLOWED_SKEW_MS = 5 * 60_000;

type KeyLookup = ReturnType<typeof createLocalJWKSet>;

export class OidcAuthenticator implements TokenAuthenticator {
  readonly #s: OidcSettings;
  readonly #retry: { first: number; max: number };
  readonly #warn: (message: string) => void;
  readonly #now: () => number;
  #jwksUri?: string;
  #keys?: KeyLookup;
  #inflight?: Promise<void>;
  #refreshing?: Promise<void>;
  #timer?: NodeJS.Timeout;
  #delay: number;
  #lastAttempt = 0;
  #closed = false;

  constructor(opts: OidcAuthenticatorOptions) {
    this.#s = opts.settings;
    this.#retry = opts.retryMs ?? { first: 1000, max: 10_000 };
    this.#delay = this.#retry.first;
    this.#warn = opts.warn ?? (() => {});
    this.#now = opts.now ?? Date.now;
  }

  /** begin discovery in the background, retried until it succeeds */
  start(): void {
    void this.#initialize();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async authenticateToken(token: string, audiences: string[] = []): Promise<TokenAuthentication | undefined> {
    let payload: JWTPayload;
    let alg: string | undefined;
    try {
      payload = decodeJwt(token);
      alg = decodeProtectedHeader(token).alg;
    } catch {
      return undefined; // not a JWT: someone else's token
    }
    if (payload.iss !== this.#s.issuerUrl) return undefined;
    // a token may hurry a pending retry along, but at most one attempt a second
    if (!this.#keys && (this.#inflight || this.#now() - this.#lastAttempt >= 1000)) await this.#initialize();
    if (!this.#keys) throw new AuthenticationError('oidc: authenticator not initialized');
    const fail = (why: string): never => {
      throw new AuthenticationError(`oidc: verify token: ${why}`);
    };
    this.#checkStandardClaims(payload, alg, fail);
    await this.#verifySignature(token, fail);
    // ID tokens are for the client id, not the API: valid for whatever audiences are asked (kube's audience-agnostic wrapper)
    return { user: this.#user(payload), audiences: [...audiences] };
  }

  /** go-oidc's checks, in its order and words */
  #checkStandardClaims(p: JWTPayload, alg: string | undefined, fail: (why: string) => never): void {
    const auds = p.aud === undefined ? [] : Array.isArray(p.aud) ? p.aud : [p.aud];
    if (!auds.includes(this.#s.clientId)) fail(`oidc: expected audience ${JSON.stringify(this.#s.clientId)} got ${goStrings(auds)}`);
    const now = this.#now();
    const exp = typeof p.exp === 'number' ? p.exp * 1000 : 0;
    if (exp < now) fail(`oidc: token is expired (Token Expiry: ${goTime(exp)})`);
    if (typeof p.nbf === 'number' && p.nbf * 1000 > now + ALLOWED_SKEW_MS) {
      fail(`oidc: current time ${goTime(now)} before the nbf (not before) time: ${goTime(p.nbf * 1000)}`);
    }
    if (!alg || !this.#s.signingAlgs.includes(alg)) {
      fail(`oidc: id token signed with unsupported algorithm, expected ${goStrings(this.#s.signingAlgs)} got ${JSON.stringify(alg ?? '')}`);
    }
  }

  /** the signature, against the known keys; a key id we do not know refreshes the key set once */
  async #verifySignature(token: string, fail: (why: string) => never): Promise<void> {
    const algorithms = [...this.#s.signingAlgs];
    try {
      await compactVerify(token, this.#keys!, { algorithms });
      return;
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey)) fail('failed to verify signature: failed to verify id token signature');
    }
    try {
      await this.#refreshKeys();
    } catch (err) {
      fail(`failed to verify signature: fetching keys ${(err as Error).message}`);
    }
    try {
      await compactVerify(token, this.#keys!, { algorithms });
    } catch {
      fail('failed to verify signature: failed to verify id token signature');
    }
  }

  /** kube's claim mapping: user name (with prefix), email_verified, groups, required claims */
  #user(p: JWTPayload): UserInfo {
    const s = this.#s;
    const name = p[s.usernameClaim];
    if (name === undefined) throw new AuthenticationError(`oidc: parse username claims ${JSON.stringify(s.usernameClaim)}: claim not present`);
    if (typeof name !== 'string') throw new AuthenticationError(`oidc: parse username claims ${JSON.stringify(s.usernameClaim)}: json: cannot unmarshal ${jsonType(name)} into Go value of type string`);
    if (s.usernameClaim === 'email' && 'email_verified' in p) {
      if (typeof p.email_verified !== 'boolean') throw new AuthenticationError(`oidc: parse 'email_verified' claim: json: cannot unmarshal ${jsonType(p.email_verified)} into Go value of type bool`);
      if (!p.email_verified) throw new AuthenticationError('oidc: email not verified');
    }
    const user: UserInfo = { name: s.usernamePrefix + name, groups: [] };
    if (s.groupsClaim && p[s.groupsClaim] !== undefined) {
      const g = p[s.groupsClaim];
      if (typeof g === 'string') user.groups = [g];
      else if (Array.isArray(g) && g.every((x) => typeof x === 'string')) user.groups = [...(g as string[])];
      else throw new AuthenticationError(`oidc: parse groups claim ${JSON.stringify(s.groupsClaim)}: json: cannot unmarshal ${jsonType(g)} into Go value of type string`);
      user.groups = user.groups.map((group) => s.groupsPrefix + group);
    }
    for (const [claim, want] of Object.entries(s.requiredClaims)) {
      if (!(claim in p)) throw new AuthenticationError(`oidc: required claim ${claim} not present in ID token`);
      const got = p[claim];
      if (typeof got !== 'string') throw new AuthenticationError(`oidc: parse claim ${claim}: json: cannot unmarshal ${jsonType(got)} into Go value of type string`);
      if (got !== want) throw new AuthenticationError(`oidc: required claim ${claim} value does not match. Got = ${got}, want = ${want}`);
    }
    return user;
  }

  /** one discovery attempt at a time; on failure another is scheduled with a growing delay */
  #initialize(): Promise<void> {
    if (this.#keys || this.#closed) return Promise.resolve();
    this.#inflight ??= (async () => {
      this.#lastAttempt = this.#now();
      try {
        await this.#discover();
        clearTimeout(this.#timer);
        this.#delay = this.#retry.first;
      } catch (err) {
        this.#warn(`oidc authenticator: initializing plugin: ${(err as Error).message}`);
        if (!this.#closed) {
          clearTimeout(this.#timer);
          this.#timer = setTimeout(() => void this.#initialize(), this.#delay);
          this.#timer.unref();
          this.#delay = Math.min(this.#delay * 2, this.#retry.max);
        }
      } finally {
        this.#inflight = undefined;
      }
    })();
    return this.#inflight;
  }

  async #discover(): Promise<void> {
    const wellKnown = `${this.#s.issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const doc = await getJson(wellKnown, { ca: this.#s.ca });
    const issuer = typeof doc.issuer === 'string' ? doc.issuer : '';
    if (issuer !== this.#s.issuerUrl) throw new Error(`oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.#s.issuerUrl)} got ${JSON.stringify(issuer)}`);
    if (typeof doc.jwks_uri !== 'string' || doc.jwks_uri === '') throw new Error(`oidc: discovery document of ${JSON.stringify(issuer)} has no jwks_uri`);
    this.#jwksUri = doc.jwks_uri;
    await this.#refreshKeys();
  }

  /** fetch the key set again; concurrent callers share one fetch */
  #refreshKeys(): Promise<void> {
    this.#refreshing ??= (async () => {
      try {
        const set = await getJson(this.#jwksUri!, { ca: this.#s.ca });
        if (!Array.isArray(set.keys)) throw new Error(`${this.#jwksUri}: no "keys" in the key set`);
        this.#keys = createLocalJWKSet(set as unknown as JSONWebKeySet);
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }
}

/** Go's %q of a []string: ["a" "b"] */
function goStrings(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** Go's time.Time String() in UTC: 2006-01-02 15:04:05 +0000 UTC */
function goTime(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, '')} +0000 UTC`;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}
