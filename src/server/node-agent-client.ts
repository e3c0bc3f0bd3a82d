/**
 * The API server's connection to node agents, as kube 1.20's NodeConnectionInfoGetter and
 * KubeletClientConfig make it: a node is reached at the first of its addresses in
 * --kubelet-preferred-address-types order (a Hostname also from the kubernetes.io/hostname label),
 * on status.daemonEndpoints.kubeletEndpoint.Port (10250 when unset), over HTTPS. The agent's
 * certificate is checked against --kubelet-certificate-authority; without one kube does not check
 * it. --kubelet-client-certificate/--kubelet-client-key are presented; --kubelet-timeout bounds the
 * calls that are not streams.
 */
import type tls from 'node:tls';
import { errors } from '../api/errors';
import type { KubeObject } from '../api/kind';
import { readFlagFile } from '../util/files';

/** kubelet's default serving port (KubeletConfiguration.port) */
export const DEFAULT_NODE_AGENT_PORT = 10250;

export interface NodeAgentClientOptions {
  /** PEM CA bundle; unset = the agent's certificate is not verified (kube's behaviour) */
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly preferredAddressTypes: readonly string[];
  readonly timeoutMs: number;
  /** the port when a node does not publish one */
  readonly defaultPort?: number;
}

export interface NodeAgentLocation {
  readonly host: string;
  readonly port: number;
}

export class NodeAgentClient {
  readonly #o: NodeAgentClientOptions;

  constructor(opts: NodeAgentClientOptions) {
    this.#o = Object.freeze({ ...opts });
  }

  get timeoutMs(): number {
    return this.#o.timeoutMs;
  }

  /** kube's GetPreferredNodeAddress plus the node's published agent port */
  location(node: KubeObject): NodeAgentLocation {
    const status = (node.status ?? {}) as { addresses?: Array<{ type?: string; address?: string }>; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
    const addresses = Array.isArray(status.addresses) ? status.addresses : [];
    let host: string | undefined;
    for (const type of this.#o.preferredAddressTypes) {
      host = addresses.find((a) => a?.type === type && a.address)?.address;
      if (!host && type === 'Hostname') host = node.metadata?.labels?.['kubernetes.io/hostname'] || undefined;
      if (host) break;
    }
    if (!host) {
      const known = addresses.map((a) => `{${a?.type ?? ''} ${a?.address ?? ''}}`).join(' ');
      throw errors.internal(`no preferred addresses found; known addresses: [${known}]`);
    }
    const published = status.daemonEndpoints?.kubeletEndpoint?.Port;
    const port = typeof published === 'number' && published > 0 ? published : (this.#o.defaultPort ?? DEFAULT_NODE_AGENT_PORT);
    return { host, port };
  }

  /** the base URL of a node's agent */
  url(node: KubeObject, path: string, query?: URLSearchParams): URL {
    const { host, port } = this.location(node);
    const u = new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`);
    u.pathname = path;
    if (query && [...query.keys()].length > 0) u.search = query.toString();
    return u;
  }

  /** TLS settings of a connection to an agent; insecure = the backend is not verified even with a CA */
  tls(insecure = false): tls.ConnectionOptions {
    return {
      ca: this.#o.ca,
      cert: this.#o.cert,
      key: this.#o.key,
      rejectUnauthorized: Boolean(this.#o.ca) && !insecure,
    };
  }
}

/** the client from the --kubelet-* flags; the generated client certificate when none is given */
export function nodeAgentClientFromFlags(
  k: { certificateAuthority?: string; clientCertificate?: string; clientKey?: string; preferredAddressTypes: readonly string[]; timeoutMs: number },
  fallback?: { cert: string; key: string },
): NodeAgentClient {
  const read = (file: string | undefined, flag: string) => (file ? readFlagFile(file, flag) : undefined);
  const cert = read(k.clientCertificate, '--kubelet-client-certificate');
  const key = read(k.clientKey, '--kubelet-client-key');
  return new NodeAgentClient({
    ca: read(k.certificateAuthority, '--kubelet-certificate-authority'),
    cert: cert ?? fallback?.cert,
    key: cert ? key : fallback?.key,
    preferredAddressTypes: k.preferredAddressTypes,
    timeoutMs: k.timeoutMs,
  });
}
