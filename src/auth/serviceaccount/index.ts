/**
 * Service account tokens and bootstrap tokens from the flags: the verifying keys and the signing key
 * (the given files, or the pair generated in --cert-dir), the token authenticators, the issuer of
 * TokenRequests and the discovery documents. Objects are read through `lookup`, which the server
 * binds to its registry once that exists (tokens are only checked once requests are served).
 */
import type { Logger } from 'pino';
import type { TokenAuthenticator } from '../../api/reviews/authenticator';
import { BootstrapTokenAuthenticator } from '../authn/bootstrap-token';
import { ServiceAccountTokenAuthenticator } from '../authn/service-account';
import type { ObjectLookup } from '../authn/service-account';
import { discoveryDocuments } from './discovery';
import { loadSigningKey, loadVerifyingKeys } from './keys';
import type { SigningKey, VerifyingKey } from './keys';
import { TokenIssuer } from './token-issuer';
import { JWKS_PATH } from './discovery';

export { withTokenRequest } from './token-request';
export type { ObjectLookup };

export interface ServiceAccountSettings {
  issuers: readonly string[];
  keyFiles: readonly string[];
  signingKeyFile?: string;
  jwksUri?: string;
  lookup: boolean;
  maxTokenExpirationSeconds: number;
  extendTokenExpiration: boolean;
}

export interface ServiceAccountAuthOptions {
  settings: ServiceAccountSettings;
  apiAudiences: readonly string[];
  bootstrapTokens: boolean;
  /** the generated key pair, used when no key file is given */
  generatedKeys: () => { keyFile: string; pubFile: string };
  /** --tls-private-key-file: verifies tokens too when a signing key but no key file is given (kube's default) */
  tlsKeyFile?: string;
  /** https://host:port of this server, for the default jwks_uri */
  externalUrl: string;
  lookup: ObjectLookup;
  logger: Logger;
}

export function serviceAccountAuth(o: ServiceAccountAuthOptions) {
  const s = o.settings;
  let signingFile = s.signingKeyFile;
  let keyFiles = [...s.keyFiles];
  if (!signingFile && keyFiles.length === 0) {
    const generated = o.generatedKeys();
    signingFile = generated.keyFile;
    keyFiles = [generated.pubFile];
  }
  const signing: SigningKey | undefined = signingFile ? loadSigningKey(signingFile) : undefined;
  const keys: VerifyingKey[] = loadVerifyingKeys(keyFiles);
  // kube's default for --service-account-key-file: the TLS private key, when it is a usable key
  if (s.keyFiles.length === 0 && s.signingKeyFile && o.tlsKeyFile) {
    try {
      keys.push(...loadVerifyingKeys([o.tlsKeyFile]));
    } catch {
      o.logger.debug({ file: o.tlsKeyFile }, 'The TLS private key is not a service account key');
    }
  }
  if (signing && !keys.some((k) => k.kid === signing.kid)) keys.push(signing);
  const issuer = signing ? new TokenIssuer({ key: signing, issuer: s.issuers[0] }) : undefined;
  const tokens: TokenAuthenticator[] = [
    new ServiceAccountTokenAuthenticator({ issuers: s.issuers, keys, apiAudiences: o.apiAudiences, lookup: o.lookup, legacyLookup: s.lookup }),
  ];
  if (o.bootstrapTokens) tokens.push(new BootstrapTokenAuthenticator({ lookup: o.lookup, debug: (m) => o.logger.debug(m) }));
  // as kube, discovery is served only for an https issuer URL (the documents are useless otherwise)
  const problem = discoveryProblem(s.issuers[0]);
  if (problem) o.logger.warn({ issuer: s.issuers[0] }, `Not serving the service account issuer discovery documents: ${problem}`);
  const documents = problem ? undefined : discoveryDocuments({ issuer: s.issuers[0], jwksUri: s.jwksUri ?? `${o.externalUrl}${JWKS_PATH}`, keys });
  return { tokens, issuer, documents, keys };
}

function discoveryProblem(issuer: string): string | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'the issuer is not a URL';
  }
  if (url.protocol !== 'https:') return 'the issuer URL must use the https scheme';
  if (url.search !== '' || url.hash !== '') return 'the issuer URL must not contain a query or fragment';
  return undefined;
}
