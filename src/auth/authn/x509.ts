/**
 * kube's x509 request authenticator: a client certificate verified against --client-ca-file names
 * the user (subject CommonName) and the groups (subject Organizations). The TLS listener asks every
 * client for a certificate without requiring one and verifies what it gets against the client CA
 * bundle; a certificate that did not verify is a bad credential (401), none at all is no opinion.
 */
import type { TLSSocket } from 'node:tls';
import type { AuthenticationRequest, AuthenticationResult, RequestAuthenticator } from '../authenticator';
import { AuthenticationError } from '../authenticator';

/** OpenSSL's verification codes in the words Go's x509 package uses (what kube logs) */
const GO_WORDS: Record<string, string> = {
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'x509: certificate signed by unknown authority',
  UNABLE_TO_GET_ISSUER_CERT: 'x509: certificate signed by unknown authority',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'x509: certificate signed by unknown authority',
  SELF_SIGNED_CERT_IN_CHAIN: 'x509: certificate signed by unknown authority',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'x509: certificate signed by unknown authority',
  CERT_HAS_EXPIRED: 'x509: certificate has expired or is not yet valid',
  CERT_NOT_YET_VALID: 'x509: certificate has expired or is not yet valid',
};

export class X509Authenticator implements RequestAuthenticator {
  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | undefined> {
    const socket = req.socket as TLSSocket | undefined;
    if (!socket || typeof socket.getPeerCertificate !== 'function') return undefined;
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return undefined;
    if (!socket.authorized) {
      const code = String(socket.authorizationError ?? 'unknown error');
      throw new AuthenticationError(`verifying certificate ${cert.subject?.CN ?? ''} failed: ${GO_WORDS[code] ?? code}`);
    }
    const name = first(cert.subject?.CN);
    if (!name) throw new AuthenticationError('the client certificate has no common name');
    return { user: { name, groups: all(cert.subject?.O) } };
  }
}

function all(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function first(v: string | string[] | undefined): string | undefined {
  return all(v)[0];
}
