import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import t from 'tap';
import type { Test } from 'tap';
import yaml from 'js-yaml';
import { ensureAdminClientPki, ensureClientPki, ensureServingPki, PKI_FILES } from '../../src/server/pki';
import { renderKubeconfig, serverUrl } from '../../src/server/kubeconfig';

const logger = pino({ level: 'silent' });

function tmpDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-pki-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** complete a TLS handshake against the pair, trusting only the CA, for the given server name */
async function handshake(pki: { certChain: string; key: string; caCert: string }, servername: string, host = '127.0.0.1'): Promise<void> {
  const server = tls.createServer({ cert: pki.certChain, key: pki.key }, (s) => s.end());
  await new Promise<void>((r) => server.listen(0, host, r));
  const { port } = server.address() as AddressInfo;
  try {
    await new Promise<void>((resolve, reject) => {
      const s = tls.connect({ host, port, ca: pki.caCert, servername }, () => {
        s.destroy();
        resolve();
      });
      s.on('error', reject);
    });
  } finally {
    server.close();
  }
}

t.test('generates a CA and a serving certificate that verify for the requested names', async (t) => {
  const certDir = path.join(tmpDir(t), 'pki');
  const pki = ensureServingPki({ certDir, dnsNames: ['localhost', 'kubernetes'], ips: ['127.0.0.1', '::1'], logger });
  for (const f of [PKI_FILES.caCert, PKI_FILES.caKey, PKI_FILES.cert, PKI_FILES.key]) t.ok(fs.existsSync(path.join(certDir, f)), f);
  t.equal(fs.statSync(path.join(certDir, PKI_FILES.key)).mode & 0o777, 0o600);
  const cert = new crypto.X509Certificate(pki.certChain);
  t.ok(cert.verify(new crypto.X509Certificate(pki.caCert).publicKey));
  t.equal(cert.checkHost('kubernetes'), 'kubernetes');
  t.equal(cert.checkIP('::1'), '::1');
  t.equal(cert.ca, false);
  t.equal(new crypto.X509Certificate(pki.caCert).ca, true);
  await handshake(pki, 'localhost');
  await t.rejects(handshake(pki, 'elsewhere.example'), /altnames|Hostname/i);
});

t.test('reuses the pair on the next start, re-issuing only when names change', async (t) => {
  const certDir = tmpDir(t);
  const first = ensureServingPki({ certDir, dnsNames: ['localhost'], ips: ['127.0.0.1'], logger });
  const again = ensureServingPki({ certDir, dnsNames: ['localhost'], ips: ['127.0.0.1'], logger });
  t.equal(again.certChain, first.certChain);
  t.equal(again.key, first.key);
  const wider = ensureServingPki({ certDir, dnsNames: ['localhost'], ips: ['127.0.0.1', '10.1.2.3'], logger });
  t.not(wider.certChain, first.certChain, 're-issued for the new address');
  t.equal(wider.caCert, first.caCert, 'same CA, so existing kubeconfigs keep working');
  t.equal(new crypto.X509Certificate(wider.certChain).checkIP('10.1.2.3'), '10.1.2.3');
});

t.test('the admin client certificate is signed by the same CA, for client auth, as system:masters', async (t) => {
  const certDir = tmpDir(t);
  const serving = ensureServingPki({ certDir, dnsNames: ['localhost'], ips: ['127.0.0.1'], logger });
  const admin = ensureAdminClientPki({ certDir, logger });
  const cert = new crypto.X509Certificate(admin.cert);
  t.ok(cert.verify(new crypto.X509Certificate(serving.caCert).publicKey));
  t.match(cert.subject, /O=system:masters/);
  t.match(cert.subject, /CN=ballast-admin/);
  t.same(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'clientAuth only');
  t.equal(ensureAdminClientPki({ certDir, logger }).cert, admin.cert, 'reused');
  // the CA subject must be a plain UTF8String/PrintableString-safe name (Go's x509 is strict)
  t.match(new crypto.X509Certificate(serving.caCert).subject, /^CN=ballast-ca-\d+$/);
});

t.test('the kubeconfig trusts the CA, points at the server and selects context ballast', async (t) => {
  const doc = yaml.load(renderKubeconfig({ server: 'https://127.0.0.1:6443', caCert: 'PEM', client: { cert: 'CERT', key: 'KEY' } })) as {
    clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
    users: { name: string; user: Record<string, string> }[];
    contexts: { name: string; context: { cluster: string; user: string } }[];
    'current-context': string;
  };
  t.equal(doc.clusters[0].cluster.server, 'https://127.0.0.1:6443');
  t.equal(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), 'PEM');
  t.equal(Buffer.from(doc.users[0].user['client-certificate-data'], 'base64').toString(), 'CERT');
  t.equal(Buffer.from(doc.users[0].user['client-key-data'], 'base64').toString(), 'KEY');
  t.equal(doc['current-context'], 'ballast');
  t.equal(doc.contexts[0].name, 'ballast');
});

t.test('serverUrl uses loopback for wildcard binds and brackets IPv6', async (t) => {
  t.equal(serverUrl('0.0.0.0', 6443), 'https://127.0.0.1:6443');
  t.equal(serverUrl('::', 6443), 'https://127.0.0.1:6443');
  t.equal(serverUrl('192.168.1.5', 7000), 'https://192.168.1.5:7000');
  t.equal(serverUrl('::1', 7000), 'https://[::1]:7000');
});

t.test('component client certificates carry kube identities and are kept across calls', async (t) => {
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-pki-components-'));
  t.teardown(() => fs.rmSync(certDir, { recursive: true, force: true }));
  const logger = pino({ level: 'silent' });
  const node = ensureClientPki({ certDir, logger, name: 'kubelet', subject: { commonName: 'system:node:n1', organization: 'system:nodes' } });
  t.same(new crypto.X509Certificate(node.cert).subject.split('\n').sort(), ['CN=system:node:n1', 'O=system:nodes']);
  t.equal(ensureClientPki({ certDir, logger, name: 'kubelet', subject: { commonName: 'system:node:n1', organization: 'system:nodes' } }).cert, node.cert, 'reused');
  const renamed = ensureClientPki({ certDir, logger, name: 'kubelet', subject: { commonName: 'system:node:n2', organization: 'system:nodes' } });
  t.not(renamed.cert, node.cert, 'a new identity gets a new certificate');
  const cm = ensureClientPki({ certDir, logger, name: 'controller-manager', subject: { commonName: 'system:kube-controller-manager' } });
  t.same(new crypto.X509Certificate(cm.cert).subject, 'CN=system:kube-controller-manager');
});
