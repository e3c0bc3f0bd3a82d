/**
 * The serving certificate through the API server (kubelet's NewKubeletServerCertificateManager,
 * serverTLSBootstrap / --rotate-server-certificates): CN=system:node:<node>, O=system:nodes, the
 * node's host names and IPs as subject alternative names, signer kubernetes.io/kubelet-serving,
 * usages digital signature, key encipherment and server auth, kept as kubelet-server-current.pem.
 * kube 1.20's csrapproving controller does not approve these: an administrator does
 * (`kubectl certificate approve`). Until then the agent has no serving certificate and its HTTPS
 * port refuses TLS handshakes, as kubelet's does ("no serving certificate available").
 */
import type { Logger } from 'pino';
import type { RestClient } from '../../client/rest-client';
import { CertificateManager, type ManagerClock } from './certificate-manager';
import { CertificateStore } from './certificate-store';

export const KUBELET_SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
export const KUBELET_SERVING_USAGES = Object.freeze(['digital signature', 'key encipherment', 'server auth']);
export const SERVING_PAIR_PREFIX = 'kubelet-server';

/** what the agent's HTTPS server reads its certificate from when it changes over time */
export interface ServingCertificateSource {
  /** the pair to serve with now; undefined: none yet (handshakes fail) */
  current(): { cert: string; key: string } | undefined;
  /** called with each new pair */
  onChange(listener: (pair: { cert: string; key: string }) => void): void;
}

export interface ServingCertificateOptions {
  client: RestClient;
  certDir: string;
  nodeName: string;
  /** the node's addresses: host names (Hostname, InternalDNS, ExternalDNS) and IPs */
  addresses: () => { hostnames: string[]; ips: string[] };
  logger: Logger;
  clock?: ManagerClock;
}

/** the serving certificate's manager (not started) and the source the HTTPS server reads */
export function servingCertificates(o: ServingCertificateOptions): { manager: CertificateManager; source: ServingCertificateSource } {
  const manager = new CertificateManager({
    name: 'serving',
    store: new CertificateStore({ dir: o.certDir, prefix: SERVING_PAIR_PREFIX }),
    template: () => {
      const { hostnames, ips } = o.addresses();
      // kubelet asks for nothing until it knows an address to put in the certificate
      if (hostnames.length === 0 && ips.length === 0) return undefined;
      return { commonName: `system:node:${o.nodeName}`, organizations: ['system:nodes'], dnsNames: hostnames, ipAddresses: ips };
    },
    signerName: KUBELET_SERVING_SIGNER,
    usages: KUBELET_SERVING_USAGES,
    client: () => o.client,
    logger: o.logger,
    clock: o.clock,
  });
  const toServe = (pair: { certPem: string; keyPem: string }) => ({ cert: pair.certPem, key: pair.keyPem });
  return {
    manager,
    source: {
      current: () => {
        const pair = manager.current();
        return pair && toServe(pair);
      },
      onChange: (listener) => manager.onRotated((pair) => listener(toServe(pair))),
    },
  };
}
