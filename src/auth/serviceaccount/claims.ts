/**
 * The claims of service account tokens, as kube writes them: bound tokens (TokenRequest) carry a
 * `kubernetes.io` object naming the namespace, the account and the object the token is bound to;
 * legacy tokens (the token secrets of old clusters) carry flat `kubernetes.io/serviceaccount/*` claims.
 */
import crypto from 'node:crypto';

/** the issuer of legacy secret-based tokens */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';

export const LEGACY_CLAIMS = Object.freeze({
  namespace: 'kubernetes.io/serviceaccount/namespace',
  secretName: 'kubernetes.io/serviceaccount/secret.name',
  serviceAccountName: 'kubernetes.io/serviceaccount/service-account.name',
  serviceAccountUid: 'kubernetes.io/serviceaccount/service-account.uid',
});

export interface ObjectRef {
  name: string;
  uid: string;
}

/** kube's private claims of a bound token */
export interface BoundClaims {
  namespace: string;
  serviceaccount: ObjectRef;
  pod?: ObjectRef;
  secret?: ObjectRef;
  /** the node a token is bound to, or the node of the pod it is bound to (kube 1.30+) */
  node?: ObjectRef;
  /** seconds since the epoch after which kube warns about the (extended) token's use */
  warnafter?: number;
}

export interface TokenClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp?: number;
  nbf?: number;
  iat?: number;
  jti?: string;
  'kubernetes.io'?: BoundClaims;
  [claim: string]: unknown;
}

/** kube's service account user name */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

/** the groups of every service account: all accounts, and all accounts of its namespace */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`];
}

export interface BoundTokenRequest {
  namespace: string;
  serviceAccount: ObjectRef;
  audiences: string[];
  /** lifetime of the token */
  expirationSeconds: number;
  pod?: ObjectRef;
  secret?: ObjectRef;
  node?: ObjectRef;
  warnAfterSeconds?: number;
  /** seconds since the epoch; default now */
  now?: number;
}

/** the claims of a bound token (kube's serviceaccount.Claims), without `iss` (the issuer adds it) */
export function boundTokenClaims(r: BoundTokenRequest): TokenClaims {
  const now = r.now ?? Math.floor(Date.now() / 1000);
  const k8s: BoundClaims = { namespace: r.namespace, serviceaccount: { ...r.serviceAccount } };
  if (r.pod) k8s.pod = { ...r.pod };
  if (r.secret) k8s.secret = { ...r.secret };
  if (r.node) k8s.node = { ...r.node };
  if (r.warnAfterSeconds !== undefined) k8s.warnafter = now + r.warnAfterSeconds;
  return {
    aud: [...r.audiences],
    exp: now + r.expirationSeconds,
    iat: now,
    jti: crypto.randomUUID(),
    'kubernetes.io': k8s,
    nbf: now,
    sub: serviceAccountUsername(r.namespace, r.serviceAccount.name),
  };
}
