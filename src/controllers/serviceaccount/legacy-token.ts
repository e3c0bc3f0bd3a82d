/**
 * The legacy service account token of a token secret (kube 1.20's JWTTokenGenerator with
 * LegacyClaims): flat `kubernetes.io/serviceaccount/*` claims, issuer kubernetes/serviceaccount, no
 * expiry; the API server accepts it while the secret still exists (src/auth/authn/service-account.ts).
 */
import { LEGACY_CLAIMS, LEGACY_ISSUER, serviceAccountUsername } from '../../auth/serviceaccount/claims';
import type { SigningKey } from '../../auth/serviceaccount/keys';
import { TokenIssuer } from '../../auth/serviceaccount/token-issuer';

export interface LegacyTokenSubject {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  secretName: string;
}

export function legacyTokenIssuer(key: SigningKey): TokenIssuer {
  return new TokenIssuer({ key, issuer: LEGACY_ISSUER });
}

export function signLegacyToken(issuer: TokenIssuer, s: LegacyTokenSubject): Promise<string> {
  return issuer.sign({
    sub: serviceAccountUsername(s.namespace, s.serviceAccountName),
    [LEGACY_CLAIMS.namespace]: s.namespace,
    [LEGACY_CLAIMS.secretName]: s.secretName,
    [LEGACY_CLAIMS.serviceAccountName]: s.serviceAccountName,
    [LEGACY_CLAIMS.serviceAccountUid]: s.serviceAccountUid,
  });
}

/** kube's utilrand.String: letters and digits that cannot spell words (no vowels, no 0/1/3) */
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function randomSuffix(n = 5, random: () => number = Math.random): string {
  let out = '';
  for (let i = 0; i < n; i++) out += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return out;
}
