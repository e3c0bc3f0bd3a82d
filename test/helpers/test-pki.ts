/**
 * Throwaway certificates for tests, made with the openssl command line (P-256 keys: fast, unlike
 * RSA generation in JavaScript): a CA, and server or client certificates it signs.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCert {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function key(dir: string, name: string): string {
  const file = path.join(dir, `${name}.key`);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file], dir);
  return file;
}

function read(certFile: string, keyFile: string): TestCert {
  return { cert: fs.readFileSync(certFile, 'utf8'), key: fs.readFileSync(keyFile, 'utf8'), certFile, keyFile };
}

export function makeCa(dir: string, name: string, commonName = `${name}-ca`): TestCert {
  const keyFile = key(dir, name);
  const certFile = path.join(dir, `${name}.crt`);
  openssl(
    ['req', '-x509', '-new', '-key', keyFile, '-subj', `/CN=${commonName}`, '-days', '2', '-out', certFile,
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  return read(certFile, keyFile);
}

export interface LeafOptions {
  commonName: string;
  organization?: string;
  dnsNames?: string[];
  ips?: string[];
  usage: 'server' | 'client';
}

export function makeCert(dir: string, name: string, ca: TestCert, o: LeafOptions): TestCert {
  const keyFile = key(dir, name);
  const csr = path.join(dir, `${name}.csr`);
  const certFile = path.join(dir, `${name}.crt`);
  const ext = path.join(dir, `${name}.ext`);
  const sans = [...(o.dnsNames ?? []).map((d) => `DNS:${d}`), ...(o.ips ?? []).map((i) => `IP:${i}`)];
  fs.writeFileSync(
    ext,
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      `extendedKeyUsage=${o.usage === 'server' ? 'serverAuth' : 'clientAuth'}`,
      ...(sans.length ? [`subjectAltName=${sans.join(',')}`] : []),
    ].join('\n'),
  );
  openssl(['req', '-new', '-key', keyFile, '-subj', `/CN=${o.commonName}${o.organization ? `/O=${o.organization}` : ''}`, '-out', csr], dir);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.certFile, '-CAkey', ca.keyFile, '-CAcreateserial', '-days', '2', '-out', certFile, '-extfile', ext], dir);
  return read(certFile, keyFile);
}

/**
 * a temporary directory (removed at the test's end) holding a server CA and a serving certificate
 * for 127.0.0.1 that it signs: the start of every test that runs its own TLS listener
 */
export function servingPki(t: { teardown(fn: () => void): void }, prefix: string): { dir: string; serverCa: TestCert; serving: TestCert } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const serverCa = makeCa(dir, 'server-ca');
  const serving = makeCert(dir, 'serving', serverCa, { commonName: 'apiserver', ips: ['127.0.0.1'], usage: 'server' });
  return { dir, serverCa, serving };
}
