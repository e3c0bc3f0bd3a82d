/** certificate signing requests for tests: RSA ones built with node-forge, ECDSA ones by hand (not a test file) */
import crypto from 'node:crypto';
import forge from 'node-forge';

export interface CsrOptions {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ips?: string[];
}

let rsaKeys: { privateKey: string; publicKey: string } | undefined;

function rsa(): { privateKey: string; publicKey: string } {
  rsaKeys ??= crypto.generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return rsaKeys;
}

/** a PEM CSR signed with a (per-process) RSA key */
export function rsaCsr(o: CsrOptions): string {
  const keys = rsa();
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  csr.setSubject([{ name: 'commonName', value: o.commonName }, ...(o.organizations ?? []).map((value) => ({ name: 'organizationName', value }))]);
  const altNames = [...(o.dnsNames ?? []).map((value) => ({ type: 2, value })), ...(o.ips ?? []).map((ip) => ({ type: 7, ip }))];
  if (altNames.length > 0) csr.setAttributes([{ name: 'extensionRequest', extensions: [{ name: 'subjectAltName', altNames }] }]);
  csr.sign(forge.pki.privateKeyFromPem(keys.privateKey) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return forge.pki.certificationRequestToPem(csr);
}

function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const len = body.length < 128 ? Buffer.from([body.length]) : body.length < 256 ? Buffer.from([0x81, body.length]) : Buffer.from([0x82, body.length >> 8, body.length & 0xff]);
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

/** a PEM CSR with a P-256 key and an ecdsa-with-SHA256 signature (what kubelets send) */
export function ecdsaCsr(commonName: string, organization: string): string {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const oid = (bytes: number[]) => der(0x06, Buffer.from(bytes));
  const attr = (oidBytes: number[], value: string) => der(0x31, der(0x30, oid(oidBytes), der(0x0c, Buffer.from(value))));
  const name = der(0x30, attr([0x55, 0x04, 0x0a], organization), attr([0x55, 0x04, 0x03], commonName));
  const info = der(0x30, der(0x02, Buffer.from([0])), name, publicKey.export({ type: 'spki', format: 'der' }), der(0xa0));
  const signature = crypto.sign('sha256', info, privateKey);
  const algorithm = der(0x30, oid([0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));
  const csr = der(0x30, info, algorithm, der(0x03, Buffer.from([0]), signature));
  const b64 = csr.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${b64}\n-----END CERTIFICATE REQUEST-----\n`;
}

/** a self-signed PEM certificate */
export function selfSignedCert(): string {
  const keys = rsa();
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date('2024-01-01T00:00:00Z');
  cert.validity.notAfter = new Date('2034-01-01T00:00:00Z');
  cert.setSubject([{ name: 'commonName', value: 'test' }]);
  cert.setIssuer([{ name: 'commonName', value: 'test' }]);
  cert.sign(forge.pki.privateKeyFromPem(keys.privateKey) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

export const b64 = (s: string): string => Buffer.from(s).toString('base64');
