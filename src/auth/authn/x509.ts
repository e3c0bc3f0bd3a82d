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

/** what a connection's client certificate says, worked out once per connection */
interface PeerIdentity {
  user?: { name: string; groups: string[] };
  /** the certificate did not verify at the handshake, or names nobody */
  error?: string;
  /** the certificate's validity window, ms since the epoch */
  notBefore: number;
  notAfter: number;
}

/**
 * The peer certificate of a TLS connection does not change, but Node builds a new object for every
 * getPeerCertificate() call (parsing the certificate again): with controllers, schedulers and node
 * agents on client certificates that was ~5% of the API server's CPU. The identity is kept per
 * connection; the validity window is checked on every request, as kube verifies at each request's
 * time (a certificate can expire while its connection stays open).
 */
const identities = new WeakMap<TLSSocket, PeerIdentity | null>();

function peerIdentity(socket: TLSSocket): PeerIdentity | null {
  let identity = identities.get(socket);
  if (identity !== undefined) return identity;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) identity = null;
  else {
    const window = { notBefore: Date.parse(cert.valid_from), notAfter: Date.parse(cert.valid_to) };
    const name = first(cert.subject?.CN);
    if (!socket.authorized) {
      const code = String(socket.authorizationError ?? 'unknown error');
      identity = { ...window, error: `verifying certificate ${cert.subject?.CN ?? ''} failed: ${GO_WORDS[code] ?? code}` };
    } else if (!name) identity = { ...window, error: 'the client certificate has no common name' };
    else identity = { ...window, user: { name, groups: all(cert.subject?.O) } };
  }
  identities.set(socket, identity);
  return identity;
}

export class X509Authenticator implements RequestAuthenticator {
  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | undefined> {
    const socket = req.socket as TLSSocket | undefined;
    if (!socket || typeof socket.getPeerCertificate !== 'function') return undefined;
    const identity = peerIdentity(socket);
    if (!identity) return undefined;
    if (identity.error) throw new AuthenticationError(identity.error);
    const now = Date.now();
    if (now < identity.notBefore || now > identity.notAfter) {
      throw new AuthenticationError(`verifying certificate ${identity.user!.name} failed: ${GO_WORDS.CERT_HAS_EXPIRED}`);
    }
    return { user: { name: identity.user!.name, groups: [...identity.user!.groups] } };
  }
}

function all(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

function first(v: string | string[] | undefined): string | undefined {
  return all(v)[0];
}
