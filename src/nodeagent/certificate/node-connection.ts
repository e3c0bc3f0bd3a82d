/**
 * How the node agent reaches the API server (kubelet's buildKubeletClientConfig): none without
 * --kubeconfig (the standalone mode: static pods only); else TLS bootstrapping first when
 * --bootstrap-kubeconfig is given, then a client from --kubeconfig; with --rotate-certificates a
 * certificate manager renews the client certificate and the client switches to each new one. With
 * serverTLSBootstrap, the serving certificate is asked for the same way (signer
 * kubernetes.io/kubelet-serving) and the agent's HTTPS server takes each new one.
 */
import type { Logger } from 'pino';
import { loadClientConfig, type ClientConfig } from '../../client/kubeconfig';
import { RestClient } from '../../client/rest-client';
import type { NodeAgentConfig } from '../config/types';
import { bootstrapClientCertificate, CLIENT_PAIR_PREFIX, KUBELET_CLIENT_SIGNER, KUBELET_CLIENT_USAGES, nodeClientTemplate } from './bootstrap';
import { CertificateManager, type ManagerClock } from './certificate-manager';
import { CertificateStore, parsePair, type StoredPair } from './certificate-store';

export interface NodeConnection {
  client: RestClient;
  /**
   * the events' own client (kubelet's eventClient): --event-qps and --event-burst, 0 for no limit,
   * so a burst of events never queues the agent's other requests behind it
   */
  eventClient: RestClient;
  /** the client certificate's manager, with --rotate-certificates */
  clientCertificates?: CertificateManager;
  /** stop rotating and close the client's connections */
  close(): Promise<void>;
}

export interface ConnectOptions {
  nodeName: string;
  logger: Logger;
  signal: AbortSignal;
  clock?: ManagerClock;
}

function pairOf(config: ClientConfig): StoredPair | undefined {
  if (!config.cert || !config.key) return undefined;
  try {
    return parsePair(config.cert, config.key);
  } catch {
    return undefined;
  }
}

/** the agent's API client, or undefined in the standalone mode (no --kubeconfig) */
export async function connectNodeAgent(config: NodeAgentConfig, o: ConnectOptions): Promise<NodeConnection | undefined> {
  if (!config.kubeconfig) {
    o.logger.warn('standalone mode, no API client: running the static pods of --pod-manifest-path and --manifest-url only');
    return undefined;
  }
  if (config.bootstrapKubeconfig) {
    await bootstrapClientCertificate({
      kubeconfigPath: config.kubeconfig,
      bootstrapKubeconfigPath: config.bootstrapKubeconfig,
      certDir: config.certDir,
      nodeName: o.nodeName,
      logger: o.logger,
      signal: o.signal,
    });
  }
  const clientConfig = loadClientConfig(config.kubeconfig, { userAgent: 'ballast-nodeagent' });
  const restOptions = { qps: config.kubeAPIQPS, burst: config.kubeAPIBurst, contentType: config.contentType };
  const client = new RestClient(clientConfig, restOptions);
  const eventClient = new RestClient(clientConfig, { qps: config.eventRecordQPS > 0 ? config.eventRecordQPS : -1, burst: config.eventBurst, contentType: config.contentType });
  if (!config.rotateCertificates) return { client, eventClient, close: async () => (client.close(), eventClient.close()) };

  // kubelet asks with its current certificate, and with the bootstrap credentials when it has none
  const bootstrapClient = config.bootstrapKubeconfig ? new RestClient(loadClientConfig(config.bootstrapKubeconfig, { userAgent: 'ballast-nodeagent' }), restOptions) : undefined;
  const manager = new CertificateManager({
    name: 'client',
    store: new CertificateStore({ dir: config.certDir, prefix: CLIENT_PAIR_PREFIX }),
    initial: pairOf(clientConfig),
    template: () => nodeClientTemplate(o.nodeName),
    signerName: KUBELET_CLIENT_SIGNER,
    usages: KUBELET_CLIENT_USAGES,
    client: (current) => (current || !bootstrapClient ? client : bootstrapClient),
    onRotated: (pair) => {
      o.logger.info('certificate rotation detected, shutting down client connections to start using new credentials');
      client.setClientCertificate(pair.certPem, pair.keyPem);
      eventClient.setClientCertificate(pair.certPem, pair.keyPem);
    },
    logger: o.logger,
    clock: o.clock,
  });
  // the store may hold a newer pair than the kubeconfig names (rotated before a restart)
  const current = manager.current();
  if (current && current.leaf.fingerprint256 !== pairOf(clientConfig)?.leaf.fingerprint256) {
    client.setClientCertificate(current.certPem, current.keyPem);
    eventClient.setClientCertificate(current.certPem, current.keyPem);
  }
  manager.start();
  return {
    client,
    eventClient,
    clientCertificates: manager,
    async close() {
      await manager.stop();
      bootstrapClient?.close();
      client.close();
      eventClient.close();
    },
  };
}
