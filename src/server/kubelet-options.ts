/**
 * The --kubelet-* flags: the API server's connection to node agents (logs, exec, attach,
 * port-forward, nodes/proxy; src/server/node-agent-client.ts). They are checked at start, so a bad
 * value stops the server: the files must be readable PEM, the certificate and key given together.
 * The address types are checked while the flags are parsed (src/options/apiserver.ts). Without
 * --kubelet-client-certificate the server presents kubeadm's apiserver-kubelet-client identity
 * (O=system:masters), issued by its own CA like the other component certificates.
 */
import type { Scheme } from '../api/scheme';
import type { ConnectBackends } from '../http/handlers/connect';
import { readFlagFile } from '../util/files';
import type { ApiServerConfig } from '../options/apiserver';
import { nodeAgentClientFromFlags } from './node-agent-client';

/** kubeadm's client certificate of the API server towards kubelets: <certDir>/apiserver-kubelet-client.crt */
export const KUBELET_CLIENT = Object.freeze({
  file: 'apiserver-kubelet-client',
  subject: Object.freeze({ commonName: 'kube-apiserver-kubelet-client', organization: 'system:masters' }),
});

/** the backends of connect subresources; undefined when the scheme serves no nodes or endpoints */
export function connectBackends(config: Pick<ApiServerConfig, 'kubelet'>, scheme: Scheme, fallback?: { cert: string; key: string }): ConnectBackends | undefined {
  const nodes = scheme.byResource('', 'v1', 'nodes');
  const endpoints = scheme.byResource('', 'v1', 'endpoints');
  if (!nodes || !endpoints) return undefined;
  return { nodeAgent: nodeAgentClientFromFlags(config.kubelet, fallback), nodes, endpoints };
}

export function checkKubeletOptions(k: ApiServerConfig['kubelet']): void {
  if (Boolean(k.clientCertificate) !== Boolean(k.clientKey)) {
    throw new Error('--kubelet-client-certificate and --kubelet-client-key must be given together');
  }
  const pem = (file: string | undefined, flag: string, label: RegExp) => {
    if (!file) return;
    const text = readFlagFile(file, flag);
    if (!label.test(text)) throw new Error(`${flag} ${file}: no PEM data found`);
  };
  pem(k.certificateAuthority, '--kubelet-certificate-authority', /-----BEGIN CERTIFICATE-----/);
  pem(k.clientCertificate, '--kubelet-client-certificate', /-----BEGIN CERTIFICATE-----/);
  pem(k.clientKey, '--kubelet-client-key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/);
}
