/**
 * Bootstrap token secrets as kube's bootstrap controllers read them (k8s.io/cluster-bootstrap):
 * secrets of type bootstrap.kubernetes.io/token in kube-system, named bootstrap-token-<id>, with
 * token-id, token-secret, an optional RFC 3339 expiration and usage-bootstrap-* flags.
 */
import type { KubeObject } from '../../client/types';

export const BOOTSTRAP_TOKEN_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_NAMESPACE = 'kube-system';

export function secretString(secret: KubeObject, key: string): string {
  const v = (secret.data as Record<string, unknown> | undefined)?.[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

export const isBootstrapToken = (s: KubeObject): boolean => s.metadata?.namespace === BOOTSTRAP_NAMESPACE && s.type === BOOTSTRAP_TOKEN_TYPE;

/** ms until the token expires (negative: expired); undefined when it never does or cannot be read */
export function msUntilExpiry(secret: KubeObject, now: number): number | undefined {
  const exp = secretString(secret, 'expiration');
  if (!exp) return undefined;
  const at = Date.parse(exp);
  return Number.isNaN(at) ? undefined : at - now;
}

/** kube's token id: from token-id, which must agree with the secret's name */
export function tokenId(secret: KubeObject): string | undefined {
  const id = secretString(secret, 'token-id');
  if (!/^[a-z0-9]{6}$/.test(id)) return undefined;
  const name = secret.metadata?.name ?? '';
  if (name !== `bootstrap-token-${id}`) return undefined;
  return id;
}
