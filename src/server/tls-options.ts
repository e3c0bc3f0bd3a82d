/**
 * The TLS serving flags of spec 2, 1.2 turned into what Node's TLS layer takes: --tls-min-version
 * (Go's names to OpenSSL's), --tls-cipher-suites (Go's IANA names to OpenSSL's) and
 * --tls-sni-cert-key (certificates chosen by the name the client asks for, with kube's precedence).
 */
import { fileErrorWords } from '../util/files';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { DEFAULT_CIPHERS } from 'node:tls';
import type { SecureVersion } from 'node:tls';
import { FlagError } from '../options/types';

/** Go's version names (kube's flag values) and OpenSSL's */
export const TLS_VERSIONS: Readonly<Record<string, SecureVersion>> = Object.freeze({
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
});

/** --tls-min-version as OpenSSL's name; empty keeps Node's default (TLS 1.2) */
export function tlsMinVersion(name: string | undefined): SecureVersion | undefined {
  if (!name) return undefined;
  const v = TLS_VERSIONS[name];
  // kube: "unknown tls version %q" (the option table rejects these first)
  if (!v) throw new FlagError(`unknown tls version "${name}"`);
  return v;
}

/** TLS 1.3 suites: Go always enables all three (they are not configurable), so we do too */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** the suites kube lists as preferred, by IANA name, with OpenSSL's name */
const SECURE_SUITES: Readonly<Record<string, string>> = Object.freeze({
  TLS_AES_128_GCM_SHA256: 'TLS_AES_128_GCM_SHA256',
  TLS_AES_256_GCM_SHA384: 'TLS_AES_256_GCM_SHA384',
  TLS_CHACHA20_POLY1305_SHA256: 'TLS_CHACHA20_POLY1305_SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
});

/** the suites kube accepts but calls insecure (RC4, CBC with SHA-256) */
const INSECURE_SUITES: Readonly<Record<string, string>> = Object.freeze({
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_RC4_128_SHA: 'ECDHE-ECDSA-RC4-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_RC4_128_SHA: 'ECDHE-RSA-RC4-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_RC4_128_SHA: 'RC4-SHA',
});

/**
 * --tls-cipher-suites as an OpenSSL cipher list (undefined: Node's defaults). An unknown name stops
 * start-up with kube's message; an insecure one is accepted and reported through `warn`, as kube
 * logs it. The TLS 1.3 suites stay on whatever the list says, as in Go.
 */
export function tlsCipherList(names: readonly string[], warn: (message: string) => void = () => {}): string | undefined {
  const given = names.map((n) => n.trim()).filter((n) => n !== '');
  if (given.length === 0) return undefined;
  const openssl: string[] = [];
  for (const name of given) {
    const secure = SECURE_SUITES[name];
    const insecure = INSECURE_SUITES[name];
    if (!secure && !insecure) throw new FlagError(`Cipher suite ${name} not supported or doesn't exist`);
    if (insecure) warn(`Use of insecure cipher '${name}' detected.`);
    openssl.push(secure ?? insecure);
  }
  for (const s of TLS13_SUITES) if (!openssl.includes(s)) openssl.push(s);
  return [...new Set(openssl)].join(':');
}

/** one --tls-sni-cert-key value: the files and the explicit names (empty: the certificate's names) */
export interface NamedCertKey {
  readonly certFile: string;
  readonly keyFile: string;
  readonly names: readonly string[];
}

/** parse `cert,key[:name1,name2]` as kube's NamedCertKey flag does */
export function parseNamedCertKey(value: string): NamedCertKey {
  const bad = (why: string) => new FlagError(`invalid argument "${value}" for "--tls-sni-cert-key" flag: ${why}`);
  const colon = value.indexOf(':');
  let names: string[] = [];
  let pair = value.trim();
  if (colon >= 0) {
    pair = value.slice(0, colon).trim();
    const list = value.slice(colon + 1).trim();
    if (list === '') throw bad('empty names list is not allowed');
    names = list.split(',').map((n) => n.trim());
  }
  const files = pair.split(',');
  if (files.length !== 2) throw bad('expected comma separated certificate and key file paths');
  return Object.freeze({ certFile: files[0].trim(), keyFile: files[1].trim(), names: Object.freeze(names) });
}

/** a named certificate read from disk */
export interface SniCertificate {
  readonly cert: string;
  readonly key: string;
  /** explicit names from the flag; empty means the certificate's own names decide */
  readonly names: readonly string[];
  /** where it came from (the certificate file), for error messages */
  readonly source?: string;
}

/** read the --tls-sni-cert-key files; an unreadable or unparsable one is a one-line start-up error naming it */
export function loadSniCertificates(entries: readonly NamedCertKey[]): SniCertificate[] {
  return entries.map((e, i) => {
    const read = (file: string): string => {
      try {
        return fs.readFileSync(file, 'utf8');
      } catch (err) {
        const why = fileErrorWords(err);
        throw new Error(`invalid SNI cert keypair [${i}/"${e.certFile}"]: ${file}: ${why}`, { cause: err });
      }
    };
    const cert = read(e.certFile);
    const key = read(e.keyFile);
    try {
      new X509Certificate(cert);
    } catch (err) {
      throw new Error(`invalid SNI cert keypair [${i}/"${e.certFile}"]: ${e.certFile}: ${(err as Error).message}`, { cause: err });
    }
    return Object.freeze({ cert, key, names: e.names, source: e.certFile });
  });
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function isDnsSubdomain(name: string): boolean {
  return name.length > 0 && name.length <= 253 && name.split('.').every((l) => DNS1123_LABEL.test(l));
}

function isIp(name: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || name.includes(':');
}

/**
 * The names a certificate serves when the flag names none (kube's getCertificateNames): the common
 * name when it is a domain name (never an IP), then the DNS SANs. IP SANs are ignored: SNI never
 * carries an IP.
 */
export function certificateNames(pem: string): string[] {
  const x = new X509Certificate(pem);
  const names: string[] = [];
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(x.subject)?.[1];
  if (cn && !isIp(cn) && (cn === '*' || isDnsSubdomain(cn.replace(/^\*\./, '')))) names.push(cn);
  for (const entry of (x.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:')) names.push(entry.slice(4));
  }
  return names;
}

/**
 * The name-to-certificate table (kube's BuildNamedCertificates): earlier flags win over later ones
 * for the same name, and names given explicitly on a flag win over names read from certificates.
 * Values are indexes into `certs`.
 */
export function namedCertificateIndex(certs: readonly SniCertificate[]): Map<string, number> {
  const fromCerts = new Map<string, number>();
  const explicit = new Map<string, number>();
  for (let i = certs.length - 1; i >= 0; i--) {
    const c = certs[i];
    if (c.names.length > 0) for (const n of c.names) explicit.set(n.toLowerCase(), i);
    else for (const n of certificateNames(c.cert)) fromCerts.set(n.toLowerCase(), i);
  }
  for (const [n, i] of explicit) fromCerts.set(n, i);
  return fromCerts;
}

/**
 * The certificate for a requested server name, as Go's TLS server picks it: an exact name first,
 * then the wildcard for the first label (`a.example.com` -> `*.example.com`); undefined means the
 * default certificate (--tls-cert-file or the generated one).
 */
export function selectNamedCertificate(index: ReadonlyMap<string, number>, serverName: string): number | undefined {
  const name = serverName.toLowerCase().replace(/\.$/, '');
  if (name === '') return undefined;
  const exact = index.get(name);
  if (exact !== undefined) return exact;
  const labels = name.split('.');
  labels[0] = '*';
  return index.get(labels.join('.'));
}

/** what startServer takes from the TLS flags */
export interface ServingTlsPolicy {
  readonly minVersion?: SecureVersion;
  readonly ciphers?: string;
  readonly sniCertificates: readonly SniCertificate[];
}

/** the TLS flags resolved at start: versions and suites mapped, SNI files read (insecure suites reported through `warn`) */
export function servingTlsPolicy(
  flags: { tlsMinVersion?: string; tlsCipherSuites: readonly string[]; tlsSniCertKeys: readonly NamedCertKey[] },
  warn: (message: string) => void,
): ServingTlsPolicy {
  const minVersion = tlsMinVersion(flags.tlsMinVersion);
  let ciphers = tlsCipherList(flags.tlsCipherSuites, warn);
  // OpenSSL 3 refuses TLS 1.0 and 1.1 at its default security level; Go serves them when asked to
  if (minVersion === 'TLSv1' || minVersion === 'TLSv1.1') ciphers = `${ciphers ?? DEFAULT_CIPHERS}:@SECLEVEL=0`;
  if (ciphers && minVersion === 'TLSv1.3') warn('TLS 1.3 cipher suites are not configurable; --tls-cipher-suites has no effect with --tls-min-version=VersionTLS13');
  return Object.freeze({ minVersion, ciphers, sniCertificates: Object.freeze(loadSniCertificates(flags.tlsSniCertKeys)) });
}
