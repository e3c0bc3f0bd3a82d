/**
 * The node agent's authentication and authorization (kubelet's server/auth.go and its
 * KubeletAuthentication / KubeletAuthorization options): client certificates against the client CA,
 * bearer tokens through TokenReview (cached), anonymous when allowed; then every request is a
 * question about the node object: verb from the HTTP method, resource `nodes`, name the node, and
 * the subresource from the path (stats, metrics, log, spec, else proxy), answered by AlwaysAllow or a
 * SubjectAccessReview webhook with cached answers.
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { UserInfo } from '../../api/reviews/authorizer';
import { authenticatorChain, type ChainAuthenticator, type RequestAuthenticator } from '../../auth/authenticator';
import { X509Authenticator } from '../../auth/authn/x509';
import type { RestClient } from '../../client/rest-client';
import type { ResourceRef } from '../../client/types';
import { TokenReviewAuthenticator, TtlCache, verbOf } from '../../controllers/delegated-auth';

const ACCESS_REVIEWS: ResourceRef = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false };

export interface AgentAuthenticationConfig {
  /** --anonymous-auth: requests without credentials are system:anonymous */
  anonymous: boolean;
  /** the client CA bundle (PEM) client certificates are checked against; absent: certificates are not asked */
  clientCa?: string;
  /** TokenReview of bearer tokens */
  webhook: { enabled: boolean; cacheTtlMs: number };
}

export interface AgentAuthorizationConfig {
  mode: 'AlwaysAllow' | 'Webhook';
  webhook: { cacheAuthorizedTtlMs: number; cacheUnauthorizedTtlMs: number };
}

/** what kubelet asks the authorizer about a request to its port */
export interface NodeRequestAttributes {
  user: UserInfo;
  verb: string;
  resource: 'nodes';
  subresource: string;
  name: string;
  path: string;
}

export type AuthOutcome =
  | { ok: true; user: UserInfo }
  | { ok: false; code: 401 | 403 | 500; message: string };

/** kubelet's verb of a method (GET and HEAD get, POST create, PUT update, PATCH patch, DELETE delete) */
export const verbOfMethod = verbOf;

/** `path` is `prefix` itself or below it */
function isSubpath(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** kubelet's subresource of a path on its port */
export function subresourceOfPath(path: string): string {
  if (isSubpath(path, '/stats')) return 'stats';
  if (isSubpath(path, '/metrics')) return 'metrics';
  if (isSubpath(path, '/logs')) return 'log';
  if (isSubpath(path, '/spec')) return 'spec';
  return 'proxy';
}

export class AgentAuth {
  readonly #chain: ChainAuthenticator;
  readonly #authz: AgentAuthorizationConfig;
  readonly #client?: RestClient;
  readonly #nodeName: string;
  readonly #decisions = new TtlCache<boolean>();
  readonly clientCa?: string;

  constructor(o: { authentication: AgentAuthenticationConfig; authorization: AgentAuthorizationConfig; client?: RestClient; nodeName: string }) {
    const authenticators: RequestAuthenticator[] = [];
    if (o.authentication.clientCa) authenticators.push(new X509Authenticator());
    if (o.authentication.webhook.enabled) {
      if (!o.client) throw new Error('no client for the authentication webhook (TokenReview)');
      authenticators.push(new TokenReviewAuthenticator(o.client, o.authentication.webhook.cacheTtlMs));
    }
    if (o.authorization.mode === 'Webhook' && !o.client) throw new Error('no client for the authorization webhook (SubjectAccessReview)');
    this.#chain = authenticatorChain(authenticators, { anonymous: o.authentication.anonymous });
    this.#authz = o.authorization;
    this.#client = o.client;
    this.#nodeName = o.nodeName;
    this.clientCa = o.authentication.clientCa;
  }

  /** the attributes kubelet's authorizer is asked about */
  attributes(user: UserInfo, method: string, path: string): NodeRequestAttributes {
    return { user, verb: verbOfMethod(method), resource: 'nodes', subresource: subresourceOfPath(path), name: this.#nodeName, path };
  }

  /** authenticate then authorize, with kubelet's answers when refused */
  async check(req: IncomingMessage): Promise<AuthOutcome> {
    let user: UserInfo | undefined;
    try {
      const result = await this.#chain.authenticate({ headers: req.headers, socket: req.socket as TLSSocket, method: req.method, url: req.url });
      user = result.user;
    } catch {
      user = undefined;
    }
    if (!user) return { ok: false, code: 401, message: 'Unauthorized' };
    const path = new URL(req.url ?? '/', 'https://node').pathname;
    const attrs = this.attributes(user, req.method ?? 'GET', path);
    const describe = `(user=${user.name}, verb=${attrs.verb}, resource=${attrs.resource}, subresource=${attrs.subresource})`;
    let allowed: boolean;
    try {
      allowed = await this.#authorize(attrs);
    } catch {
      return { ok: false, code: 500, message: `Authorization error ${describe}` };
    }
    if (!allowed) return { ok: false, code: 403, message: `Forbidden ${describe}` };
    return { ok: true, user };
  }

  async #authorize(attrs: NodeRequestAttributes): Promise<boolean> {
    if (this.#authz.mode === 'AlwaysAllow') return true;
    const { user } = attrs;
    const spec: Record<string, unknown> = {
      user: user.name,
      groups: user.groups,
      resourceAttributes: { verb: attrs.verb, group: '', version: 'v1', resource: 'nodes', subresource: attrs.subresource, name: attrs.name },
    };
    if (user.uid) spec.uid = user.uid;
    if (user.extra) spec.extra = user.extra;
    const key = JSON.stringify(spec);
    const hit = this.#decisions.get(key);
    if (hit !== undefined) return hit;
    const review = await this.#client!.create(ACCESS_REVIEWS, undefined, { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec });
    const allowed = (review.status as { allowed?: unknown } | undefined)?.allowed === true;
    this.#decisions.set(key, allowed, allowed ? this.#authz.webhook.cacheAuthorizedTtlMs : this.#authz.webhook.cacheUnauthorizedTtlMs);
    return allowed;
  }
}
