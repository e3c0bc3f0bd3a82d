/**
 * The TLS settings of a connection to an extension server, as kube's proxy builds them: the
 * registration's caBundle verifies the server (the system roots when there is none), or nothing
 * does with insecureSkipTLSVerify; the name checked is `<service>.<namespace>.svc`; the client
 * certificate is --proxy-client-cert-file/--proxy-client-key-file when given.
 */
import type tls from 'node:tls';
import type { APIService } from './apiservice';

/** the proxy's client certificate and key (PEM), read once at start */
export interface ProxyClientCert {
  cert: string | Buffer;
  key: string | Buffer;
}

export function backendTlsOptions(s: APIService, clientCert: ProxyClientCert | undefined): tls.ConnectionOptions {
  const service = s.spec.service ?? {};
  const opts: tls.ConnectionOptions = {
    servername: `${service.name ?? ''}.${service.namespace ?? ''}.svc`,
    rejectUnauthorized: s.spec.insecureSkipTLSVerify !== true,
  };
  if (s.spec.caBundle) opts.ca = Buffer.from(s.spec.caBundle, 'base64');
  if (clientCert) {
    opts.cert = clientCert.cert;
    opts.key = clientCert.key;
  }
  return opts;
}

/**
 * the options of kube's availability probe: it never verifies the server ("if someone owns the
 * network and messes with your status that's not so bad") but still presents the client certificate
 */
export function probeTlsOptions(clientCert: ProxyClientCert | undefined): tls.ConnectionOptions {
  return { rejectUnauthorized: false, ...(clientCert ? { cert: clientCert.cert, key: clientCert.key } : {}) };
}
