import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { isNotFound } from '../../src/client/errors';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RestClient } from '../../src/client/rest-client';
import { RESOURCES } from '../../src/client/resources';
import type { KubeObject } from '../../src/client/types';
import { APPROVAL_MESSAGE } from '../../src/controllers/certificates/csr-approving';
import { cleanupReason, csrCleaner } from '../../src/controllers/certificates/csr-cleaner';
import { issueCertificate, parseUsages } from '../../src/controllers/certificates/issue-certificate';
import type { CertificateRequest } from '../../src/api/kinds/certificates/csr-request';
import { signingPairs } from '../../src/controllers/certificates/csr-signing';
import { signerRefusal } from '../../src/controllers/certificates/signer-checks';
import { startApiServer, tempDir, waitFor } from '../e2e/harness';
import { startControllers } from '../helpers/controllers';
import { b64, ecdsaCsr, rsaCsr } from '../helpers/csr';
import { makeCa, makeCert } from '../helpers/test-pki';

const CLIENT_USAGES = ['digital signature', 'key encipherment', 'client auth'];

// kube's API server records the requestor in spec.username/groups; Ballast's keeps them as sent
// (it does not fill them yet), so the requests carry the identity of the client that sends them
const NODE1 = { username: 'system:node:node1', groups: ['system:nodes', 'system:authenticated'] };

const csrObject = (name: string, request: string, signerName: string, usages = CLIENT_USAGES, requestor: object = NODE1): KubeObject => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name },
  spec: { request: b64(request), signerName, usages, ...requestor },
});

const pemToDer = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');

t.test('issued certificates: subject, key, SANs and usages of the request, signed by the CA', async (t) => {
  const dir = tempDir(t, 'csr-unit');
  const ca = makeCa(dir, 'unit');
  const pem = issueCertificate({
    csrDer: pemToDer(rsaCsr({ commonName: 'svc', organizations: ['team'], dnsNames: ['svc.example.com'], ips: ['10.0.0.1'] })),
    usages: ['digital signature', 'server auth'],
    ttlMs: 3600_000,
    signer: { certPem: ca.cert, keyPem: ca.key },
  });
  const cert = new crypto.X509Certificate(pem);
  t.ok(cert.verify(new crypto.X509Certificate(ca.cert).publicKey), 'signed by the CA');
  t.ok(cert.checkIssued(new crypto.X509Certificate(ca.cert)), 'issued by the CA');
  t.match(cert.subject, /CN=svc/);
  t.match(cert.subject, /O=team/);
  t.match(cert.subjectAltName ?? '', /DNS:svc\.example\.com/);
  t.match(cert.subjectAltName ?? '', /IP Address:10\.0\.0\.1/);
  t.same(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  t.notOk(cert.ca);
  const life = Date.parse(cert.validTo) - Date.parse(cert.validFrom);
  t.ok(Math.abs(life - 3600_000 - 300_000) < 2000, 'one hour, backdated five minutes');
  t.throws(() => parseUsages(['bogus']), /unrecognized usage: bogus/);
});

t.test('what each signer refuses, in kube\'s words', async (t) => {
  const req = (o: Partial<CertificateRequest>): CertificateRequest =>
    ({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: [], emailAddresses: [], ipAddresses: [], uris: [], ...o }) as CertificateRequest;
  const kubelet = 'kubernetes.io/kube-apiserver-client-kubelet';
  t.equal(signerRefusal(kubelet, req({}), CLIENT_USAGES), '');
  t.equal(signerRefusal(kubelet, req({ organizations: ['x'] }), CLIENT_USAGES), 'subject organization is not system:nodes');
  t.equal(signerRefusal(kubelet, req({ dnsNames: ['a'] }), CLIENT_USAGES), 'DNS subjectAltNames are not allowed');
  t.equal(signerRefusal(kubelet, req({ commonName: 'bob' }), CLIENT_USAGES), 'subject common name does not begin with system:node:');
  t.equal(signerRefusal(kubelet, req({}), ['client auth']), 'usages did not match [digital signature key encipherment client auth]');
  const serving = 'kubernetes.io/kubelet-serving';
  t.equal(signerRefusal(serving, req({}), ['digital signature', 'key encipherment', 'server auth']), 'DNS or IP subjectAltName is required');
  t.equal(signerRefusal(serving, req({ ipAddresses: ['10.0.0.1'] }), ['key encipherment', 'server auth', 'digital signature']), '');
  const client = 'kubernetes.io/kube-apiserver-client';
  t.equal(signerRefusal(client, req({ commonName: 'jane' }), ['client auth']), '');
  t.equal(signerRefusal(client, req({}), ['digital signature']), 'missing required usage for client certificate: client auth');
  t.equal(signerRefusal('kubernetes.io/legacy-unknown', req({}), ['server auth']), '');
});

t.test('the signing pair of each signer: its own, else the general one', async (t) => {
  const dir = tempDir(t, 'csr-pairs');
  const general = makeCa(dir, 'general');
  const serving = makeCa(dir, 'serving');
  const pairs = signingPairs({ certFile: general.certFile, keyFile: general.keyFile, durationMs: 1, signers: { 'kubelet-serving': { certFile: serving.certFile, keyFile: serving.keyFile } } });
  t.equal(pairs.get('kubernetes.io/kubelet-serving')?.certPem, serving.cert);
  t.equal(pairs.get('kubernetes.io/kube-apiserver-client')?.certPem, general.cert);
  t.equal(pairs.get('kubernetes.io/legacy-unknown')?.certPem, general.cert);
  t.equal(signingPairs({ durationMs: 1, signers: { 'kubelet-client': { certFile: serving.certFile, keyFile: serving.keyFile } } }).size, 1, 'only the signers with a pair');
});

t.test('the cleaner\'s deadlines', async (t) => {
  const limits = { approvedExpirationMs: 3600_000, deniedExpirationMs: 3600_000, pendingExpirationMs: 24 * 3600_000 };
  const at = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
  const pending = (h: number) => ({ metadata: { creationTimestamp: at(h) } });
  t.equal(cleanupReason(pending(1), Date.now(), limits), '');
  t.equal(cleanupReason(pending(25), Date.now(), limits), 'pending past deadline');
  const denied = (h: number) => ({ metadata: { creationTimestamp: at(h) }, status: { conditions: [{ type: 'Denied', status: 'True', lastUpdateTime: at(h) }] } });
  t.equal(cleanupReason(denied(0.5), Date.now(), limits), '');
  t.equal(cleanupReason(denied(2), Date.now(), limits), 'denied past deadline');
  const approvedUnissued = { metadata: { creationTimestamp: at(5) }, status: { conditions: [{ type: 'Approved', status: 'True', lastUpdateTime: at(5) }] } };
  t.equal(cleanupReason(approvedUnissued, Date.now(), limits), '', 'approved but not issued yet stays');
});

t.test('kubelet client CSRs: approved after a SubjectAccessReview, signed; others pending or failed; old ones cleaned', async (t) => {
  const server = await startApiServer(t, { args: ['--authorization-mode', 'Node,RBAC'] });
  const dir = tempDir(t, 'csr');
  const signer = makeCa(dir, 'signer');
  const { client, stop } = startControllers(t, server, ['csrapproving', 'csrsigning'], {
    clusterSigning: { certFile: signer.certFile, keyFile: signer.keyFile, durationMs: 2 * 3600_000, signers: {} },
  });
  // kubeadm's bindings: nodes may ask for certificates and renew their own client certificate
  for (const [name, role] of [
    ['nodes-create-csrs', 'system:node-bootstrapper'],
    ['nodes-renew-client', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient'],
  ]) {
    await client.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:nodes' }],
      },
    });
  }
  const pki = path.join(server.dataDir, 'pki');
  const serverCa = { certFile: path.join(pki, 'ca.crt'), keyFile: path.join(pki, 'ca.key'), cert: '', key: '' };
  const node = makeCert(dir, 'node1', serverCa, { commonName: 'system:node:node1', organization: 'system:nodes', usage: 'client' });
  const admin = loadClientConfig(server.kubeconfig);
  const nodeClient = new RestClient({ server: admin.server, ca: admin.ca, cert: node.cert, key: node.key }, { qps: -1 });
  t.teardown(() => nodeClient.close());

  await nodeClient.create(RESOURCES.certificateSigningRequests, undefined, csrObject('node1-client', ecdsaCsr('system:node:node1', 'system:nodes'), 'kubernetes.io/kube-apiserver-client-kubelet'));
  // not its own name, and nodes may not ask for others' client certificates
  await nodeClient.create(RESOURCES.certificateSigningRequests, undefined, csrObject('node2-client', ecdsaCsr('system:node:node2', 'system:nodes'), 'kubernetes.io/kube-apiserver-client-kubelet'));

  const get = (name: string) => client.get(RESOURCES.certificateSigningRequests, undefined, name);
  const issued = await waitFor('the certificate of node1', async () => ((await get('node1-client')).status as { certificate?: string })?.certificate);
  const approved = (await get('node1-client')).status as { conditions: { type: string; reason: string; message: string }[] };
  t.match(approved.conditions, [{ type: 'Approved', reason: 'AutoApproved', message: APPROVAL_MESSAGE }]);
  const cert = new crypto.X509Certificate(Buffer.from(issued, 'base64').toString());
  t.ok(cert.verify(new crypto.X509Certificate(signer.cert).publicKey), 'signed with the cluster signing pair');
  t.match(cert.subject, /CN=system:node:node1/);
  t.same(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'client auth');
  t.ok(Math.abs(Date.parse(cert.validTo) - Date.now() - 2 * 3600_000) < 60_000, '--cluster-signing-duration');

  // an approved request its signer refuses fails
  await client.create(RESOURCES.certificateSigningRequests, undefined, csrObject('bad-usage', rsaCsr({ commonName: 'jane' }), 'kubernetes.io/kube-apiserver-client', ['digital signature', 'server auth'], { username: 'ballast-admin', groups: ['system:masters'] }));
  const bad = await get('bad-usage');
  await client.update(RESOURCES.certificateSigningRequests, { ...bad, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } }, 'approval');
  const failed = await waitFor('the Failed condition', async () => ((await get('bad-usage')).status as { conditions?: { type: string; reason: string; message: string }[] })?.conditions?.find((c) => c.type === 'Failed'));
  t.equal(failed.reason, 'SignerValidationFailure');
  t.equal(failed.message, 'invalid usage for client certificate: server auth');

  // spec.expirationSeconds shortens the lifetime
  const short = csrObject('short-lived', rsaCsr({ commonName: 'jane', organizations: ['devs'] }), 'kubernetes.io/kube-apiserver-client', ['client auth'], { username: 'ballast-admin', groups: ['system:masters'] });
  (short.spec as Record<string, unknown>).expirationSeconds = 1200;
  await client.create(RESOURCES.certificateSigningRequests, undefined, short);
  await client.update(RESOURCES.certificateSigningRequests, { ...(await get('short-lived')), status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } }, 'approval');
  const shortPem = await waitFor('the short-lived certificate', async () => ((await get('short-lived')).status as { certificate?: string })?.certificate);
  const shortCert = new crypto.X509Certificate(Buffer.from(shortPem, 'base64').toString());
  t.ok(Math.abs(Date.parse(shortCert.validTo) - Date.now() - 1200_000) < 60_000, 'twenty minutes');
  t.match(shortCert.subject, /O=devs/);

  const pending = await get('node2-client');
  t.notOk((pending.status as { conditions?: unknown[] } | undefined)?.conditions?.length, 'node2\'s request stays pending');
  await stop();

  // the cleaner, a day later: the pending request and the issued one go
  startControllers(t, server, [csrCleaner({ now: () => Date.now() + 25 * 3600_000, pollIntervalMs: 200 })]);
  const gone = (name: string) => get(name).then(() => false, (err: unknown) => isNotFound(err));
  await waitFor('the old requests deleted', async () => (await gone('node2-client')) && (await gone('node1-client')) && (await gone('bad-usage')) && (await gone('short-lived')));
  t.pass('cleaned');
  fs.rmSync(dir, { recursive: true, force: true });
});
