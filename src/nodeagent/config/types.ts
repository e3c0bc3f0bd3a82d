/**
 * NodeAgentConfig: everything `ballast nodeagent` acts on, checked, in one typed object (kubelet's
 * KubeletFlags and KubeletConfiguration merged, camelCase as in the v1beta1 file). Durations are
 * milliseconds (`...Ms`); paths are absolute.
 */
import type { FeatureGates } from '../../options/feature-gates';
import type { LoggingConfig } from '../../server/logging/config';
import type { EvictionThreshold } from './eviction';
import type { Taint } from './flag-values';

export type ContainerRuntimeKind = 'remote' | 'process' | 'simulated';

export interface NodeAgentAuthentication {
  readonly anonymous: { readonly enabled: boolean };
  readonly webhook: { readonly enabled: boolean; readonly cacheTTLMs: number };
  readonly x509: { readonly clientCAFile?: string };
}

export interface NodeAgentAuthorization {
  readonly mode: 'AlwaysAllow' | 'Webhook';
  readonly webhook: { readonly cacheAuthorizedTTLMs: number; readonly cacheUnauthorizedTTLMs: number };
}

export interface NodeAgentConfig {
  /** --config, absolute; undefined when the flags alone configure the agent */
  readonly configFile?: string;
  readonly kubeconfig?: string;
  readonly bootstrapKubeconfig?: string;
  readonly certDir: string;
  readonly rootDir: string;
  readonly podLogsDir: string;
  readonly hostnameOverride?: string;
  readonly nodeIP?: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly registerNode: boolean;
  readonly registerWithTaints: readonly Taint[];
  readonly registerSchedulable: boolean;
  readonly providerID: string;

  readonly enableServer: boolean;
  readonly address: string;
  readonly port: number;
  /** 0: no read-only server */
  readonly readOnlyPort: number;
  readonly healthzBindAddress: string;
  /** 0: no healthz server */
  readonly healthzPort: number;
  readonly enableDebuggingHandlers: boolean;
  readonly streamingConnectionIdleTimeoutMs: number;
  readonly tlsCertFile?: string;
  readonly tlsPrivateKeyFile?: string;
  readonly tlsMinVersion?: string;
  readonly tlsCipherSuites: readonly string[];
  readonly rotateCertificates: boolean;
  readonly serverTLSBootstrap: boolean;
  readonly authentication: NodeAgentAuthentication;
  readonly authorization: NodeAgentAuthorization;

  readonly containerRuntime: ContainerRuntimeKind;
  readonly containerRuntimeEndpoint: string;
  /** defaults to containerRuntimeEndpoint */
  readonly imageServiceEndpoint: string;
  readonly runtimeRequestTimeoutMs: number;
  readonly podInfraContainerImage: string;
  /** nodes one process stands for with the simulated runtime (1 otherwise) */
  readonly simulatedNodes: number;
  readonly serializeImagePulls: boolean;
  readonly registryPullQPS: number;
  readonly registryBurst: number;
  readonly imagePullProgressDeadlineMs: number;

  readonly staticPodPath?: string;
  readonly fileCheckFrequencyMs: number;
  readonly staticPodURL?: string;
  /** header name -> values in the order given */
  readonly staticPodURLHeader: Readonly<Record<string, readonly string[]>>;
  readonly httpCheckFrequencyMs: number;
  readonly syncFrequencyMs: number;

  readonly nodeStatusUpdateFrequencyMs: number;
  readonly nodeStatusReportFrequencyMs: number;
  readonly nodeLeaseDurationSeconds: number;
  /** -1: no cap */
  readonly nodeStatusMaxImages: number;
  readonly maxPods: number;
  readonly podsPerCore: number;
  readonly podCIDR: string;
  readonly podPidsLimit: number;
  readonly maxOpenFiles: number;
  readonly volumeStatsAggPeriodMs: number;

  readonly clusterDNS: readonly string[];
  readonly clusterDomain: string;
  /** empty: no resolver configuration for dnsPolicy Default */
  readonly resolvConf: string;
  readonly hairpinMode: string;
  readonly cniBinDir: string;
  readonly cniConfDir: string;
  readonly cniCacheDir: string;
  readonly networkPluginMTU: number;
  readonly makeIPTablesUtilChains: boolean;
  readonly iptablesMasqueradeBit: number;
  readonly iptablesDropBit: number;
  readonly allowedUnsafeSysctls: readonly string[];

  readonly kubeReserved: Readonly<Record<string, string>>;
  readonly systemReserved: Readonly<Record<string, string>>;
  readonly kubeReservedCgroup: string;
  readonly systemReservedCgroup: string;
  readonly enforceNodeAllocatable: readonly string[];
  readonly evictionHard: Readonly<Record<string, string>>;
  readonly evictionSoft: Readonly<Record<string, string>>;
  readonly evictionSoftGracePeriod: Readonly<Record<string, string>>;
  readonly evictionMinimumReclaim: Readonly<Record<string, string>>;
  readonly evictionMaxPodGracePeriod: number;
  readonly evictionPressureTransitionPeriodMs: number;
  /** the four maps above, parsed (hard first) */
  readonly evictionThresholds: readonly EvictionThreshold[];
  readonly experimentalAllocatableIgnoreEviction: boolean;
  readonly kernelMemcgNotification: boolean;

  readonly imageGCHighThresholdPercent: number;
  readonly imageGCLowThresholdPercent: number;
  readonly imageMinimumGCAgeMs: number;
  readonly minimumContainerTTLMs: number;
  readonly maxContainerCount: number;
  readonly maxPerPodContainerCount: number;
  readonly containerLogMaxSize: string;
  readonly containerLogMaxSizeBytes: number;
  readonly containerLogMaxFiles: number;

  readonly cgroupsPerQOS: boolean;
  readonly cgroupDriver: 'cgroupfs' | 'systemd';
  readonly cgroupRoot: string;
  readonly kubeletCgroups: string;
  readonly systemCgroups: string;
  readonly runtimeCgroups: string;
  readonly cpuCFSQuota: boolean;
  readonly cpuCFSQuotaPeriodMs: number;
  readonly cpuManagerPolicy: string;
  readonly failSwapOn: boolean;
  readonly oomScoreAdj: number;

  readonly kubeAPIQPS: number;
  readonly kubeAPIBurst: number;
  readonly contentType: 'application/vnd.kubernetes.protobuf' | 'application/json';
  readonly eventRecordQPS: number;
  readonly eventBurst: number;

  readonly volumePluginDir: string;
  readonly enableControllerAttachDetach: boolean;
  readonly keepTerminatedPodVolumes: boolean;
  readonly configMapAndSecretChangeDetectionStrategy: 'Get' | 'Cache' | 'Watch';
  readonly shutdownGracePeriodMs: number;
  readonly shutdownGracePeriodCriticalPodsMs: number;
  readonly runOnce: boolean;

  /** the effective v1beta1 KubeletConfiguration (durations as Go strings), for /configz */
  readonly componentConfig: Readonly<Record<string, unknown>>;
  readonly featureGates: FeatureGates;
  readonly logging: LoggingConfig;
  /** flags given that Ballast parses but does not act on */
  readonly ignoredFlags: readonly string[];
}
