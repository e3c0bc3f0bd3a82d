/**
 * Certificate rotation with a fake clock and a fake CSR API: the deadline at 70-90 % of the
 * lifetime, a new key and request at the deadline, the store's link moved and the listeners told,
 * at once without a pair or when the pair no longer matches its template, kube's back-off after
 * failures; the REST client switching to a new client certificate (its old connections closed);
 * the agent's HTTPS server refusing handshakes until its serving certificate comes.
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { Registry } from 'prom-client';
import pino from 'pino';
import t, { type Test } from 'tap';
import { firstPemBlock, parseCertificateRequest } from '../../src/api/kinds/certificates/csr-request';
import { RestClient } from '../../src/client/rest-client';
import { KUBELET_CLIENT_SIGNER, KUBELET_CLIENT_USAGES, nodeClientTemplate } from '../../src/nodeagent/certificate/bootstrap';
import { CertificateManager, REAL_CLOCK, rotationDeadline } from '../../src/nodeagent/certificate/certificate-manager';
import { CertificateStore, type StoredPair } from '../../src/nodeagent/certificate/certificate-store';
import { makeCertificateRequest, newPrivateKeyPem, type CertificateTemplate } from '../../src/nodeagent/certificate/certificate-request';
import { servingCertificates } from '../../src/nodeagent/certificate/serving-certificate';
import { startAgentServer } from '../../src/nodeagent/server/agent-server';
import { makeCa, makeCert } from '../helpers/test-pki';
import { FakeClock, FakeCsrApi, until } from './bootstrap-fakes';

const logger = pino({ level: 'silent' });

function tmp(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ballast-rotation-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('the rotation deadline lies between 70 % and 90 % of the lifetime', async (t) => {
  t.equal(rotationDeadline(1000, 2000, 0), 1700);
  t.equal(rotationDeadline(1000, 2000, 0.5), 1800);
  t.ok(rotationDeadline(1000, 2000, 0.9999) < 1900);
});

t.test('the real clock waits months when asked (beyond what one timer holds)', async (t) => {
  const abort = new AbortController();
  let done = false;
  const wait = REAL_CLOCK.sleep(300 * 24 * 3600_000, abort.signal).then(() => (done = true));
  await new Promise((r) => setTimeout(r, 100));
  t.notOk(done, 'still waiting');
  abort.abort();
  await wait;
  t.ok(done, 'ends when stopped');
});

interface Rig {
  api: FakeCsrApi;
  clock: FakeClock;
  store: CertificateStore;
  certDir: string;
  /** a pair the fake API issued at the clock's time */
  issue(template?: CertificateTemplate): Promise<StoredPair>;
  manager(template?: () => CertificateTemplate | undefined): { manager: CertificateManager; rotated: StoredPair[] };
}

function rig(t: Test): Rig {
  const dir = tmp(t);
  const ca = makeCa(dir, 'ca');
  const clock = new FakeClock(Date.now());
  const api = new FakeCsrApi({ certPem: ca.cert, keyPem: ca.key });
  api.now = () => clock.now();
  const certDir = path.join(dir, 'pki');
  const store = new CertificateStore({ dir: certDir, prefix: 'kubelet-client', now: () => clock.now() });
  return {
    api,
    clock,
    store,
    certDir,
    async issue(template = nodeClientTemplate('n1')) {
      const keyPem = newPrivateKeyPem();
      const made = await api.create({} as never, undefined, { metadata: { generateName: 'seed-' }, spec: { request: Buffer.from(makeCertificateRequest(keyPem, template)).toString('base64'), usages: [...KUBELET_CLIENT_USAGES] } });
      const got = (await api.get({} as never, undefined, made.metadata!.name!)) as { status: { certificate: string } };
      return store.update(Buffer.from(got.status.certificate, 'base64').toString(), keyPem);
    },
    manager(template = () => nodeClientTemplate('n1')) {
      const rotated: StoredPair[] = [];
      const manager = new CertificateManager({
        name: 'client',
        store,
        template,
        signerName: KUBELET_CLIENT_SIGNER,
        usages: KUBELET_CLIENT_USAGES,
        client: () => api,
        onRotated: (p) => rotated.push(p),
        logger,
        clock,
        random: () => 0.5,
        pollMs: 1,
      });
      t.teardown(() => manager.stop());
      return { manager, rotated };
    },
  };
}

t.test('a certificate is renewed at its deadline with a new key, and the link moves', async (t) => {
  const r = rig(t);
  const first = await r.issue();
  const seeded = r.api.created.length;
  const { manager, rotated } = r.manager();
  t.equal(manager.current()?.leaf.fingerprint256, first.leaf.fingerprint256, 'starts with the stored pair');
  const notBefore = Date.parse(first.leaf.validFrom);
  const deadline = notBefore + (Date.parse(first.leaf.validTo) - notBefore) * 0.8;
  t.equal(manager.nextRotationDeadline(), deadline, 'random 0.5: 80 % of the lifetime');
  manager.start();
  await until(() => r.clock.pending().length === 1, 'the wait for the deadline');
  t.equal(r.clock.pending()[0].until, deadline);
  r.clock.advance(deadline - r.clock.now() - 1000);
  await new Promise((res) => setTimeout(res, 20));
  t.equal(r.api.created.length, seeded, 'nothing asked before the deadline');
  r.clock.advance(1000);
  await until(() => rotated.length === 1, 'the rotation');
  const csr = r.api.created[seeded];
  t.equal(csr.metadata.name.startsWith('csr-'), true, 'a generated name (csr-...)');
  t.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
  t.same(csr.spec.usages, ['digital signature', 'key encipherment', 'client auth']);
  const req = parseCertificateRequest(firstPemBlock(Buffer.from(csr.spec.request, 'base64'))!.der);
  t.equal(req.commonName, 'system:node:n1');
  t.not(rotated[0].keyPem, first.keyPem, 'a new key');
  t.not(rotated[0].leaf.fingerprint256, first.leaf.fingerprint256);
  t.equal(r.store.current()?.leaf.fingerprint256, rotated[0].leaf.fingerprint256, 'kubelet-client-current.pem names the new pair');
  t.equal(manager.current()?.leaf.fingerprint256, rotated[0].leaf.fingerprint256);
  t.equal(fs.readdirSync(r.certDir).filter((f) => /^kubelet-client-\d{4}-.*\.pem$/.test(f)).length >= 1, true);
  await until(() => r.clock.pending().length === 1, 'the wait for the next deadline');
  const next = rotated[0].leaf;
  t.equal(r.clock.pending()[0].until, Date.parse(next.validFrom) + (Date.parse(next.validTo) - Date.parse(next.validFrom)) * 0.8, 'then waits for the new deadline');
});

t.test('without a pair, or with one the template no longer describes, a request goes out at once', async (t) => {
  const r = rig(t);
  const { manager, rotated } = r.manager();
  t.equal(manager.current(), undefined);
  t.equal(manager.nextRotationDeadline(), r.clock.now());
  manager.start();
  await until(() => rotated.length === 1, 'the first certificate');
  await manager.stop();

  const r2 = rig(t);
  await r2.issue({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'], ipAddresses: ['10.0.0.1'] });
  const ips = ['10.0.0.1'];
  const m2 = r2.manager(() => ({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'], ipAddresses: ips }));
  t.ok(m2.manager.nextRotationDeadline() > r2.clock.now(), 'the pair matches its template: the deadline is later');
  ips[0] = '10.0.0.2';
  t.equal(m2.manager.nextRotationDeadline(), r2.clock.now(), 'the node IP changed: rotate now');
});

t.test('an expired pair is not current', async (t) => {
  const r = rig(t);
  const pair = await r.issue();
  const { manager } = r.manager();
  t.ok(manager.current());
  r.clock.advance(Date.parse(pair.leaf.validTo) - r.clock.now());
  t.equal(manager.current(), undefined);
});

t.test("failed requests back off as client-go's: 2, 4, 8, 16, 32 s with 10 % jitter, then every 32 s", async (t) => {
  const r = rig(t);
  r.api.createErrors = Array.from({ length: 7 }, () => new Error('connection refused'));
  const { manager, rotated } = r.manager();
  manager.start();
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    await until(() => r.clock.pending().length === 1, `back-off ${i + 1}`);
    const [s] = r.clock.pending();
    waits.push(s.ms);
    r.clock.advance(s.ms);
  }
  t.same(waits, [2100, 4200, 8400, 16800, 33600, 32000, 32000]);
  await until(() => rotated.length === 1, 'the eighth try succeeds');
  t.pass('rotated after the failures');
});

t.test('the REST client presents the new certificate and closes its old connections', async (t) => {
  const dir = tmp(t);
  const ca = makeCa(dir, 'ca');
  const server = makeCert(dir, 'server', ca, { commonName: 'server', ips: ['127.0.0.1'], usage: 'server' });
  const one = makeCert(dir, 'one', ca, { commonName: 'one', usage: 'client' });
  const two = makeCert(dir, 'two', ca, { commonName: 'two', usage: 'client' });
  let hanging: { destroyed: boolean } | undefined;
  const srv = https.createServer({ cert: server.cert, key: server.key, ca: ca.cert, requestCert: true }, (req, res) => {
    const cn = (req.socket as tls.TLSSocket).getPeerCertificate().subject?.CN;
    if (req.url === '/hang') {
      hanging = req.socket;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{');
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ cn }));
  });
  await new Promise<void>((res) => srv.listen(0, '127.0.0.1', res));
  t.teardown(() => new Promise<void>((res) => (srv.closeAllConnections(), srv.close(() => res()))));
  const port = (srv.address() as { port: number }).port;
  const client = new RestClient({ server: `https://127.0.0.1:${port}`, ca: ca.cert, cert: one.cert, key: one.key });
  t.teardown(() => client.close());
  t.same(await client.request('GET', '/who'), { cn: 'one' });
  const pending = client.request('GET', '/hang').catch((err: Error) => err);
  await until(() => hanging !== undefined, 'the long request');
  client.setClientCertificate(two.cert, two.key);
  t.ok((await pending) instanceof Error, 'the request under way on the old connection ends');
  t.same(await client.request('GET', '/who'), { cn: 'two' }, 'new connections present the new certificate');
  t.equal(client.config.cert, two.cert);
});

t.test("the agent's HTTPS port refuses handshakes until the serving certificate is issued", async (t) => {
  const r = rig(t);
  r.api.decide = (csr) => (csr.spec.signerName === 'kubernetes.io/kubelet-serving' && csr.approved ? 'approve' : 'pending');
  const { manager, source } = servingCertificates({
    client: r.api as unknown as RestClient,
    certDir: r.certDir,
    nodeName: 'n1',
    addresses: () => ({ hostnames: ['n1'], ips: ['127.0.0.1'] }),
    logger,
    clock: r.clock,
  });
  t.teardown(() => manager.stop());
  t.equal(source.current(), undefined);
  const server = await startAgentServer({
    address: '127.0.0.1',
    port: 0,
    readOnlyPort: 0,
    healthzBindAddress: '127.0.0.1',
    healthzPort: 0,
    tls: { certDir: path.join(r.certDir, 'unused'), hostname: 'n1', certificates: source },
    authentication: { anonymous: true, webhook: { enabled: false, cacheTtlMs: 0 } },
    authorization: { mode: 'AlwaysAllow', webhook: { cacheAuthorizedTtlMs: 0, cacheUnauthorizedTtlMs: 0 } },
    nodeName: 'n1',
    pods: { list: () => [], get: () => undefined },
    runningPods: async () => [],
    runtime: {} as never,
    registry: new Registry(),
    checks: new Map(),
    logger,
  });
  t.teardown(() => server.close());
  const handshake = () =>
    new Promise<string>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: server.port, ca: r.api.ca.certPem, servername: 'n1' }, () => {
        resolve(s.getPeerX509Certificate()?.subject ?? '');
        s.end();
      });
      s.on('error', reject);
    });
  await t.rejects(handshake(), /handshake failure|alert/, 'no certificate: the handshake fails');
  manager.start();
  await until(() => r.api.created.length === 1, 'the serving CSR');
  const csr = r.api.created[0];
  t.equal(csr.spec.signerName, 'kubernetes.io/kubelet-serving');
  t.same(csr.spec.usages, ['digital signature', 'key encipherment', 'server auth']);
  const req = parseCertificateRequest(firstPemBlock(Buffer.from(csr.spec.request, 'base64'))!.der);
  t.same([req.commonName, req.organizations, req.dnsNames, req.ipAddresses], ['system:node:n1', ['system:nodes'], ['n1'], ['127.0.0.1']]);
  await t.rejects(handshake(), /handshake failure|alert/, 'still pending (kube 1.20 approves no serving certificate by itself)');
  // an administrator approves it (kubectl certificate approve)
  r.api.csrs.get(csr.metadata.name)!.approved = true;
  // the manager looks again at its poll period (1 s of the fake clock)
  await until(() => (r.clock.advance(1000), source.current() !== undefined), 'the issued serving certificate');
  t.equal(await handshake(), 'O=system:nodes\nCN=system:node:n1', 'the port serves the issued certificate');
  t.ok(fs.lstatSync(path.join(r.certDir, 'kubelet-server-current.pem')).isSymbolicLink(), 'kept as kubelet-server-current.pem');
});
