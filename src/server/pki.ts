import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type forge from 'node-forge';
import type { Logger } from 'pino';
import { lazy } from '../util/lazy';

/** node-forge (0.9 MB of JavaScript) is loaded the first time it is needed */
const forgeLib = lazy(() => require('node-forge') as typeof forge);

/** the files of a generated PKI inside the cert dir (kube-apiserver names its pair apiserver.crt/.key) */
export const PKI_FILES = Object.freeze({
  caCert: 'ca.crt',
  caKey: 'ca.key',
  cert: 'apiserver.crt',
  key: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
});

export interface ServingPki {
  /** PEM: serving certificate followed by the CA certificate */
  certChain: string;
  /** PEM private key of the serving certificate */
  key: string;
  /** PEM CA certificate clients should trust */
  caCert: string;
}

/** a client certificate for the admin kubeconfig, signed by the generated CA */
export interface ClientPki {
  cert: string;
  key: string;
  /** the CA that signed it (PEM) */
  caCert: string;
}

/** the admin's identity: kube's conventional cluster-admin user and group */
export const ADMIN_SUBJECT = Object.freeze({ commonName: 'ballast-admin', organization: 'system:masters' });

export interface EnsurePkiOptions {
  certDir: string;
  /** DNS names the serving certificate must cover */
  dnsNames: readonly string[];
  /** IP addresses the serving certificate must cover */
  ips: readonly string[];
  logger: Logger;
  /** now, for tests (default Date.now()) */
  now?: number;
}

const DAY_MS = 24 * 3600 * 1000;
const utf8 = (): forge.asn1.Class => forgeLib().asn1.Type.UTF8 as unknown as forge.asn1.Class;
const CA_LIFETIME_DAYS = 3650;
/** serving and client certificates */
const SERVING_LIFETIME_DAYS = 365;
/** re-issue a serving certificate this close to its expiry */
const RENEW_BEFORE_DAYS = 30;

/**
 * Load the self-signed CA and serving certificate from certDir, or create them. Like kube-apiserver
 * without --tls-cert-file, the pair is generated once and reused; the serving certificate is
 * re-issued by the same CA when it no longer covers the required names or nears expiry, so
 * kubeconfigs written earlier keep working.
 */
export function ensureServingPki(opts: EnsurePkiOptions): ServingPki {
  const now = opts.now ?? Date.now();
  const ca = ensureCa(opts.certDir, opts.logger, now);
  const file = (name: string) => path.join(opts.certDir, name);
  let certPem = readIfExists(file(PKI_FILES.cert));
  let keyPem = readIfExists(file(PKI_FILES.key));
  if (!certPem || !keyPem || !servingUsable(certPem, ca.certPem, opts, now)) {
    ({ certPem, keyPem } = issue({ ca, kind: 'serving', dnsNames: opts.dnsNames, ips: opts.ips, now }));
    writeAtomically(file(PKI_FILES.key), keyPem, 0o600);
    writeAtomically(file(PKI_FILES.cert), certPem, 0o644);
    opts.logger.info({ dnsNames: opts.dnsNames, ips: opts.ips }, 'Generated a serving certificate');
  }
  return { certChain: certPem + ca.certPem, key: keyPem, caCert: ca.certPem };
}

/** a client identity: kube reads the user from the CommonName and the groups from the Organizations */
export interface ClientSubject {
  commonName: string;
  organization?: string;
}

/**
 * Load or create the admin client certificate (CN ballast-admin, O system:masters) signed by the
 * CA in certDir. kubectl needs some credential in its kubeconfig (with none it prompts for a user
 * name); the server trusts this CA for client certificates, so the kubeconfig authenticates as
 * ballast-admin in system:masters.
 */
export function ensureAdminClientPki(opts: { certDir: string; logger: Logger; now?: number }): ClientPki {
  return ensureClientPki({ ...opts, name: 'admin', subject: ADMIN_SUBJECT });
}

/**
 * Load or create the client certificate `<name>.crt` / `<name>.key` for `subject`, signed by the CA
 * in certDir; re-issued when missing, signed by another CA, for another subject, or near expiry.
 */
export function ensureClientPki(opts: { certDir: string; logger: Logger; name: string; subject: ClientSubject; now?: number }): ClientPki {
  const now = opts.now ?? Date.now();
  const ca = ensureCa(opts.certDir, opts.logger, now);
  const file = (name: string) => path.join(opts.certDir, name);
  const certFile = file(`${opts.name}.crt`);
  const keyFile = file(`${opts.name}.key`);
  let certPem = readIfExists(certFile);
  let keyPem = readIfExists(keyFile);
  const wanted = `CN=${opts.subject.commonName}`;
  const usable =
    certPem &&
    keyPem &&
    new crypto.X509Certificate(certPem).verify(new crypto.X509Certificate(ca.certPem).publicKey) &&
    new crypto.X509Certificate(certPem).subject.split('\n').includes(wanted) &&
    stillValid(certPem, now, RENEW_BEFORE_DAYS);
  if (!usable || !certPem || !keyPem) {
    ({ certPem, keyPem } = issue({ ca, kind: 'client', subject: opts.subject, dnsNames: [], ips: [], now }));
    writeAtomically(keyFile, keyPem, 0o600);
    writeAtomically(certFile, certPem, 0o644);
    opts.logger.info({ user: opts.subject.commonName, file: certFile }, 'Generated a client certificate');
  }
  return { cert: certPem, key: keyPem, caCert: ca.certPem };
}

interface CaPair {
  certPem: string;
  keyPem: string;
}

function ensureCa(certDir: string, logger: Logger, now: number): CaPair {
  fs.mkdirSync(certDir, { recursive: true, mode: 0o700 });
  const file = (name: string) => path.join(certDir, name);
  const certPem = readIfExists(file(PKI_FILES.caCert));
  const keyPem = readIfExists(file(PKI_FILES.caKey));
  if (certPem && keyPem && stillValid(certPem, now, 0)) return { certPem, keyPem };
  const ca = createCa(now);
  writeAtomically(file(PKI_FILES.caKey), ca.keyPem, 0o600);
  writeAtomically(file(PKI_FILES.caCert), ca.certPem, 0o644);
  // a new CA invalidates every certificate signed by the old one
  fs.rmSync(file(PKI_FILES.cert), { force: true });
  fs.rmSync(file(PKI_FILES.adminCert), { force: true });
  logger.info({ certDir }, 'Generated a self-signed CA');
  return ca;
}

function servingUsable(certPem: string, caPem: string, opts: EnsurePkiOptions, now: number): boolean {
  const cert = new crypto.X509Certificate(certPem);
  const ca = new crypto.X509Certificate(caPem);
  if (!cert.verify(ca.publicKey) || !stillValid(certPem, now, RENEW_BEFORE_DAYS)) return false;
  return opts.dnsNames.every((h) => cert.checkHost(h) !== undefined) && opts.ips.every((ip) => cert.checkIP(ip) !== undefined);
}

function stillValid(pem: string, now: number, marginDays: number): boolean {
  const cert = new crypto.X509Certificate(pem);
  return Date.parse(cert.validFrom) <= now && Date.parse(cert.validTo) - marginDays * DAY_MS > now;
}

/** an RSA 2048 key pair, generated natively, in forge's form for signing */
export function newKeyPair(): { privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; keyPem: string } {
  // Node's native generator is fast; forge's pure-JS one takes seconds for 2048 bits.
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forgeLib().pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forgeLib().pki.setRsaPublicKey(forgeKey.n, forgeKey.e), keyPem };
}

/** a certificate with a random positive serial, valid from an hour ago for `days` */
export function baseCertificate(publicKey: forge.pki.PublicKey, now: number, days: number): forge.pki.Certificate {
  const cert = forgeLib().pki.createCertificate();
  cert.publicKey = publicKey;
  // positive serial: clear the top bit of a random 16-byte number
  const serial = crypto.randomBytes(16);
  serial[0] &= 0x7f;
  cert.serialNumber = serial.toString('hex');
  // backdate a little so clocks slightly behind still accept the certificate
  cert.validity.notBefore = new Date(now - 3600 * 1000);
  cert.validity.notAfter = new Date(now + days * DAY_MS);
  return cert;
}

function createCa(now: number): { certPem: string; keyPem: string } {
  const { privateKey, publicKey, keyPem } = newKeyPair();
  const cert = baseCertificate(publicKey, now, CA_LIFETIME_DAYS);
  // UTF8String: Go's x509 refuses characters outside PrintableString's set in PrintableString values
  const subject = [{ name: 'commonName', value: `ballast-ca-${Math.floor(now / 1000)}`, valueTagClass: utf8() }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(privateKey, forgeLib().md.sha256.create());
  return { certPem: forgeLib().pki.certificateToPem(cert), keyPem };
}

function issue(opts: { ca: CaPair; kind: 'serving' | 'client'; subject?: ClientSubject; dnsNames: readonly string[]; ips: readonly string[]; now: number }): {
  certPem: string;
  keyPem: string;
} {
  const ca = forgeLib().pki.certificateFromPem(opts.ca.certPem);
  const caKey = forgeLib().pki.privateKeyFromPem(opts.ca.keyPem);
  const { publicKey, keyPem } = newKeyPair();
  const cert = baseCertificate(publicKey, opts.now, SERVING_LIFETIME_DAYS);
  if (opts.kind === 'serving') {
    cert.setSubject([{ name: 'commonName', value: 'ballast-apiserver', valueTagClass: utf8() }]);
  } else {
    // kube reads the user from CN and groups from O
    const subject = opts.subject ?? ADMIN_SUBJECT;
    cert.setSubject([
      ...(subject.organization ? [{ name: 'organizationName', value: subject.organization, valueTagClass: utf8() }] : []),
      { name: 'commonName', value: subject.commonName, valueTagClass: utf8() },
    ]);
  }
  cert.setIssuer(ca.subject.attributes);
  const extensions: object[] = [
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    opts.kind === 'serving' ? { name: 'extKeyUsage', serverAuth: true } : { name: 'extKeyUsage', clientAuth: true },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ];
  if (opts.kind === 'serving') {
    const altNames = [...opts.dnsNames.map((value) => ({ type: 2, value })), ...opts.ips.map((ip) => ({ type: 7, ip }))];
    extensions.push({ name: 'subjectAltName', altNames });
  }
  cert.setExtensions(extensions);
  cert.sign(caKey, forgeLib().md.sha256.create());
  return { certPem: forgeLib().pki.certificateToPem(cert), keyPem };
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** write via a temporary file and rename, so a crash never leaves half a key behind */
export function writeAtomically(file: string, content: string, mode: number): void {
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, content, { mode });
  fs.renameSync(tmp, file);
}

/** the service account key pair Ballast generates when no --service-account-*key-file is given */
export const SA_KEY_FILES = Object.freeze({ key: 'sa.key', pub: 'sa.pub' });

/**
 * the generated service account signing key in --cert-dir: made once (RSA 2048) and kept across
 * restarts, so tokens issued before a restart stay valid. Returns the files' paths.
 */
export function ensureServiceAccountKeyPair(opts: { certDir: string; logger: Logger }): { keyFile: string; pubFile: string } {
  const keyFile = path.join(opts.certDir, SA_KEY_FILES.key);
  const pubFile = path.join(opts.certDir, SA_KEY_FILES.pub);
  const keyPem = readIfExists(keyFile);
  if (!keyPem || !readIfExists(pubFile)) {
    fs.mkdirSync(opts.certDir, { recursive: true, mode: 0o700 });
    const existing = keyPem ? crypto.createPrivateKey(keyPem) : undefined;
    const privateKey = existing ?? crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    if (!existing) writeAtomically(keyFile, privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), 0o600);
    writeAtomically(pubFile, crypto.createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString(), 0o644);
    opts.logger.info({ keyFile, pubFile }, 'Generated the service account signing key pair');
  }
  return { keyFile, pubFile };
}
