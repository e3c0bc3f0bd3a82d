/**
 * The scheduler's configuration, in two forms:
 * - `KubeSchedulerConfiguration`: kube 1.20's kubescheduler.config.k8s.io/v1beta1 object as it is
 *   read from `--config` (or built from flags), after defaulting. Field names are the wire names.
 * - `SchedulerProfile`: one profile resolved to what the framework runs: the plugins of every
 *   extension point (provider defaults merged with the profile's enabled/disabled lists, or the
 *   plugins a Policy maps to) and the arguments of every plugin that takes them.
 */

export const CONFIG_API_VERSION = 'kubescheduler.config.k8s.io/v1beta1';
export const CONFIG_KIND = 'KubeSchedulerConfiguration';
export const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
export const DEFAULT_PROVIDER = 'DefaultProvider';
export const CLUSTER_AUTOSCALER_PROVIDER = 'ClusterAutoscalerProvider';
/** the old insecure port (--port) that health and metrics listen on by default */
export const DEFAULT_INSECURE_PORT = 10251;
/** the ConfigMap data key holding a Policy */
export const POLICY_CONFIGMAP_KEY = 'policy.cfg';

/** the v1beta1 extension points, in the order the framework runs them */
export const EXTENSION_POINTS = [
  'queueSort',
  'preFilter',
  'filter',
  'postFilter',
  'preScore',
  'score',
  'reserve',
  'permit',
  'preBind',
  'bind',
  'postBind',
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

export interface PluginRef {
  name: string;
  /** only Score plugins carry a weight */
  weight?: number;
}

export interface PluginSet {
  enabled?: PluginRef[];
  disabled?: PluginRef[];
}

export type Plugins = Partial<Record<ExtensionPoint, PluginSet>>;

export interface PluginConfig {
  name: string;
  /** the plugin's arguments (defaulted when the plugin has a known args type) */
  args?: Record<string, unknown>;
}

export interface KubeSchedulerProfile {
  schedulerName: string;
  plugins?: Plugins;
  pluginConfig?: PluginConfig[];
}

export interface LeaderElectionConfiguration {
  leaderElect: boolean;
  /** Go duration text, e.g. `15s` */
  leaseDuration: string;
  renewDeadline: string;
  retryPeriod: string;
  resourceLock: string;
  resourceName: string;
  resourceNamespace: string;
}

export interface ClientConnectionConfiguration {
  kubeconfig: string;
  acceptContentTypes: string;
  contentType: string;
  qps: number;
  burst: number;
}

/** an HTTP extender (kept and written back; Ballast's scheduler does not call extenders) */
export interface Extender {
  urlPrefix: string;
  filterVerb?: string;
  preemptVerb?: string;
  prioritizeVerb?: string;
  weight?: number;
  bindVerb?: string;
  enableHTTPS?: boolean;
  tlsConfig?: Record<string, unknown>;
  httpTimeout?: string;
  nodeCacheCapable?: boolean;
  managedResources?: Array<{ name: string; ignoredByScheduler?: boolean }>;
  ignorable?: boolean;
}

export interface KubeSchedulerConfiguration {
  apiVersion: typeof CONFIG_API_VERSION;
  kind: typeof CONFIG_KIND;
  parallelism: number;
  leaderElection: LeaderElectionConfiguration;
  clientConnection: ClientConnectionConfiguration;
  /** host:port, or empty when switched off */
  healthzBindAddress: string;
  metricsBindAddress: string;
  enableProfiling: boolean;
  enableContentionProfiling: boolean;
  /** 0 means adaptive (50% shrinking to 5% as the cluster grows) */
  percentageOfNodesToScore: number;
  podInitialBackoffSeconds: number;
  podMaxBackoffSeconds: number;
  profiles: KubeSchedulerProfile[];
  extenders?: Extender[];
}

/** one profile as the framework runs it */
export interface SchedulerProfile {
  schedulerName: string;
  plugins: Record<ExtensionPoint, PluginRef[]>;
  /** arguments by plugin name: every enabled plugin with an args type, defaulted */
  pluginConfig: Record<string, Record<string, unknown>>;
}

/** where the plugins come from (kube's AlgorithmSource) */
export type AlgorithmSource =
  | { provider: string }
  | { policy: { file: string } }
  | { policy: { configMap: { namespace: string; name: string } } };

/** the deprecated Policy (kind Policy, apiVersion v1) */
export interface Policy {
  predicates?: PredicatePolicy[];
  priorities?: PriorityPolicy[];
  extenders?: Array<Record<string, unknown>>;
  hardPodAffinitySymmetricWeight?: number;
  alwaysCheckAllPredicates?: boolean;
}

export interface PredicatePolicy {
  name: string;
  argument?: {
    serviceAffinity?: { labels?: string[] };
    labelsPresence?: { labels?: string[]; presence?: boolean };
  };
}

export interface PriorityPolicy {
  name: string;
  weight: number;
  argument?: {
    serviceAntiAffinity?: { label: string };
    labelPreference?: { label: string; presence?: boolean };
    requestedToCapacityRatioArguments?: {
      shape?: Array<{ utilization: number; score: number }>;
      resources?: Array<{ name: string; weight: number }>;
    };
  };
}

/** a thrown configuration error; the CLI prints it on one line and exits 1 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
