/**
 * The service account issuer discovery documents kube serves (ServiceAccountIssuerDiscovery):
 * GET /.well-known/openid-configuration (the issuer, where its keys are, what it signs with) and
 * GET /openid/v1/jwks (every verifying public key as a JWK), both cacheable for an hour as kube
 * marks them, so that outside parties (cloud identity federation) can verify our tokens.
 */
import type { VerifyingKey } from './keys';

export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
/** kube's Cache-Control for both documents */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

export interface DiscoveryOptions {
  issuer: string;
  /** --service-account-jwks-uri, else https://<the server's external address>/openid/v1/jwks */
  jwksUri: string;
  keys: readonly VerifyingKey[];
}

export function openIdConfiguration(o: DiscoveryOptions): object {
  return {
    issuer: o.issuer,
    jwks_uri: o.jwksUri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(o.keys.map((k) => k.alg))].sort(),
  };
}

export function jwks(keys: readonly VerifyingKey[]): object {
  const seen = new Set<string>();
  const out: object[] = [];
  for (const k of keys) {
    if (seen.has(k.kid)) continue;
    seen.add(k.kid);
    out.push({ use: 'sig', ...k.key.export({ format: 'jwk' }), kid: k.kid, alg: k.alg });
  }
  return { keys: out };
}

/** the two documents by path, in the shape the HTTP routes serve */
export function discoveryDocuments(o: DiscoveryOptions): Map<string, { contentType: string; cacheControl: string; body(): object }> {
  const config = openIdConfiguration(o);
  const set = jwks(o.keys);
  return new Map([
    [OPENID_CONFIGURATION_PATH, { contentType: 'application/json', cacheControl: DISCOVERY_CACHE_CONTROL, body: () => config }],
    [JWKS_PATH, { contentType: 'application/jwk-set+json', cacheControl: DISCOVERY_CACHE_CONTROL, body: () => set }],
  ]);
}
