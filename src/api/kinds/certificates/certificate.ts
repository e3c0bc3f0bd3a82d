/**
 * kube's check of status.certificate (validateCertificate): empty, or one or more CERTIFICATE PEM
 * blocks without headers, each holding a parsable certificate.
 */
import crypto from 'node:crypto';
import { firstPemBlock } from './csr-request';

/** '' when `base64` (the JSON form of the bytes) is acceptable, else kube's error text */
export function validateCertificate(base64: string): string {
  let pem = Buffer.from(base64, 'base64');
  if (pem.length === 0) return '';
  let blocks = 0;
  for (;;) {
    const block = firstPemBlock(pem);
    if (!block) break;
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(block.type)}`;
    if (block.headers) return 'no PEM block headers are permitted';
    blocks++;
    try {
      new crypto.X509Certificate(block.der);
    } catch {
      return 'x509: malformed certificate';
    }
    const text = pem.toString('latin1');
    const end = text.indexOf('-----END CERTIFICATE-----');
    pem = pem.subarray(end + '-----END CERTIFICATE-----'.length);
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : '';
}
