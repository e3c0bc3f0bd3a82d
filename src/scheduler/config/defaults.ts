/**
 * kube 1.20's v1beta1 defaulting (SetDefaults_KubeSchedulerConfiguration and the leader election
 * recommendations), applied to a strictly decoded document.
 */
import { isIP } from 'node:net';
import type { FeatureGates } from '../../options/feature-gates';
import { defaultArgs, hasArgsType } from './plugin-args';
import type { Args } from './plugin-args';
import { CONFIG_API_VERSION, CONFIG_KIND, DEFAULT_INSECURE_PORT, DEFAULT_SCHEDULER_NAME } from './types';
import type { Extender, KubeSchedulerConfiguration, KubeSchedulerProfile, Plugins } from './types';

/** the decoded document before defaulting: every field optional */
export interface DecodedConfiguration {
  parallelism?: number;
  leaderElection?: Partial<KubeSchedulerConfiguration['leaderElection']>;
  clientConnection?: Partial<KubeSchedulerConfiguration['clientConnection']>;
  healthzBindAddress?: string;
  metricsBindAddress?: string;
  enableProfiling?: boolean;
  enableContentionProfiling?: boolean;
  percentageOfNodesToScore?: number;
  podInitialBackoffSeconds?: number;
  podMaxBackoffSeconds?: number;
  profiles?: Array<{ schedulerName?: string; plugins?: Plugins; pluginConfig?: Array<{ name: string; args?: Args }> }>;
  extenders?: Extender[];
}

const DEFAULT_BIND_ADDRESS = `0.0.0.0:${DEFAULT_INSECURE_PORT}`;

/** split `host:port` (brackets around IPv6) as Go's net.SplitHostPort; undefined when it cannot */
export function splitHostPort(addr: string): { host: string; port: string } | undefined {
  if (addr.startsWith('[')) {
    const m = /^\[([^\]]*)\]:([^:]*)$/.exec(addr);
    return m ? { host: m[1], port: m[2] } : undefined;
  }
  const i = addr.lastIndexOf(':');
  if (i < 0 || addr.indexOf(':') !== i) return undefined;
  return { host: addr.slice(0, i), port: addr.slice(i + 1) };
}

export const joinHostPort = (host: string, port: string | number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * kube's bind address defaulting: unset -> 0.0.0.0:10251; `:port` -> 0.0.0.0:port; a bare IP gets
 * port 10251; anything else falls back to the default (kube stomps it rather than failing).
 */
export function defaultBindAddress(value: string | undefined): string {
  if (value === undefined) return DEFAULT_BIND_ADDRESS;
  const split = splitHostPort(value);
  if (split) return joinHostPort(split.host || '0.0.0.0', split.port);
  if (isIP(value) !== 0) return joinHostPort(value, DEFAULT_INSECURE_PORT);
  return DEFAULT_BIND_ADDRESS;
}

function defaultProfile(p: NonNullable<DecodedConfiguration['profiles']>[number], only: boolean, gates: FeatureGates): KubeSchedulerProfile {
  const out: KubeSchedulerProfile = {
    // only a lone profile gets the default name; validation requires the others to have one
    schedulerName: p.schedulerName ?? (only ? DEFAULT_SCHEDULER_NAME : ''),
  };
  if (p.plugins !== undefined) out.plugins = structuredClone(p.plugins);
  if (p.pluginConfig !== undefined) {
    out.pluginConfig = p.pluginConfig.map((pc) => ({
      name: pc.name,
      args: hasArgsType(pc.name) ? defaultArgs(pc.name, pc.args, gates) : structuredClone(pc.args),
    }));
  }
  return out;
}

export function defaultConfiguration(d: DecodedConfiguration, gates: FeatureGates): KubeSchedulerConfiguration {
  const profiles = d.profiles && d.profiles.length > 0 ? d.profiles : [{}];
  const le = d.leaderElection ?? {};
  const cc = d.clientConnection ?? {};
  const enableProfiling = d.enableProfiling ?? true;
  const cfg: KubeSchedulerConfiguration = {
    apiVersion: CONFIG_API_VERSION,
    kind: CONFIG_KIND,
    parallelism: d.parallelism ?? 16,
    leaderElection: {
      leaderElect: le.leaderElect ?? true,
      leaseDuration: le.leaseDuration ?? '15s',
      renewDeadline: le.renewDeadline ?? '10s',
      retryPeriod: le.retryPeriod ?? '2s',
      resourceLock: le.resourceLock || 'leases',
      resourceName: le.resourceName || 'kube-scheduler',
      resourceNamespace: le.resourceNamespace || 'kube-system',
    },
    clientConnection: {
      kubeconfig: cc.kubeconfig ?? '',
      acceptContentTypes: cc.acceptContentTypes ?? '',
      contentType: cc.contentType || 'application/vnd.kubernetes.protobuf',
      // 0 is "unset" for these two, as in kube
      qps: cc.qps || 50,
      burst: cc.burst || 100,
    },
    healthzBindAddress: defaultBindAddress(d.healthzBindAddress),
    metricsBindAddress: defaultBindAddress(d.metricsBindAddress),
    enableProfiling,
    enableContentionProfiling: d.enableContentionProfiling ?? enableProfiling,
    percentageOfNodesToScore: d.percentageOfNodesToScore ?? 0,
    podInitialBackoffSeconds: d.podInitialBackoffSeconds ?? 1,
    podMaxBackoffSeconds: d.podMaxBackoffSeconds ?? 10,
    profiles: profiles.map((p) => defaultProfile(p, profiles.length === 1, gates)),
  };
  if (d.extenders && d.extenders.length > 0) cfg.extenders = structuredClone(d.extenders);
  return cfg;
}
