/**
 * TLS bootstrapping (kubelet's pkg/kubelet/certificate/bootstrap LoadClientCert): when
 * --kubeconfig's file is missing or its client certificate is not valid now, the agent uses the
 * --bootstrap-kubeconfig credentials (a bootstrap token of group system:bootstrappers) to ask for a
 * client certificate CN=system:node:<node>, O=system:nodes through a CertificateSigningRequest of
 * signer kubernetes.io/kube-apiserver-client-kubelet, waits until the controller manager approves
 * and signs it, keeps the pair under --cert-dir (kubelet-client-current.pem) and writes a kubeconfig
 * at --kubeconfig naming the bootstrap kubeconfig's server and CA and that pair.
 *
 * The key is kept in kubelet-client.key.tmp until the certificate arrives, so an agent restarted
 * while it waits asks again with the same key, under the same (digested) CSR name.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import type { Logger } from 'pino';
import { loadClientConfig, type ClientConfig } from '../../client/kubeconfig';
import { RestClient } from '../../client/rest-client';
import { sleep } from '../../client/sleep';
import { digestedName, makeCertificateRequest, newPrivateKeyPem, type CertificateTemplate } from './certificate-request';
import { CertificateStore, isValidAt, parsePair } from './certificate-store';
import { requestCertificate, waitForCertificate, type CsrClient } from './request-certificate';

export const KUBELET_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_CLIENT_USAGES = Object.freeze(['digital signature', 'key encipherment', 'client auth']);
export const CLIENT_PAIR_PREFIX = 'kubelet-client';
const TMP_KEY_FILE = 'kubelet-client.key.tmp';

/** the client certificate a node asks for (kubelet's client certificate template) */
export const nodeClientTemplate = (nodeName: string): CertificateTemplate => ({ commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] });

export interface BootstrapOptions {
  /** --kubeconfig: read when valid, else written */
  kubeconfigPath: string;
  /** --bootstrap-kubeconfig */
  bootstrapKubeconfigPath: string;
  /** --cert-dir */
  certDir: string;
  nodeName: string;
  logger: Logger;
  signal?: AbortSignal;
  /** the API client made from the bootstrap credentials (tests give a fake) */
  clientFor?: (config: ClientConfig) => CsrClient & { close?(): void };
  now?: () => number;
  /** how long to wait for the certificate (kubelet: one hour) and how often to look */
  timeoutMs?: number;
  pollMs?: number;
}

/** what bootstrapping did: nothing (the kubeconfig was valid) or a new certificate */
export type BootstrapOutcome = 'valid' | 'issued';

/** kubelet's isClientConfigStillValid: the kubeconfig's client certificates are all valid now */
export function kubeconfigStillValid(file: string, now: number, logger?: Logger): boolean {
  if (!fs.existsSync(file)) return false;
  let config: ClientConfig;
  try {
    config = loadClientConfig(file);
  } catch (err) {
    logger?.warn({ err: (err as Error).message }, 'Unable to read the existing kubeconfig');
    return false;
  }
  // a kubeconfig without a client certificate (a token) is taken as it is
  if (!config.cert) return true;
  try {
    const certs = [...config.cert.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => new crypto.X509Certificate(m[0]));
    if (certs.length === 0) throw new Error('no certificate');
    for (const c of certs) {
      if (!isValidAt(c, now)) {
        logger?.warn({ notAfter: c.validTo }, 'Part of the existing bootstrap client certificate is expired');
        return false;
      }
    }
  } catch (err) {
    logger?.warn({ err: (err as Error).message }, 'Unable to read the existing bootstrap client certificate');
    return false;
  }
  return true;
}

/** kubelet's writeKubeconfigFromBootstrapping: the bootstrap cluster, the pair at `pemPath` */
export function writeNodeKubeconfig(file: string, bootstrap: ClientConfig, pemPath: string): void {
  const cluster: Record<string, unknown> = { server: bootstrap.server };
  if (bootstrap.ca) cluster['certificate-authority-data'] = Buffer.from(bootstrap.ca).toString('base64');
  if (bootstrap.insecureSkipTlsVerify) cluster['insecure-skip-tls-verify'] = true;
  if (bootstrap.tlsServerName) cluster['tls-server-name'] = bootstrap.tlsServerName;
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster }],
    users: [{ name: 'default-auth', user: { 'client-certificate': pemPath, 'client-key': pemPath } }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' } }],
    'current-context': 'default-context',
    preferences: {},
  };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, yaml.dump(doc), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** kubelet's waitForServer: up to a minute for /healthz to answer, then go on regardless */
async function waitForServer(client: CsrClient & { request?: RestClient['request'] }, logger: Logger, signal?: AbortSignal): Promise<void> {
  if (!client.request) return;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !signal?.aborted) {
    try {
      await client.request('GET', '/healthz');
      return;
    } catch (err) {
      logger.debug({ err: (err as Error).message }, 'waiting for the API server');
      await sleep(1000, signal);
    }
  }
  logger.warn('Error waiting for apiserver to come up');
}

/** the key to ask with: the current pair's while valid, else the one kept from an earlier attempt, else a new one */
function keyToUse(store: CertificateStore, certDir: string, now: number): string {
  const current = store.current();
  // an expired pair's key would name the old request again, and get its expired certificate back
  if (current && isValidAt(current.leaf, now)) return current.keyPem;
  const tmp = path.join(certDir, TMP_KEY_FILE);
  try {
    const pem = fs.readFileSync(tmp, 'utf8');
    crypto.createPrivateKey(pem);
    return pem;
  } catch {
    const pem = newPrivateKeyPem();
    fs.mkdirSync(certDir, { recursive: true });
    fs.writeFileSync(tmp, pem, { mode: 0o600 });
    return pem;
  }
}

/**
 * Make sure --kubeconfig holds a valid client certificate, asking for one with the bootstrap
 * credentials when it does not. Throws when the request is denied, fails or times out.
 */
export async function bootstrapClientCertificate(o: BootstrapOptions): Promise<BootstrapOutcome> {
  const now = o.now ?? Date.now;
  if (kubeconfigStillValid(o.kubeconfigPath, now(), o.logger)) {
    o.logger.info({ kubeconfig: o.kubeconfigPath }, 'Existing kubeconfig has a valid client certificate; skipping TLS bootstrap');
    return 'valid';
  }
  o.logger.info({ bootstrapKubeconfig: o.bootstrapKubeconfigPath }, 'Using bootstrap kubeconfig to generate TLS client cert, key and kubeconfig file');
  const bootstrap = loadClientConfig(o.bootstrapKubeconfigPath, { userAgent: 'ballast-nodeagent' });
  const client = o.clientFor ? o.clientFor(bootstrap) : new RestClient(bootstrap, { qps: -1 });
  try {
    const store = new CertificateStore({ dir: o.certDir, prefix: CLIENT_PAIR_PREFIX, now });
    const keyPem = keyToUse(store, o.certDir, now());
    await waitForServer(client, o.logger, o.signal);
    const template = nodeClientTemplate(o.nodeName);
    const csrPem = makeCertificateRequest(keyPem, template);
    const csr = await requestCertificate(client, {
      csrPem,
      keyPem,
      name: digestedName(keyPem, template, KUBELET_CLIENT_USAGES),
      signerName: KUBELET_CLIENT_SIGNER,
      usages: KUBELET_CLIENT_USAGES,
    });
    o.logger.info({ csr: csr.name }, 'Waiting for client certificate to be issued');
    const certPem = await waitForCertificate(client, csr, { signal: o.signal, timeoutMs: o.timeoutMs ?? 3600_000, pollMs: o.pollMs, now });
    const issued = parsePair(certPem, keyPem);
    if (!isValidAt(issued.leaf, now())) throw new Error(`the issued certificate is not valid now (${issued.leaf.validFrom} to ${issued.leaf.validTo})`);
    const pair = store.update(certPem, keyPem);
    fs.rmSync(path.join(o.certDir, TMP_KEY_FILE), { force: true });
    writeNodeKubeconfig(o.kubeconfigPath, bootstrap, store.currentPath);
    o.logger.info({ subject: pair.leaf.subject.replace(/\n/g, ', '), notAfter: pair.leaf.validTo, kubeconfig: o.kubeconfigPath }, 'Client certificate issued; kubeconfig written');
    return 'issued';
  } finally {
    (client as { close?(): void }).close?.();
  }
}
