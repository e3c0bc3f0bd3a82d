/**
 * The node agent's credentials and its standalone mode, with the real binary:
 * - TLS bootstrapping as kubeadm sets it up (a bootstrap token Secret, the RBAC bindings of
 *   system:bootstrappers and system:nodes, the csrapproving and csrsigning controllers with the
 *   cluster CA) under Node,RBAC and NodeRestriction: `ballast nodeagent --bootstrap-kubeconfig B
 *   --kubeconfig K` gets a certificate through a CSR, writes K, and registers its Node as
 *   system:node:<name>; restarted with a client certificate near its end and --rotate-certificates,
 *   it renews the certificate through a CSR approved as selfnodeclient and goes on.
 * - Standalone: without --kubeconfig the agent runs a static pod of --pod-manifest-path (process
 *   runtime) and stops it when the manifest goes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import t, { type Test } from 'tap';
import { firstPemBlock } from '../../src/api/kinds/certificates/csr-request';
import { loadClientConfig } from '../../src/client/kubeconfig';
import { RESOURCES } from '../../src/client/resources';
import { RestClient } from '../../src/client/rest-client';
import { issueCertificate } from '../../src/controllers/certificates/issue-certificate';
import { makeCertificateRequest } from '../../src/nodeagent/certificate/certificate-request';
import { DEFAULT_CONTROLLER_SETTINGS } from '../../src/controllers/settings';
import { startControllers } from '../helpers/controllers';
import { ownPodLogs } from '../helpers/nodeagent-config';
import { MAIN_JS, freePort, startApiServer, tempDir, waitFor } from './harness';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const skip = fs.existsSync(MAIN_JS) ? undefined : 'run make build first';

interface Agent {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** a configuration file turns on kubelet's file defaults (webhook authentication and authorization): these keep the flags' */
const FLAG_DEFAULT_AUTH = ['authentication:', '  webhook:', '    enabled: false', 'authorization:', '  mode: AlwaysAllow'];

/** `ballast nodeagent` with the process runtime and no ports worth serving; stopped when the test ends */
async function startAgent(t: Test, args: string[]): Promise<Agent> {
  const rootDir = tempDir(t, 'ballast-nodeagent-root-');
  let out = '';
  const child = spawn(
    process.execPath,
    [MAIN_JS, 'nodeagent', '--container-runtime', 'process', '--root-dir', rootDir, '--config', ownPodLogs(t, FLAG_DEFAULT_AUTH), '--fail-swap-on=false', '--cgroups-per-qos=false', '--enforce-node-allocatable=',
      '--port', String(await freePort()), '--read-only-port', '0', '--healthz-port', '0', '--node-status-update-frequency', '2s', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  t.teardown(async () => {
    await stop();
    if (process.env.BALLAST_TEST_LOG || !t.passing()) t.comment(`node agent output:\n${out.slice(-6000)}`);
  });
  return { child, output: () => out, stop };
}

const CLUSTER_ROLE_BINDINGS = { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false };
const TOKEN_ID = 'abcdef';
const TOKEN_SECRET = '0123456789abcdef';

/** what kubeadm init writes for TLS bootstrapping */
const bootstrapObjects = (): Obj[] => [
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${TOKEN_ID}`, namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': TOKEN_ID,
      'token-secret': TOKEN_SECRET,
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
    },
  },
  ...[
    ['kubeadm:kubelet-bootstrap', 'system:node-bootstrapper', 'system:bootstrappers'],
    ['kubeadm:node-autoapprove-bootstrap', 'system:certificates.k8s.io:certificatesigningrequests:nodeclient', 'system:bootstrappers'],
    ['kubeadm:node-autoapprove-certificate-rotation', 'system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', 'system:nodes'],
  ].map(([name, role, group]) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
  })),
];

t.test('TLS bootstrapping: a bootstrap token, a CSR approved and signed, the node registered as itself', { skip }, async (t) => {
  const server = await startApiServer(t, { args: ['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction', '--enable-bootstrap-token-auth'] });
  const pki = path.join(server.dataDir, 'pki');
  const admin = new RestClient(loadClientConfig(server.kubeconfig, { userAgent: 'ballast-test' }), { qps: -1 });
  t.teardown(() => admin.close());
  for (const obj of bootstrapObjects()) {
    const ref = obj.kind === 'Secret' ? RESOURCES.secrets : CLUSTER_ROLE_BINDINGS;
    await admin.create(ref, obj.metadata.namespace, obj);
  }
  const signing = { certFile: path.join(pki, 'ca.crt'), keyFile: path.join(pki, 'ca.key') };
  startControllers(t, server, ['csrapproving', 'csrsigning'], { clusterSigning: { ...DEFAULT_CONTROLLER_SETTINGS.clusterSigning, ...signing } });

  const dir = tempDir(t, 'ballast-bootstrap-');
  const bootstrapKubeconfig = path.join(dir, 'bootstrap-kubelet.conf');
  fs.writeFileSync(
    bootstrapKubeconfig,
    yaml.dump({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'ballast', cluster: { server: server.url, 'certificate-authority': signing.certFile } }],
      users: [{ name: 'tls-bootstrap-token-user', user: { token: `${TOKEN_ID}.${TOKEN_SECRET}` } }],
      contexts: [{ name: 'tls-bootstrap-token-user@ballast', context: { cluster: 'ballast', user: 'tls-bootstrap-token-user' } }],
      'current-context': 'tls-bootstrap-token-user@ballast',
    }),
  );
  const kubeconfig = path.join(dir, 'kubelet.conf');
  const certDir = path.join(dir, 'pki');
  const nodeName = 'boot-node';
  const args = ['--bootstrap-kubeconfig', bootstrapKubeconfig, '--kubeconfig', kubeconfig, '--cert-dir', certDir, '--hostname-override', nodeName];
  const agent = await startAgent(t, args);

  const node = (await waitFor(
    `node ${nodeName} registered`,
    async () => {
      if (agent.child.exitCode !== null) throw new Error(`the node agent exited with ${agent.child.exitCode}: ${agent.output()}`);
      return admin.get(RESOURCES.nodes, undefined, nodeName).catch(() => undefined);
    },
    60_000,
  )) as Obj;
  t.equal(node.metadata.name, nodeName, 'the node registered under Node,RBAC and NodeRestriction');

  const csrs = (await admin.list(RESOURCES.certificateSigningRequests, undefined)).items as Obj[];
  t.equal(csrs.length, 1, 'one CertificateSigningRequest');
  const csr = csrs[0];
  t.match(csr.metadata.name, /^node-csr-/);
  t.equal(csr.spec.username, `system:bootstrap:${TOKEN_ID}`, 'made with the bootstrap token');
  t.ok(csr.spec.groups.includes('system:bootstrappers'));
  t.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client-kubelet');
  t.ok(csr.status.conditions.some((c: Obj) => c.type === 'Approved' && c.reason === 'AutoApproved'), 'approved by csrapproving (nodeclient)');

  const config = loadClientConfig(kubeconfig);
  t.equal(config.server, server.url);
  t.equal(config.token, undefined, 'the node kubeconfig holds no token');
  const cert = new crypto.X509Certificate(config.cert!);
  t.equal(cert.subject, 'O=system:nodes\nCN=system:node:boot-node', 'the certificate names the node');
  t.ok(cert.verify(new crypto.X509Certificate(fs.readFileSync(signing.certFile)).publicKey), 'signed by the cluster CA');
  const current = path.join(certDir, 'kubelet-client-current.pem');
  t.ok(fs.lstatSync(current).isSymbolicLink(), 'kubelet-client-current.pem links to the pair');
  t.match(path.basename(fs.readlinkSync(current)), /^kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);

  // the node agent acts as system:node:boot-node: its lease exists (NodeRestriction lets a node write its own only)
  const lease = (await waitFor('the node lease', () => admin.get(RESOURCES.leases, 'kube-node-lease', nodeName).catch(() => undefined), 30_000)) as Obj;
  t.equal(lease.spec.holderIdentity, nodeName);

  t.test('restarted with a certificate near its end and --rotate-certificates, the agent renews it', async (t) => {
    await agent.stop();
    // a certificate for the same key issued 55 minutes ago for an hour: past its rotation deadline
    const keyPem = fs.readFileSync(current, 'utf8').match(/-----BEGIN EC PRIVATE KEY-----[\s\S]*?-----END EC PRIVATE KEY-----\n/)![0];
    const csrDer = firstPemBlock(Buffer.from(makeCertificateRequest(keyPem, { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] })))!.der;
    const old = issueCertificate({
      csrDer,
      usages: ['digital signature', 'key encipherment', 'client auth'],
      ttlMs: 3600_000,
      signer: { certPem: fs.readFileSync(signing.certFile, 'utf8'), keyPem: fs.readFileSync(signing.keyFile, 'utf8') },
      now: Date.now() - 55 * 60_000,
    });
    const oldFile = path.join(certDir, 'kubelet-client-old.pem');
    fs.writeFileSync(oldFile, old + keyPem, { mode: 0o600 });
    fs.rmSync(current);
    fs.symlinkSync(oldFile, current);
    const oldFingerprint = new crypto.X509Certificate(old).fingerprint256;

    const restarted = await startAgent(t, [...args, '--rotate-certificates']);
    const renewed = await waitFor(
      'a renewed client certificate',
      () => {
        if (restarted.child.exitCode !== null) throw new Error(`the node agent exited with ${restarted.child.exitCode}: ${restarted.output()}`);
        const target = fs.readlinkSync(current);
        return target !== oldFile ? target : undefined;
      },
      30_000,
    );
    const pem = fs.readFileSync(renewed, 'utf8');
    const next = new crypto.X509Certificate(pem);
    t.not(next.fingerprint256, oldFingerprint);
    t.equal(next.subject, 'O=system:nodes\nCN=system:node:boot-node');
    t.ok(Date.parse(next.validTo) > Date.now() + 30 * 60_000, 'the new certificate has its whole lifetime ahead');
    const issuedBy = (c: Obj) => c.status?.certificate && new crypto.X509Certificate(Buffer.from(c.status.certificate, 'base64')).fingerprint256 === next.fingerprint256;
    const all = (await admin.list(RESOURCES.certificateSigningRequests, undefined)).items as Obj[];
    const rotation = all.find(issuedBy);
    if (!rotation) t.comment(`CSRs: ${JSON.stringify(all.map((c) => [c.metadata.name, c.spec.username, c.status]))}`);
    t.match(rotation?.metadata.name, /^csr-/, 'the new certificate came from a second CSR, with a generated name');
    t.equal(rotation?.spec.username, `system:node:${nodeName}`, 'asked by the node itself');
    t.ok(rotation?.status.conditions?.some((c: Obj) => c.type === 'Approved' && c.reason === 'AutoApproved'), 'approved by csrapproving (selfnodeclient)');
    // and the agent goes on with the new certificate: its lease is renewed after the swap
    const before = (await admin.get(RESOURCES.leases, 'kube-node-lease', nodeName)) as Obj;
    await waitFor(
      'a lease renewal after the rotation',
      async () => ((await admin.get(RESOURCES.leases, 'kube-node-lease', nodeName)) as Obj).spec.renewTime !== before.spec.renewTime,
      30_000,
    );
    t.match(restarted.output(), /certificate rotation detected/, 'the client reopened its connections with the new pair');
    const rotations = ((await admin.list(RESOURCES.certificateSigningRequests, undefined)).items as Obj[]).filter((c) => c.metadata.name.startsWith('csr-'));
    t.equal(rotations.length, 1, 'one rotation: the new certificate is good for a year');
  });
});

t.test('standalone: no --kubeconfig, a static pod from --pod-manifest-path runs and stops with its manifest', { skip }, async (t) => {
  const dir = tempDir(t, 'ballast-standalone-');
  const manifests = path.join(dir, 'manifests');
  fs.mkdirSync(manifests);
  const outFile = path.join(dir, 'out');
  const manifest = path.join(manifests, 'static-web.yaml');
  fs.writeFileSync(
    manifest,
    yaml.dump({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'static-web', namespace: 'default' },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', `echo "started $$$$" > ${outFile}; exec sleep 3600`] }] },
    }),
  );
  const agent = await startAgent(t, ['--pod-manifest-path', manifests, '--file-check-frequency', '1s', '--hostname-override', 'lonely']);
  const line = await waitFor(
    'the static pod\'s output',
    () => {
      if (agent.child.exitCode !== null) throw new Error(`the node agent exited with ${agent.child.exitCode}: ${agent.output()}`);
      return fs.existsSync(outFile) ? fs.readFileSync(outFile, 'utf8').trim() || undefined : undefined;
    },
    30_000,
  );
  const pid = Number(line.split(' ')[1]);
  t.match(line, /^started \d+$/, 'the container command ran');
  const alive = (p: number) => {
    try {
      process.kill(p, 0);
      return true;
    } catch {
      return false;
    }
  };
  t.ok(alive(pid), 'and runs');
  t.match(agent.output(), /standalone mode, no API client/);
  fs.rmSync(manifest);
  await waitFor('the static pod stopped', () => !alive(pid), 30_000);
  t.pass('removing the manifest stopped the pod');
  t.equal(agent.child.exitCode, null, 'the agent runs on');
});
