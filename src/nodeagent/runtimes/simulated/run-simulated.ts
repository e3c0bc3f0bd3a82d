/**
 * `ballast nodeagent --container-runtime simulated [--simulated-nodes N]`: one process standing for
 * N nodes, as kwok does: the nodes' registration, status and lease (NodeFleet), and one pod informer
 * and work queue for all their pods (PodSimulator). No containers run and no agent server listens.
 *
 * Node names: the agent's node name (--hostname-override or the host name) when N is 1, else
 * <name>-0 ... <name>-(N-1). Each node is as one kubelet: the client's rate limit is N times
 * --kube-api-qps / --kube-api-burst. Addresses: --node-ip for a single node; otherwise made up in
 * 172.16.0.0/12, one block per base name so that two simulators on one cluster rarely collide.
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import { SharedInformer } from '../../../client/informer';
import { loadClientConfig } from '../../../client/kubeconfig';
import { RESOURCES } from '../../../client/resources';
import { RestClient } from '../../../client/rest-client';
import type { KubeObject } from '../../../client/types';
import { versionInfo } from '../../../server/version';
import type { NodeAgentConfig } from '../../config/types';
import { nodeHostname } from '../../node';
import { nodeStatusConfig } from '../../node/node-status-agent';
import type { NodeObject } from '../../node/setters';
import { NodeFleet, type FleetNodeSpec } from './node-fleet';
import { fallbackPodCidr, nodePodCidr, parseCidr4, simulatedNodeAddress } from './pod-ips';
import { PodSimulator, type SimulatedNodeDirectory } from './pod-simulator';
import { SIMULATED_RUNTIME } from './pod-stages';

export interface SimulatedNodesDeps {
  logger: Logger;
  signal: AbortSignal;
  /** a client to use instead of one built from --kubeconfig (its rate limit is then the caller's) */
  client?: RestClient;
  /** how long a Job's pods run before they Succeed */
  jobPodDurationMs?: number;
  /** called once everything has started (tests, the benchmark) */
  onStarted?: (handles: { fleet: NodeFleet; pods: PodSimulator }) => void;
}

/** the names of the nodes one simulator stands for */
export function simulatedNodeNames(base: string, count: number): string[] {
  return count === 1 ? [base] : Array.from({ length: count }, (_, i) => `${base}-${i}`);
}

/** the first index of a simulator's addresses and fallback pod ranges: a block per base name */
export function addressSlot(base: string): number {
  return (createHash('sha256').update(base).digest().readUInt32BE(0) % 256) * 4096;
}

/** nodeInfo.containerRuntimeVersion of simulated nodes */
export function simulatedRuntimeVersion(): string {
  return `${SIMULATED_RUNTIME}://${versionInfo().gitVersion.replace(/^v/, '')}`;
}

/** run the simulated nodes until the signal aborts; resolves to the exit code */
export async function runSimulatedNodes(config: NodeAgentConfig, deps: SimulatedNodesDeps): Promise<number> {
  const { logger, signal } = deps;
  const count = config.simulatedNodes;
  const base = nodeHostname(config.hostnameOverride, os.hostname());
  const names = simulatedNodeNames(base, count);
  const slot = addressSlot(base);
  const specs: FleetNodeSpec[] = names.map((name, i) => ({
    name,
    address: count === 1 && config.nodeIP && config.nodeIP !== '0.0.0.0' ? config.nodeIP : simulatedNodeAddress(slot + i),
  }));
  const index = new Map(specs.map((s, i) => [s.name, { address: s.address, fallbackCidr: fallbackPodCidr(slot + i) }]));
  const scale = (n: number) => (n > 0 ? n * count : n);
  const client =
    deps.client ??
    new RestClient(loadClientConfig(config.kubeconfig, { userAgent: 'ballast-nodeagent-simulated' }), {
      qps: scale(config.kubeAPIQPS),
      burst: scale(config.kubeAPIBurst),
      contentType: config.contentType,
    });

  // the Nodes as the API has them: their pod CIDRs (node IPAM) decide the pods' addresses
  const nodeInformer = new SharedInformer<KubeObject & NodeObject>(client, RESOURCES.nodes, {
    fieldSelector: count === 1 ? `metadata.name=${base}` : undefined,
    logger,
  });
  const flagCidr = count === 1 && config.podCIDR && parseCidr4(config.podCIDR) ? config.podCIDR : undefined;
  const directory: SimulatedNodeDirectory = {
    has: (name) => index.has(name),
    hostIP: (name) => index.get(name)?.address ?? '',
    podCidr: (name) => nodePodCidr(nodeInformer.store.get(name)?.spec) ?? flagCidr ?? index.get(name)!.fallbackCidr,
  };

  const fleet = new NodeFleet({
    client,
    nodes: specs,
    // --pod-cidr is one node's: each node of the fleet takes its own from its Node object
    config: { ...nodeStatusConfig(config), podCIDR: undefined },
    agentVersion: versionInfo().gitVersion,
    runtimeVersion: simulatedRuntimeVersion(),
    logger,
    nodeLookup: (name) => nodeInformer.store.get(name),
  });
  const pods = new PodSimulator({
    client,
    nodes: directory,
    logger,
    fieldSelector: count === 1 ? `spec.nodeName=${base}` : undefined,
    jobPodDurationMs: deps.jobPodDurationMs,
  });

  fleet.start();
  const running = [nodeInformer.run(signal), pods.run(signal)];
  logger.info({ nodes: count, first: names[0], runtime: SIMULATED_RUNTIME }, 'Simulated node agent started');
  deps.onStarted?.({ fleet, pods });

  await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
  await fleet.stop();
  await Promise.all(running);
  if (!deps.client) client.close();
  logger.info({ nodes: count, pods: pods.counts }, 'Simulated node agent stopped');
  return 0;
}
