/** the TLS flag mappings and kube's SNI certificate precedence (src/server/tls-options.ts) */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import {
  certificateNames,
  namedCertificateIndex,
  parseNamedCertKey,
  selectNamedCertificate,
  tlsCipherList,
  tlsMinVersion,
} from '../../src/server/tls-options';
import { FlagError } from '../../src/options/types';

function certFor(cn: string, sans: string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-sni-'));
  try {
    const ext = sans.length > 0 ? ['-addext', `subjectAltName=${sans.join(',')}`] : [];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', `/CN=${cn}`, ...ext,
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
    return fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

t.test('--tls-min-version maps Go names to OpenSSL names', async (t) => {
  t.equal(tlsMinVersion('VersionTLS10'), 'TLSv1');
  t.equal(tlsMinVersion('VersionTLS11'), 'TLSv1.1');
  t.equal(tlsMinVersion('VersionTLS12'), 'TLSv1.2');
  t.equal(tlsMinVersion('VersionTLS13'), 'TLSv1.3');
  t.equal(tlsMinVersion(''), undefined, 'empty keeps the default');
  t.throws(() => tlsMinVersion('TLS12'), { message: 'unknown tls version "TLS12"' });
});

t.test('--tls-cipher-suites maps IANA names to OpenSSL names', async (t) => {
  const warnings: string[] = [];
  const list = tlsCipherList(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_RSA_WITH_AES_256_CBC_SHA', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305'], (m) => warnings.push(m));
  t.equal(list, 'ECDHE-RSA-AES128-GCM-SHA256:AES256-SHA:ECDHE-ECDSA-CHACHA20-POLY1305:TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256');
  t.same(warnings, [], 'secure suites are not reported');
  t.equal(tlsCipherList([]), undefined, 'empty keeps the defaults');

  tlsCipherList(['TLS_RSA_WITH_RC4_128_SHA', 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256'], (m) => warnings.push(m));
  t.same(warnings, ["Use of insecure cipher 'TLS_RSA_WITH_RC4_128_SHA' detected.", "Use of insecure cipher 'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256' detected."]);

  t.throws(() => tlsCipherList(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_FOO']), new FlagError("Cipher suite TLS_FOO not supported or doesn't exist"));
});

t.test('--tls-sni-cert-key values parse as kube parses them', async (t) => {
  t.same(parseNamedCertKey('a.crt,a.key'), { certFile: 'a.crt', keyFile: 'a.key', names: [] });
  t.same(parseNamedCertKey(' a.crt , a.key :*.example.com, example.com'), { certFile: 'a.crt', keyFile: 'a.key', names: ['*.example.com', 'example.com'] });
  t.throws(() => parseNamedCertKey('a.crt'), { message: 'invalid argument "a.crt" for "--tls-sni-cert-key" flag: expected comma separated certificate and key file paths' });
  t.throws(() => parseNamedCertKey('a.crt,a.key:'), { message: /empty names list is not allowed/ });
});

t.test("a certificate's names: a domain CN and the DNS SANs, never IPs", async (t) => {
  t.same(certificateNames(certFor('api.example.com', ['DNS:alt.example.com', 'IP:10.0.0.1'])), ['api.example.com', 'alt.example.com']);
  t.same(certificateNames(certFor('10.0.0.1', ['DNS:only.example.com'])), ['only.example.com'], 'an IP common name is not a name');
  t.same(certificateNames(certFor('not a domain', [])), [], 'neither is free text');
});

t.test("SNI selection follows kube's precedence", async (t) => {
  const a = certFor('a.example.com', ['DNS:a.example.com', 'DNS:*.wild.example.com']);
  const b = certFor('b.example.com', ['DNS:b.example.com', 'DNS:a.example.com']);
  const c = certFor('c.example.com', []);
  const certs = [
    { cert: a, key: '', names: [] },
    { cert: b, key: '', names: [] },
    // explicit names beat names read from certificates
    { cert: c, key: '', names: ['b.example.com', 'exact.wild.example.com'] },
  ];
  const index = namedCertificateIndex(certs);
  t.equal(selectNamedCertificate(index, 'a.example.com'), 0, 'the earlier flag wins for a name two certificates carry');
  t.equal(selectNamedCertificate(index, 'B.Example.com'), 2, 'an explicit name beats the certificate names (case-insensitive)');
  t.equal(selectNamedCertificate(index, 'x.wild.example.com'), 0, 'a wildcard covers one label');
  t.equal(selectNamedCertificate(index, 'exact.wild.example.com'), 2, 'an exact name beats a wildcard');
  t.equal(selectNamedCertificate(index, 'deep.x.wild.example.com'), undefined, 'a wildcard covers only the first label');
  t.equal(selectNamedCertificate(index, 'c.example.com'), undefined, "a certificate with explicit names doesn't serve its own");
  t.equal(selectNamedCertificate(index, 'other.test'), undefined, 'no match: the default certificate');

  const later = namedCertificateIndex([{ cert: a, key: '', names: ['x.test'] }, { cert: b, key: '', names: ['x.test'] }]);
  t.equal(selectNamedCertificate(later, 'x.test'), 0, 'the earlier flag wins among explicit names too');
});
