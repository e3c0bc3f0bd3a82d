/**
 * kube's service account token authenticator: JWTs signed by one of the --service-account-key-file
 * keys, issued by one of our issuers (--service-account-issuer) or the legacy
 * `kubernetes/serviceaccount` one.
 *
 * - A token that is not a JWT, or whose `iss` is not ours, is not recognized (undefined), so the
 *   other token authenticators may know it.
 * - A JWT of ours that fails is an AuthenticationError, in kube's words: a signature no key verifies,
 *   audiences outside the requested ones, exp/nbf/iat outside kube's 60 s leeway, an account, pod
 *   or secret that is gone or has another uid.
 * - Bound tokens (`kubernetes.io` claims) are always checked against storage, as kube's validator
 *   does; legacy tokens only with --service-account-lookup (their secret must still hold the token).
 */
import { compactVerify, decodeJwt } from 'jose';
import type { TokenAuthentication, TokenAuthenticator } from '../../api/reviews/authenticator';
import type { KubeObject } from '../../api/kind';
import { AuthenticationError } from '../authenticator';
import type { UserInfo } from '../user';
import { LEGACY_CLAIMS, LEGACY_ISSUER, serviceAccountGroups, serviceAccountUsername } from '../serviceaccount/claims';
import type { BoundClaims, TokenClaims } from '../serviceaccount/claims';
import type { VerifyingKey } from '../serviceaccount/keys';

const INVALID_SINCE_LABEL = 'kubernetes.io/legacy-token-invalid-since';

/** go-jose's default leeway, which kube's claim validation uses */
const LEEWAY_SECONDS = 60;

export type LookupResource = 'serviceaccounts' | 'pods' | 'secrets' | 'nodes';
/** a core/v1 object from storage (namespace '' for nodes); undefined when it does not exist */
export type ObjectLookup = (resource: LookupResource, namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface ServiceAccountTokenOptions {
  /** the issuers whose tokens we accept (the first is the one we issue with) */
  issuers: readonly string[];
  keys: readonly VerifyingKey[];
  /** --api-audiences (the implicit audiences of tokens without `aud`, and of requests that ask none) */
  apiAudiences: readonly string[];
  lookup: ObjectLookup;
  /** --service-account-lookup: legacy tokens are checked against storage */
  legacyLookup: boolean;
  /** seconds since the epoch (tests) */
  now?: () => number;
}

/** Go's %q of a []string: `["a" "b"]` */
const goQuoted = (values: readonly string[]): string => `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;

const kindNames: Record<LookupResource, string> = { serviceaccounts: 'service account', pods: 'pod', secrets: 'secret', nodes: 'node' };

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  readonly #o: ServiceAccountTokenOptions;
  readonly #issuers: Set<string>;

  constructor(opts: ServiceAccountTokenOptions) {
    this.#o = opts;
    this.#issuers = new Set([...opts.issuers, LEGACY_ISSUER]);
  }

  async authenticateToken(token: string, audiences: string[]): Promise<TokenAuthentication | undefined> {
    let unverified: TokenClaims;
    try {
      unverified = decodeJwt(token) as TokenClaims;
    } catch {
      return undefined;
    }
    if (typeof unverified.iss !== 'string' || !this.#issuers.has(unverified.iss)) return undefined;
    const claims = await this.#verify(token);

    const implicit = [...this.#o.apiAudiences];
    const tokenAudiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a) => typeof a === 'string') : [];
    const own = tokenAudiences.length > 0 ? tokenAudiences : implicit;
    const requested = audiences.length > 0 ? audiences : implicit;
    const granted = own.filter((a) => requested.includes(a));
    if (granted.length === 0 && implicit.length > 0) {
      throw new AuthenticationError(`token audiences ${goQuoted(own)} is invalid for the target audiences ${goQuoted(requested)}`);
    }
    const user = claims.iss === LEGACY_ISSUER ? await this.#legacyUser(token, claims) : await this.#boundUser(claims);
    return { user, audiences: granted };
  }

  /** the claims, once a key verifies the signature (kube tries every key, the `kid` is a hint only) */
  async #verify(token: string): Promise<TokenClaims> {
    const errors: string[] = [];
    for (const k of this.#o.keys) {
      try {
        const { payload } = await compactVerify(token, k.key, { algorithms: [k.alg] });
        return JSON.parse(Buffer.from(payload).toString('utf8')) as TokenClaims;
      } catch (err) {
        errors.push(err instanceof Error && /signature/i.test(err.message) ? 'error in cryptographic primitive' : String((err as Error).message ?? err));
      }
    }
    const unique = [...new Set(errors)];
    throw new AuthenticationError(unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`);
  }

  /** kube's public claim checks, with go-jose's leeway */
  #checkTimes(claims: TokenClaims): void {
    const now = this.#o.now?.() ?? Math.floor(Date.now() / 1000);
    if (typeof claims.exp === 'number' && now - LEEWAY_SECONDS > claims.exp) throw new AuthenticationError('service account token has expired');
    if (typeof claims.nbf === 'number' && now + LEEWAY_SECONDS < claims.nbf) throw new AuthenticationError('service account token is not valid yet');
    if (typeof claims.iat === 'number' && now + LEEWAY_SECONDS < claims.iat) throw new AuthenticationError('service account token is issued in the future');
  }

  /** a stored object that must still be there, not being deleted, with the token's uid */
  async #current(resource: LookupResource, namespace: string, name: string, uid: string): Promise<KubeObject> {
    const obj = await this.#o.lookup(resource, namespace, name);
    if (!obj) throw new AuthenticationError(`${resource} "${name}" not found`);
    if (obj.metadata?.deletionTimestamp) throw new AuthenticationError(`${kindNames[resource]} ${namespace ? `${namespace}/` : ''}${name} has been deleted`);
    const actual = String(obj.metadata?.uid ?? '');
    if (actual !== uid) throw new AuthenticationError(`${kindNames[resource]} UID (${actual}) does not match claim (${uid})`);
    return obj;
  }

  async #boundUser(claims: TokenClaims): Promise<UserInfo> {
    this.#checkTimes(claims);
    const k8s = claims['kubernetes.io'] as BoundClaims | undefined;
    const ns = k8s?.namespace;
    const sa = k8s?.serviceaccount;
    if (!k8s || typeof ns !== 'string' || ns === '' || typeof sa?.name !== 'string' || typeof sa.uid !== 'string') {
      throw new AuthenticationError('service account token claims could not be validated due to unexpected private claim');
    }
    if (k8s.pod && k8s.secret) throw new AuthenticationError('service account token is bound to more than one object');
    await this.#current('serviceaccounts', ns, sa.name, sa.uid);
    if (k8s.pod) await this.#current('pods', ns, String(k8s.pod.name), String(k8s.pod.uid));
    if (k8s.secret) await this.#current('secrets', ns, String(k8s.secret.name), String(k8s.secret.uid));
    // a token bound to a node itself dies with it; the node of a pod-bound token is information only
    if (k8s.node && !k8s.pod && !k8s.secret) await this.#current('nodes', '', String(k8s.node.name), String(k8s.node.uid));
    const extra: Record<string, string[]> = {};
    if (k8s.pod) {
      extra['authentication.kubernetes.io/pod-name'] = [String(k8s.pod.name)];
      extra['authentication.kubernetes.io/pod-uid'] = [String(k8s.pod.uid)];
    }
    if (k8s.node) {
      extra['authentication.kubernetes.io/node-name'] = [String(k8s.node.name)];
      if (k8s.node.uid) extra['authentication.kubernetes.io/node-uid'] = [String(k8s.node.uid)];
    }
    if (typeof claims.jti === 'string' && claims.jti !== '') extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims.jti}`];
    const user: UserInfo = { name: serviceAccountUsername(ns, sa.name), uid: sa.uid, groups: serviceAccountGroups(ns) };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return user;
  }

  /** kube's legacy validator: the flat claims, and with lookup the secret that still holds this token */
  async #legacyUser(token: string, claims: TokenClaims): Promise<UserInfo> {
    const claim = (name: string): string => (typeof claims[name] === 'string' ? (claims[name] as string) : '');
    const ns = claim(LEGACY_CLAIMS.namespace);
    const secretName = claim(LEGACY_CLAIMS.secretName);
    const saName = claim(LEGACY_CLAIMS.serviceAccountName);
    const saUid = claim(LEGACY_CLAIMS.serviceAccountUid);
    if (ns === '') throw new AuthenticationError('namespace claim is missing');
    if (secretName === '') throw new AuthenticationError('secretName claim is missing');
    if (saName === '') throw new AuthenticationError('serviceAccountName claim is missing');
    if (saUid === '') throw new AuthenticationError('serviceAccountUID claim is missing');
    if (this.#o.legacyLookup) {
      const secret = await this.#o.lookup('secrets', ns, secretName);
      if (!secret || secret.metadata?.deletionTimestamp) throw new AuthenticationError('token has been invalidated');
      const data = (secret as { data?: Record<string, unknown> }).data ?? {};
      const stored = typeof data.token === 'string' ? Buffer.from(data.token, 'base64').toString('utf8') : '';
      if (stored !== token) throw new AuthenticationError("token does not match server's copy");
      // kube's legacy token cleaner marks unused token secrets invalid before deleting them
      if (secret.metadata?.labels?.[INVALID_SINCE_LABEL] !== undefined) {
        throw new AuthenticationError(`the token in secret ${ns}/${secretName} for service account ${ns}/${saName} has been marked invalid. Use tokens from the TokenRequest API or manually created secret-based tokens, or remove the '${INVALID_SINCE_LABEL}' label from the secret to regain access`);
      }
      const sa = await this.#o.lookup('serviceaccounts', ns, saName);
      if (!sa || sa.metadata?.deletionTimestamp) throw new AuthenticationError(`service account ${ns}/${saName} has been deleted`);
      const actual = String(sa.metadata?.uid ?? '');
      if (actual !== saUid) throw new AuthenticationError(`service account UID (${actual}) does not match claim (${saUid})`);
    }
    return { name: serviceAccountUsername(ns, saName), uid: saUid, groups: serviceAccountGroups(ns) };
  }
}
