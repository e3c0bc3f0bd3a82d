/**
 * Connection failures to an extension server, worded as Go's net/http words them: kube passes
 * these texts on (the proxy's 503 body, the availability condition's message), and people search
 * for them.
 */

interface NodeError extends Error {
  code?: string;
}

/** `dial tcp 10.0.0.1:443: connect: connection refused` and friends */
export function goDialError(err: unknown, host: string, port: number): string {
  const e = err as NodeError;
  const addr = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  switch (e?.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${addr}: read: connection reset by peer`;
    case 'EHOSTUNREACH':
      return `dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH':
      return `dial tcp ${addr}: connect: network is unreachable`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ETIMEDOUT':
      return `dial tcp ${addr}: i/o timeout`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: ${e.message}`;
    default:
      return e?.message ?? String(err);
  }
}
