/**
 * The node agent's RuntimeHelper (what kuberuntime asks kubelet): a container's environment,
 * mounts and hostname (kubelet's GenerateRunContainerOptions), the pod's DNS, its cgroup parent
 * and its directory. `createPodRuntimeHelper` wires one from a REST client.
 */
import type { Logger } from 'pino';
import type { RestClient } from '../../client/rest-client';
import type { Pod, RunContainerOptions, RuntimeHelper } from '../types';
import { makeMounts, podHostnameAndDomain } from '../volumes/mounts';
import { ServiceAccountTokenManager } from '../volumes/token-manager';
import { VolumeManager } from '../volumes/volume-manager';
import { PodDNSConfigurer, type DNSConfig } from './dns';
import { makeEnvironmentVariables } from './make-env';
import { podCgroupParent } from './qos';
import { apiObjectSources, type ObjectSources, type Recorder } from './sources';
import { standaloneObjectSources } from '../standalone';

export interface PodRuntimeHelperOptions {
  sources: ObjectSources;
  recorder: Recorder;
  volumes: VolumeManager;
  nodeName: string;
  nodeIP: string;
  /** the node's allocatable resources (downward API defaults for unset limits) */
  allocatable?: () => Record<string, unknown>;
  /** --cluster-dns */
  clusterDNS?: string[];
  /** --cluster-domain */
  clusterDomain?: string;
  /** --resolv-conf (default /etc/resolv.conf; empty: none) */
  resolvConf?: string;
  cgroupsPerQOS?: boolean;
  cgroupRoot?: string;
  /**
   * the QoS cgroup manager (cm/QosCgroupManager) under --cgroups-per-qos: the pod's cgroup is made
   * with its limits before the sandbox, and its name is the cgroup parent
   */
  podCgroups?: { ensurePod(pod: Pod): string };
  /** the host's hosts file, copied for host-network pods (default /etc/hosts) */
  hostHostsFile?: string;
}

export class PodRuntimeHelper implements RuntimeHelper {
  readonly #opts: PodRuntimeHelperOptions;
  readonly #dns: PodDNSConfigurer;

  constructor(opts: PodRuntimeHelperOptions) {
    this.#opts = opts;
    this.#dns = new PodDNSConfigurer({
      clusterDNS: opts.clusterDNS ?? [],
      clusterDomain: opts.clusterDomain ?? '',
      resolvConf: opts.resolvConf ?? '/etc/resolv.conf',
      nodeName: opts.nodeName,
      nodeIPs: opts.nodeIP ? [opts.nodeIP] : [],
      recorder: opts.recorder,
    });
  }

  async generateRunContainerOptions(pod: Pod, container: Record<string, unknown>, podIPs: string[]): Promise<RunContainerOptions> {
    const { hostname, hostDomain } = podHostnameAndDomain(pod, this.#opts.clusterDomain ?? '');
    const envs = await makeEnvironmentVariables(
      { sources: this.#opts.sources, recorder: this.#opts.recorder, hostIP: this.#opts.nodeIP, allocatable: this.#opts.allocatable?.() ?? {} },
      pod,
      container,
      podIPs,
    );
    const uid = pod.metadata?.uid ?? '';
    const volumes = this.#opts.volumes.getMountedVolumes(uid) ?? (await this.#opts.volumes.mountPod(pod));
    const mounts = makeMounts({
      pod,
      podDir: this.getPodDir(uid),
      container,
      hostname,
      hostDomain,
      podIPs,
      volumes,
      envs,
      hostHostsFile: this.#opts.hostHostsFile,
    });
    return { envs, mounts, hostname, hostDomain };
  }

  getPodDNS(pod: Pod): DNSConfig {
    return this.#dns.getPodDNS(pod);
  }

  getPodCgroupParent(pod: Pod): string {
    if (this.#opts.podCgroups && (this.#opts.cgroupsPerQOS ?? true)) return this.#opts.podCgroups.ensurePod(pod);
    return podCgroupParent(pod, this.#opts.cgroupsPerQOS ?? true, this.#opts.cgroupRoot ?? '/');
  }

  getPodDir(podUid: string): string {
    return this.#opts.volumes.getPodDir(podUid);
  }
}

export interface CreatePodRuntimeHelperOptions extends Omit<PodRuntimeHelperOptions, 'sources' | 'volumes'> {
  /** absent in the standalone mode: volumes and env that read API objects fail with a reason */
  client?: RestClient;
  /** --root-dir: pods live under <rootDir>/pods/<uid> */
  rootDir: string;
  logger?: Logger;
  /** stops the informers the API sources start (services) */
  signal?: AbortSignal;
}

/** the helper and its volume manager over the API server (the agent runs volumes.resync() periodically) */
export function createPodRuntimeHelper(opts: CreatePodRuntimeHelperOptions): { helper: PodRuntimeHelper; volumes: VolumeManager } {
  const { client, rootDir, logger, signal, ...rest } = opts;
  const sources = client ? apiObjectSources(client, signal) : standaloneObjectSources();
  const volumes = new VolumeManager({
    rootDir,
    sources,
    recorder: rest.recorder,
    allocatable: rest.allocatable,
    tokens: new ServiceAccountTokenManager({ sources }),
    logger,
  });
  return { helper: new PodRuntimeHelper({ ...rest, sources, volumes }), volumes };
}
