/**
 * Delegated authentication and authorization of the controller manager's HTTPS endpoint, as kube's
 * DelegatingAuthenticationOptions and DelegatingAuthorizationOptions do it: client certificates
 * against the client CA (from --client-ca-file, else looked up in the kube-system ConfigMap
 * extension-apiserver-authentication), front-proxy headers, bearer tokens checked by TokenReview
 * through --authentication-kubeconfig, anonymous otherwise; then paths in
 * --authorization-always-allow-paths pass, and everything else is a SubjectAccessReview (the verb
 * of the HTTP method on the non-resource path) through --authorization-kubeconfig, denied when it
 * is not given. Review answers are cached by their TTLs.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Logger } from 'pino';
import type { UserInfo } from '../api/reviews/authorizer';
import { AuthenticationError, authenticatorChain, type ChainAuthenticator, type RequestAuthenticator } from '../auth/authenticator';
import { parseCaBundle } from '../auth/authn/cert-chain';
import { RequestHeaderAuthenticator } from '../auth/authn/request-header';
import { X509Authenticator } from '../auth/authn/x509';
import { isNotFound } from '../client/errors';
import { loadClientConfig } from '../client/kubeconfig';
import { RestClient } from '../client/rest-client';
import { RESOURCES } from '../client/resources';
import type { ResourceRef } from '../client/types';
import type { DelegatedAuthConfig } from '../options/controller-manager';

const TOKEN_REVIEWS: ResourceRef = { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false };
const ACCESS_REVIEWS: ResourceRef = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** a small map whose entries expire */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();
  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    this.#entries.delete(key);
    return undefined;
  }
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    if (this.#entries.size > 10_000) this.#entries.clear();
    this.#entries.set(key, { value, expires: Date.now() + ttlMs });
  }
}

/** bearer tokens checked by TokenReview (kube's delegated webhook token authenticator) */
export class TokenReviewAuthenticator implements RequestAuthenticator {
  readonly #cache = new TtlCache<UserInfo | null>();
  constructor(
    readonly client: RestClient,
    readonly ttlMs: number,
  ) {}

  async authenticate(req: { headers: IncomingMessage['headers'] }) {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) return undefined;
    const token = m[1];
    const key = crypto.createHash('sha256').update(token).digest('base64');
    let user = this.#cache.get(key);
    if (user === undefined) {
      const review = await this.client.create(TOKEN_REVIEWS, undefined, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } });
      const status = obj(review.status);
      if (status.authenticated === true) {
        const u = obj(status.user);
        user = { name: String(u.username ?? ''), groups: strings(u.groups) };
        if (typeof u.uid === 'string' && u.uid) user.uid = u.uid;
        const extra = Object.entries(obj(u.extra));
        if (extra.length > 0) user.extra = Object.fromEntries(extra.map(([k, v]) => [k, strings(v)]));
      } else {
        user = null;
      }
      this.#cache.set(key, user, this.ttlMs);
    }
    if (!user) throw new AuthenticationError('invalid bearer token');
    return { user };
  }
}

export interface AuthDecision {
  allowed: boolean;
  reason?: string;
}

/** the verb kube's request-info gives a non-resource request (kubelet's authorizer uses the same) */
export function verbOf(method: string): string {
  switch (method.toUpperCase()) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return 'get';
  }
}

export class DelegatedAuth {
  readonly #chain: ChainAuthenticator;
  readonly #authz?: RestClient;
  readonly #cfg: DelegatedAuthConfig;
  readonly #decisions = new TtlCache<AuthDecision>();
  readonly #clients: RestClient[];
  /** the client CA bundle the TLS listener asks client certificates against (undefined: none asked) */
  readonly clientCa?: string;

  private constructor(init: { chain: ChainAuthenticator; authz?: RestClient; cfg: DelegatedAuthConfig; clientCa?: string; clients: RestClient[] }) {
    this.#chain = init.chain;
    this.#authz = init.authz;
    this.#cfg = init.cfg;
    this.clientCa = init.clientCa;
    this.#clients = init.clients;
  }

  /** build from the options, reading the CA files and (unless skipped) the lookup ConfigMap */
  static async create(cfg: DelegatedAuthConfig, logger: Logger, userAgent: string): Promise<DelegatedAuth> {
    const clients: RestClient[] = [];
    const clientOf = (file: string) => {
      const c = new RestClient(loadClientConfig(file, { userAgent }), { contentType: 'application/json' });
      clients.push(c);
      return c;
    };
    const authn = cfg.authenticationKubeconfig ? clientOf(cfg.authenticationKubeconfig) : undefined;
    let clientCa = cfg.clientCaFile ? readPem(cfg.clientCaFile, '--client-ca-file') : undefined;
    let proxyCa = cfg.requestHeader.clientCaFile ? readPem(cfg.requestHeader.clientCaFile, '--requestheader-client-ca-file') : undefined;
    const rh = { ...cfg.requestHeader };
    if (!authn) {
      logger.info('No authentication-kubeconfig provided in order to lookup client-ca-file in configmap/extension-apiserver-authentication in kube-system, so client certificate authentication won\'t work.');
    } else if (!cfg.skipLookup && (!clientCa || !proxyCa)) {
      try {
        const found = await lookup(authn);
        clientCa ??= found.clientCa;
        if (!proxyCa && found.proxyCa) {
          proxyCa = found.proxyCa;
          rh.allowedNames = found.allowedNames ?? rh.allowedNames;
          rh.usernameHeaders = found.usernameHeaders ?? rh.usernameHeaders;
          rh.groupHeaders = found.groupHeaders ?? rh.groupHeaders;
          rh.extraHeadersPrefix = found.extraHeadersPrefix ?? rh.extraHeadersPrefix;
        }
      } catch (err) {
        if (!cfg.tolerateLookupFailure) {
          throw new Error(`unable to load configmap based request-header-client-ca-file: ${(err as Error).message}`);
        }
        logger.warn({ err: (err as Error).message }, 'Error looking up in-cluster authentication configuration; continuing without it');
      }
    }
    const authenticators: RequestAuthenticator[] = [];
    if (proxyCa) {
      authenticators.push(
        new RequestHeaderAuthenticator({
          roots: parseCaBundle(proxyCa),
          allowedNames: rh.allowedNames,
          usernameHeaders: rh.usernameHeaders,
          groupHeaders: rh.groupHeaders,
          extraHeaderPrefixes: rh.extraHeadersPrefix,
        }),
      );
    }
    if (clientCa) authenticators.push(new X509Authenticator());
    if (authn) authenticators.push(new TokenReviewAuthenticator(authn, cfg.tokenCacheTtlMs));
    const authz = cfg.authorizationKubeconfig ? clientOf(cfg.authorizationKubeconfig) : undefined;
    if (!authz) logger.info('No authorization-kubeconfig provided, so SubjectAccessReview of authorization tokens won\'t work.');
    return new DelegatedAuth({ chain: authenticatorChain(authenticators, { anonymous: true }), authz, cfg, clientCa, clients });
  }

  /** who sent the request; undefined when a credential was presented and failed (401) */
  async authenticate(req: IncomingMessage): Promise<UserInfo | undefined> {
    const result = await this.#chain.authenticate({ headers: req.headers, socket: req.socket as TLSSocket, method: req.method, url: req.url });
    return result.user;
  }

  /** whether the user may make this request */
  async authorize(user: UserInfo, method: string, path: string): Promise<AuthDecision> {
    if (this.#cfg.alwaysAllowPaths.some((p) => pathMatches(p, path))) return { allowed: true };
    if (!this.#authz) return { allowed: false, reason: 'no authorization-kubeconfig provided' };
    const verb = verbOf(method);
    const spec: Obj = { user: user.name, groups: user.groups, nonResourceAttributes: { path, verb } };
    if (user.uid) spec.uid = user.uid;
    if (user.extra) spec.extra = user.extra;
    const key = JSON.stringify(spec);
    const hit = this.#decisions.get(key);
    if (hit) return hit;
    const review = await this.#authz.create(ACCESS_REVIEWS, undefined, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
    const status = obj(review.status);
    const decision: AuthDecision = { allowed: status.allowed === true };
    if (typeof status.reason === 'string' && status.reason) decision.reason = status.reason;
    this.#decisions.set(key, decision, decision.allowed ? this.#cfg.authorizedTtlMs : this.#cfg.unauthorizedTtlMs);
    return decision;
  }

  close(): void {
    for (const c of this.#clients) c.close();
  }
}

/** kube's always-allow paths: exact, or a prefix when the entry ends in `*` */
function pathMatches(pattern: string, path: string): boolean {
  if (pattern.endsWith('*')) return path.startsWith(pattern.slice(0, -1));
  return pattern === path;
}

function readPem(file: string, flag: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

interface LookupResult {
  clientCa?: string;
  proxyCa?: string;
  allowedNames?: string[];
  usernameHeaders?: string[];
  groupHeaders?: string[];
  extraHeadersPrefix?: string[];
}

/** the API server's published authentication settings (kube-system/extension-apiserver-authentication) */
async function lookup(client: RestClient): Promise<LookupResult> {
  let cm;
  try {
    cm = await client.get(RESOURCES.configMaps, 'kube-system', 'extension-apiserver-authentication');
  } catch (err) {
    if (isNotFound(err)) return {};
    throw err;
  }
  const data = obj(cm.data) as Record<string, string | undefined>;
  const list = (k: string): string[] | undefined => {
    const v = data[k];
    if (!v) return undefined;
    try {
      return strings(JSON.parse(v));
    } catch {
      return undefined;
    }
  };
  return {
    clientCa: data['client-ca-file'] || undefined,
    proxyCa: data['requestheader-client-ca-file'] || undefined,
    allowedNames: list('requestheader-allowed-names'),
    usernameHeaders: list('requestheader-username-headers'),
    groupHeaders: list('requestheader-group-headers'),
    extraHeadersPrefix: list('requestheader-extra-headers-prefix'),
  };
}
