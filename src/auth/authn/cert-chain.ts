/**
 * Client certificates checked per authenticator, as kube's x509 verifiers do. The TLS listener
 * asks for a certificate and accepts any that verifies against the union of the client CA and the
 * front-proxy (request-header) CA; each authenticator then checks the certificate against its own
 * bundle, so a front proxy's certificate is not a user and a user's certificate cannot set headers.
 */
import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { AuthenticationRequest, AuthenticationResult, RequestAuthenticator } from '../authenticator';
import { AuthenticationError } from '../authenticator';

/** the certificates of a PEM bundle; throws when there are none */
export function parseCaBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  const certs = blocks.map((b) => new X509Certificate(b));
  if (certs.length === 0) throw new Error('data does not contain any valid RSA or ECDSA certificates');
  return certs;
}

/** the client's certificate and the intermediates it sent, leaf first; undefined when it sent none */
export function peerChain(socket: TLSSocket | undefined): X509Certificate[] | undefined {
  if (!socket || typeof socket.getPeerCertificate !== 'function') return undefined;
  const leaf = socket.getPeerCertificate(true) as DetailedPeerCertificate;
  if (!leaf || !leaf.raw) return undefined;
  const chain: X509Certificate[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  for (let c: DetailedPeerCertificate | undefined = leaf; c && c.raw && !seen.has(c); c = c.issuerCertificate) {
    seen.add(c);
    chain.push(new X509Certificate(c.raw));
  }
  return chain;
}

/**
 * Whether chain[0] chains up to one of `roots` through the other certificates of the chain, every
 * certificate being within its validity; the error is in Go's words, as kube logs it.
 */
export function verifyChain(chain: X509Certificate[], roots: X509Certificate[], now = new Date()): string | undefined {
  const inTime = (c: X509Certificate) => new Date(c.validFrom) <= now && now <= new Date(c.validTo);
  let current = chain[0];
  const used = new Set<X509Certificate>([current]);
  for (let depth = 0; depth < 10; depth++) {
    if (!inTime(current)) return 'x509: certificate has expired or is not yet valid';
    const root = roots.find((r) => current.checkIssued(r) && current.verify(r.publicKey));
    if (root) return inTime(root) ? undefined : 'x509: certificate has expired or is not yet valid';
    const next = chain.find((c) => !used.has(c) && c.ca && current.checkIssued(c) && current.verify(c.publicKey));
    if (!next) break;
    used.add(next);
    current = next;
  }
  return 'x509: certificate signed by unknown authority';
}

/** the subject CommonName of a certificate ("" when it has none) */
export function commonName(cert: X509Certificate): string {
  return /^CN=(.*)$/m.exec(cert.subject)?.[1] ?? '';
}

/**
 * An x509 authenticator that only takes certificates of `roots` (the client CA bundle): used when a
 * front-proxy CA shares the listener, so the listener's own verification is not enough.
 */
export function onlyCertificatesOf(roots: X509Certificate[], inner: RequestAuthenticator): RequestAuthenticator {
  return {
    async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult | undefined> {
      const chain = peerChain(req.socket);
      if (!chain) return undefined;
      const error = verifyChain(chain, roots);
      if (error) throw new AuthenticationError(`verifying certificate ${certificateIdentifier(chain[0])} failed: ${error}`);
      return inner.authenticate(req);
    },
  };
}

/** names a certificate in errors, as kube's certificateIdentifier does: serial, subject and issuer */
export function certificateIdentifier(cert: X509Certificate): string {
  const flat = (dn: string) => dn.split('\n').join(',');
  return `SN=${BigInt(`0x${cert.serialNumber}`).toString()} (subject "${flat(cert.subject)}", issuer "${flat(cert.issuer)}")`;
}
