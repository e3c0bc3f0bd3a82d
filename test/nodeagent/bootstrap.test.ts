/**
 * TLS bootstrapping without an API server: the request's content (subject, key, signature, SANs,
 * what kube's csrapproving accepts), the digested name, the store's file layout, and
 * bootstrapClientCertificate against a fake CSR API: the kubeconfig it writes, a valid one left
 * alone, an expired one replaced, the same request found again after a restart, a denial.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import pino from 'pino';
import t, { type Test } from 'tap';
import { checkSignature, firstPemBlock, parseCertificateRequest } from '../../src/api/kinds/certificates/csr-request';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { kubeletClientRefusal } from '../../src/controllers/certificates/signer-checks';
import { bootstrapClientCertificate, KUBELET_CLIENT_USAGES, kubeconfigStillValid } from '../../src/nodeagent/certificate/bootstrap';
import { digestedName, makeCertificateRequest, newPrivateKeyPem } from '../../src/nodeagent/certificate/certificate-request';
import { CertificateStore } from '../../src/nodeagent/certificate/certificate-store';
import { validateObjectMeta } from '../../src/api/validation/object-meta';
import { kind } from '../api/kinds/helpers';
import { makeCa } from '../helpers/test-pki';
import { FakeCsrApi } from './bootstrap-fakes';

const logger = pino({ level: 'silent' });

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-bootstrap-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const parse = (pem: string) => parseCertificateRequest(firstPemBlock(Buffer.from(pem))!.der);

t.test('the client request: subject, ECDSA P-256 key, signature, accepted by the kubelet-client rules', async (t) => {
  const keyPem = newPrivateKeyPem();
  t.match(keyPem, /^-----BEGIN EC PRIVATE KEY-----/, 'a SEC 1 key as client-go writes it');
  const key = crypto.createPrivateKey(keyPem);
  t.equal(key.asymmetricKeyType, 'ec');
  t.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
  const pem = makeCertificateRequest(keyPem, { commonName: 'system:node:n1', organizations: ['system:nodes'] });
  t.match(pem, /^-----BEGIN CERTIFICATE REQUEST-----\n/);
  const req = parse(pem);
  t.equal(req.commonName, 'system:node:n1');
  t.same(req.organizations, ['system:nodes']);
  t.same(req.dnsNames, []);
  t.equal(req.signatureAlgorithm, '1.2.840.10045.4.3.2', 'ecdsa-with-SHA256');
  t.equal(checkSignature(req), '', 'signed by its own key');
  t.ok(req.publicKey.equals(crypto.createPublicKey(key).export({ type: 'spki', format: 'der' })), 'the key of the request is the new key');
  t.equal(kubeletClientRefusal(req, [...KUBELET_CLIENT_USAGES]), '', "kube's ValidateKubeletClientCSR accepts it");
  // openssl reads it too
  const dir = tmp(t);
  fs.writeFileSync(path.join(dir, 'r.csr'), pem);
  const text = execFileSync('openssl', ['req', '-in', path.join(dir, 'r.csr'), '-noout', '-verify', '-subject'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  t.match(text, /O\s*=\s*system:nodes, CN\s*=\s*system:node:n1/, 'organization first, then the common name');
});

t.test('the serving request carries the DNS names and IPs', async (t) => {
  const req = parse(makeCertificateRequest(newPrivateKeyPem(), { commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1', 'n1.example'], ipAddresses: ['10.0.0.7'] }));
  t.same(req.dnsNames, ['n1', 'n1.example']);
  t.same(req.ipAddresses, ['10.0.0.7']);
  t.equal(checkSignature(req), '');
});

t.test('the digested name is stable for a key and differs between keys', async (t) => {
  const template = { commonName: 'system:node:n1', organizations: ['system:nodes'] };
  const a = newPrivateKeyPem();
  const name = digestedName(a, template, KUBELET_CLIENT_USAGES);
  t.match(name, /^node-csr-[A-Za-z0-9_-]{43}$/, 'node-csr- and 32 bytes of SHA-512/256 in unpadded base64url');
  t.equal(digestedName(a, template, KUBELET_CLIENT_USAGES), name);
  t.not(digestedName(newPrivateKeyPem(), template, KUBELET_CLIENT_USAGES), name);
  t.not(digestedName(a, { ...template, commonName: 'system:node:n2' }, KUBELET_CLIENT_USAGES), name);
});

t.test('the API server accepts the digested name (kube validates no CSR name)', async (t) => {
  const name = 'node-csr-KbZD7d2KuKI9-4Vv_Sf9-kZmPokZOYso88QW9ELBb4o';
  for (const version of ['v1', 'v1beta1']) {
    const def = kind('certificates.k8s.io', version, 'CertificateSigningRequest');
    t.same(validateObjectMeta({ name }, { namespaced: false, nameValidation: def.nameValidation, isCreate: true }), [], version);
  }
});

t.test('the store: one timestamped file per pair, the current link moved atomically', async (t) => {
  const dir = tmp(t);
  const ca = makeCa(dir, 'ca');
  const api = new FakeCsrApi({ certPem: ca.cert, keyPem: ca.key });
  const issue = async (keyPem: string) => {
    const made = await api.create({} as never, undefined, { metadata: { generateName: 'csr-' }, spec: { request: Buffer.from(makeCertificateRequest(keyPem, { commonName: 'system:node:n1', organizations: ['system:nodes'] })).toString('base64'), usages: ['client auth'] } });
    const got = (await api.get({} as never, undefined, made.metadata!.name!)) as { status: { certificate: string } };
    return Buffer.from(got.status.certificate, 'base64').toString();
  };
  let now = new Date(2024, 0, 2, 3, 4, 5).getTime();
  const certDir = path.join(dir, 'pki');
  const store = new CertificateStore({ dir: certDir, prefix: 'kubelet-client', now: () => now });
  t.equal(store.current(), undefined, 'nothing yet');
  const key1 = newPrivateKeyPem();
  const first = store.update(await issue(key1), key1);
  t.equal(first.leaf.subject, 'O=system:nodes\nCN=system:node:n1');
  const file1 = path.join(certDir, 'kubelet-client-2024-01-02-03-04-05.pem');
  t.ok(fs.existsSync(file1), 'kubelet-client-<YYYY-MM-DD-HH-MM-SS>.pem');
  t.equal(fs.statSync(file1).mode & 0o777, 0o600);
  const text = fs.readFileSync(file1, 'utf8');
  t.match(text, /^-----BEGIN CERTIFICATE-----[\s\S]*-----BEGIN EC PRIVATE KEY-----/, 'the certificate, then the key');
  t.equal(fs.readlinkSync(store.currentPath), file1);
  t.equal(path.basename(store.currentPath), 'kubelet-client-current.pem');
  now += 61_000;
  const key2 = newPrivateKeyPem();
  store.update(await issue(key2), key2);
  t.equal(fs.readlinkSync(store.currentPath), path.join(certDir, 'kubelet-client-2024-01-02-03-05-06.pem'), 'the link follows the newest pair');
  t.equal(store.current()?.keyPem.trim(), key2.trim());
  t.notOk(fs.existsSync(path.join(certDir, 'kubelet-client-updated.pem')), 'the staging link is renamed over the current one');
  const third = await issue(key2);
  t.throws(() => store.update(third, key1), /does not match/, 'a key that is not the certificate\'s is refused');
});

interface Setup {
  dir: string;
  api: FakeCsrApi;
  kubeconfig: string;
  bootstrapKubeconfig: string;
  certDir: string;
}

function setup(t: Test): Setup {
  const dir = tmp(t);
  const ca = makeCa(dir, 'ca');
  const api = new FakeCsrApi({ certPem: ca.cert, keyPem: ca.key });
  const bootstrapKubeconfig = path.join(dir, 'bootstrap.kubeconfig');
  fs.writeFileSync(
    bootstrapKubeconfig,
    yaml.dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority': ca.certFile } }],
      users: [{ name: 'u', user: { token: 'abcdef.0123456789abcdef' } }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'x',
    }),
  );
  return { dir, api, kubeconfig: path.join(dir, 'node', 'kubelet.kubeconfig'), bootstrapKubeconfig, certDir: path.join(dir, 'pki') };
}

const run = (s: Setup, extra: Partial<Parameters<typeof bootstrapClientCertificate>[0]> = {}) =>
  bootstrapClientCertificate({
    kubeconfigPath: s.kubeconfig,
    bootstrapKubeconfigPath: s.bootstrapKubeconfig,
    certDir: s.certDir,
    nodeName: 'n1',
    logger,
    clientFor: () => s.api,
    pollMs: 5,
    ...extra,
  });

t.test('bootstrap: a CSR with the bootstrap credentials, then a kubeconfig naming the issued pair', async (t) => {
  const s = setup(t);
  t.equal(await run(s), 'issued');
  t.equal(s.api.created.length, 1);
  const csr = s.api.created[0];
  t.equal(csr.apiVersion, 'certificates.k8s.io/v1');
  t.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
  t.same(csr.spec.usages, ['digital signature', 'key encipherment', 'client auth']);
  t.match(csr.metadata.name, /^node-csr-/);
  const req = parse(Buffer.from(csr.spec.request, 'base64').toString());
  t.equal(req.commonName, 'system:node:n1');
  t.same(req.organizations, ['system:nodes']);

  const doc = yaml.load(fs.readFileSync(s.kubeconfig, 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  const current = path.join(s.certDir, 'kubelet-client-current.pem');
  t.same(doc.users, [{ name: 'default-auth', user: { 'client-certificate': current, 'client-key': current } }]);
  t.equal(doc['current-context'], 'default-context');
  t.equal(doc.clusters[0].cluster.server, 'https://127.0.0.1:6443', "the bootstrap kubeconfig's server");
  const config = loadClientConfig(s.kubeconfig);
  const bootstrap = loadClientConfig(s.bootstrapKubeconfig);
  t.equal(config.ca, bootstrap.ca, "and its CA");
  t.equal(config.token, undefined, 'no bootstrap token in the node kubeconfig');
  t.equal(new crypto.X509Certificate(config.cert!).subject, 'O=system:nodes\nCN=system:node:n1');
  t.ok(new crypto.X509Certificate(config.cert!).checkPrivateKey(crypto.createPrivateKey(config.key!)), 'the key is the one asked with');
  t.notOk(fs.existsSync(path.join(s.certDir, 'kubelet-client.key.tmp')), 'the temporary key is gone');

  t.equal(await run(s), 'valid', 'a valid kubeconfig is left alone');
  t.equal(s.api.created.length, 1, 'no second request');
});

t.test('bootstrap: an expired client certificate is replaced', async (t) => {
  const s = setup(t);
  s.api.ttlMs = 60_000;
  await run(s);
  const later = Date.now() + 3600_000;
  t.notOk(kubeconfigStillValid(s.kubeconfig, later), 'expired an hour later');
  s.api.now = () => later;
  t.equal(await run(s, { now: () => later }), 'issued');
  t.equal(s.api.created.length, 2);
});

t.test('bootstrap: after a restart the same key asks under the same name and takes the pending request', async (t) => {
  const s = setup(t);
  s.api.decide = () => 'pending';
  const abort = new AbortController();
  const first = run(s, { signal: abort.signal });
  while (s.api.created.length === 0) await new Promise((r) => setTimeout(r, 5));
  abort.abort();
  await t.rejects(first, /stopped while waiting/);
  t.ok(fs.existsSync(path.join(s.certDir, 'kubelet-client.key.tmp')), 'the key is kept for the next try');
  s.api.decide = () => 'approve';
  t.equal(await run(s), 'issued', 'the restarted agent gets the certificate of its first request');
  t.equal(s.api.created.length, 1, 'no new request: AlreadyExists, and the existing one is compatible');
});

t.test('bootstrap: a denied or failed request is an error with kube\'s message', async (t) => {
  const s = setup(t);
  s.api.decide = () => 'deny';
  await t.rejects(run(s), /certificate signing request is denied, reason: NotMine, message: go away/);
  const s2 = setup(t);
  s2.api.decide = () => 'fail';
  await t.rejects(run(s2), /certificate signing request failed, reason: SignerValidationFailure/);
  t.notOk(fs.existsSync(s.kubeconfig), 'no kubeconfig written');
});
