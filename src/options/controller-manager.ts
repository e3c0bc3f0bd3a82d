/**
 * `ballast controller-manager`'s options: the groups in --help order, and the checked settings the
 * command acts on, with kube 1.20's validation and wording.
 */
import path from 'node:path';
import type { LockKind } from '../client/leader-election';
import { LOCK_KINDS } from '../client/leader-election';
import { DEFAULT_CONTROLLER_SETTINGS, type ControllerSettings } from '../controllers/settings';
import type { LoggingConfig } from '../server/logging/config';
import {
  certificateSigningOptions,
  controllerLimitOptions,
  controllerManagerOptions,
  delegatedAuthOptions,
  featureGateOptions,
  genericControllerManagerOptions,
  SIGNER_FLAGS,
  volumeRecyclerOptions,
} from './controller-manager-flags';
import { formatDuration } from './duration';
import { FeatureGates } from './feature-gates';
import { generalOptions, globalOptions, loggingConfig, loggingOptions } from './logging';
import type { LeaderElectionSettings } from '../client/leader-run';
import type { ParsedOptions } from './parse';
import { secureServingOptions } from './serving';
import { FlagError } from './types';
import type { OptionGroup } from './types';

export const controllerManagerOptionGroups: readonly OptionGroup[] = Object.freeze([
  globalOptions,
  genericControllerManagerOptions,
  controllerManagerOptions,
  certificateSigningOptions,
  controllerLimitOptions,
  volumeRecyclerOptions,
  secureServingOptions({
    securePort: '10257',
    certDirText: '(none: in memory)',
    portZeroDisables: true,
    certDirDescription: 'directory for the self-signed serving certificate and key made when --tls-cert-file and --tls-private-key-file are not given (kept in memory when empty); ignored when they are',
  }),
  ...delegatedAuthOptions,
  featureGateOptions,
  loggingOptions,
  generalOptions,
]);

export interface DelegatedAuthConfig {
  clientCaFile?: string;
  authenticationKubeconfig?: string;
  skipLookup: boolean;
  tolerateLookupFailure: boolean;
  tokenCacheTtlMs: number;
  requestHeader: {
    clientCaFile?: string;
    allowedNames: readonly string[];
    usernameHeaders: readonly string[];
    groupHeaders: readonly string[];
    extraHeadersPrefix: readonly string[];
  };
  authorizationKubeconfig?: string;
  alwaysAllowPaths: readonly string[];
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

export interface ServingConfig {
  bindAddress: string;
  /** 0 = no serving */
  securePort: number;
  certDir?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tlsMinVersion?: string;
  tlsCipherSuites: readonly string[];
}

export type LeaderElectionConfig = LeaderElectionSettings;

/** what `ballast controller-manager` acts on */
export interface ControllerManagerConfig {
  kubeconfig?: string;
  master?: string;
  contentType: 'application/vnd.kubernetes.protobuf' | 'application/json';
  qps: number;
  burst: number;
  /** --controllers as given (see controllerEnabled) */
  controllers: readonly string[];
  controllerStartIntervalMs: number;
  useServiceAccountCredentials: boolean;
  /** --cloud-provider; empty: none (the cloud-only controllers are skipped) */
  cloudProvider: string;
  leaderElection: LeaderElectionConfig;
  serving: ServingConfig;
  auth: DelegatedAuthConfig;
  settings: ControllerSettings;
  featureGates: FeatureGates;
  logging: LoggingConfig;
  /** given flags Ballast parses but does not act on */
  ignoredFlags: readonly string[];
}

const resolved = (v: string | undefined): string | undefined => (v ? path.resolve(v) : undefined);

/** a component's secure serving from the shared serving flags (kube's SecureServingOptions) */
export function servingConfig(parsed: ParsedOptions, defaultPort: number): ServingConfig {
  return {
    bindAddress: parsed.string('bind-address') || '0.0.0.0',
    securePort: parsed.number('secure-port') ?? defaultPort,
    certDir: resolved(parsed.string('cert-dir')),
    tlsCertFile: resolved(parsed.string('tls-cert-file') || undefined),
    tlsPrivateKeyFile: resolved(parsed.string('tls-private-key-file') || undefined),
    tlsMinVersion: parsed.string('tls-min-version') || undefined,
    tlsCipherSuites: parsed.list('tls-cipher-suites').filter((x) => x !== ''),
  };
}

/** kube's field error form: `<field>: Invalid value: "<value>": <detail>` */
const invalid = (field: string, value: string, detail: string): FlagError => new FlagError(`${field}: Invalid value: "${value}": ${detail}`);

export function leaderElectionConfig(parsed: ParsedOptions): LeaderElectionConfig {
  const lock = parsed.string('leader-elect-resource-lock') ?? 'leases';
  const leaseDurationMs = parsed.number('leader-elect-lease-duration') ?? 15_000;
  const renewDeadlineMs = parsed.number('leader-elect-renew-deadline') ?? 10_000;
  const retryPeriodMs = parsed.number('leader-elect-retry-period') ?? 2000;
  const enabled = parsed.bool('leader-elect');
  if (enabled) {
    // kube validates these only when leader election is on (ValidateLeaderElectionConfiguration)
    if (leaseDurationMs <= renewDeadlineMs) {
      throw invalid('leaderElection.leaseDuration', formatDuration(leaseDurationMs), 'LeaseDuration must be greater than RenewDeadline');
    }
    if (lock === '') throw invalid('leaderElection.resourceLock', lock, 'resourceLock is required');
    if (!(LOCK_KINDS as readonly string[]).includes(lock)) {
      throw invalid('leaderElection.resourceLock', lock, `must be one of ${LOCK_KINDS.join(', ')}`);
    }
    if (parsed.string('leader-elect-resource-name') === '') throw invalid('leaderElection.resourceName', '', 'resourceName is required');
    if (parsed.string('leader-elect-resource-namespace') === '') throw invalid('leaderElection.resourceNamespace', '', 'resourceNamespace is required');
    // client-go's NewLeaderElector: the renew deadline must outlast a jittered retry (JitterFactor 1.2)
    if (renewDeadlineMs <= retryPeriodMs * 1.2) throw new FlagError('renewDeadline must be greater than retryPeriod*JitterFactor');
  }
  return {
    enabled,
    lock: lock as LockKind,
    name: parsed.string('leader-elect-resource-name') ?? 'kube-controller-manager',
    namespace: parsed.string('leader-elect-resource-namespace') ?? 'kube-system',
    leaseDurationMs,
    renewDeadlineMs,
    retryPeriodMs,
  };
}

/** kube's CSRSigningControllerOptions.Validate */
function clusterSigning(parsed: ParsedOptions): ControllerSettings['clusterSigning'] {
  const certFile = parsed.string('cluster-signing-cert-file') || undefined;
  const keyFile = parsed.string('cluster-signing-key-file') || undefined;
  const signers: Record<string, { certFile: string; keyFile: string }> = {};
  let particular = false;
  for (const [stem, key] of Object.entries(SIGNER_FLAGS)) {
    const cert = parsed.string(`cluster-signing-${stem}-cert-file`) || '';
    const k = parsed.string(`cluster-signing-${stem}-key-file`) || '';
    if (cert || k) particular = true;
    if (cert && !k) throw new FlagError(`"cluster-signing-${stem}": cannot specify cert without key`);
    if (k && !cert) throw new FlagError(`"cluster-signing-${stem}": cannot specify key without cert`);
    if (cert) signers[key] = { certFile: path.resolve(cert), keyFile: path.resolve(k) };
  }
  if ((certFile || keyFile) && particular) {
    throw new FlagError('cannot specify --cluster-signing-{cert,key}-file and other --cluster-signing-*-file flags at the same time');
  }
  return {
    certFile: resolved(certFile),
    keyFile: resolved(keyFile),
    durationMs: parsed.number('cluster-signing-duration') ?? DEFAULT_CONTROLLER_SETTINGS.clusterSigning.durationMs,
    signers: Object.freeze(signers),
  };
}

/** the mask sizes must fit their address family (kube's node IPAM checks, done at start here) */
function checkNodeCidrMasks(parsed: ParsedOptions): void {
  const check = (flag: string, max: number): void => {
    const v = parsed.number(flag) ?? 0;
    if (parsed.isSet(flag) && (v < 1 || v > max)) throw new FlagError(`--${flag} must be between 1 and ${max}, got ${v}`);
  };
  const dualStack = (parsed.string('cluster-cidr') ?? '').split(',').filter((c) => c.trim() !== '').length > 1;
  check('node-cidr-mask-size', dualStack ? 32 : (parsed.string('cluster-cidr') ?? '').includes(':') ? 128 : 32);
  check('node-cidr-mask-size-ipv4', 32);
  check('node-cidr-mask-size-ipv6', 128);
  if (dualStack && parsed.isSet('node-cidr-mask-size')) {
    throw new FlagError('usage of --node-cidr-mask-size is not allowed with dual-stack clusters');
  }
  if (!dualStack && (parsed.isSet('node-cidr-mask-size-ipv4') || parsed.isSet('node-cidr-mask-size-ipv6')) && parsed.isSet('node-cidr-mask-size')) {
    throw new FlagError('usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed with non dual-stack clusters');
  }
}

function controllerSettings(parsed: ParsedOptions): ControllerSettings {
  const n = (flag: string, fallback: number): number => parsed.number(flag) ?? fallback;
  const d = DEFAULT_CONTROLLER_SETTINGS;
  return {
    concurrentDeploymentSyncs: n('concurrent-deployment-syncs', d.concurrentDeploymentSyncs),
    concurrentReplicaSetSyncs: n('concurrent-replicaset-syncs', d.concurrentReplicaSetSyncs),
    concurrentRcSyncs: n('concurrent_rc_syncs', d.concurrentRcSyncs),
    concurrentGcSyncs: n('concurrent-gc-syncs', d.concurrentGcSyncs),
    concurrentNamespaceSyncs: n('concurrent-namespace-syncs', d.concurrentNamespaceSyncs),
    concurrentServiceAccountTokenSyncs: n('concurrent-serviceaccount-token-syncs', d.concurrentServiceAccountTokenSyncs),
    concurrentEndpointSyncs: n('concurrent-endpoint-syncs', d.concurrentEndpointSyncs),
    concurrentServiceEndpointSyncs: n('concurrent-service-endpoint-syncs', d.concurrentServiceEndpointSyncs),
    concurrentStatefulSetSyncs: n('concurrent-statefulset-syncs', d.concurrentStatefulSetSyncs),
    concurrentResourceQuotaSyncs: n('concurrent-resource-quota-syncs', d.concurrentResourceQuotaSyncs),
    concurrentTtlAfterFinishedSyncs: n('concurrent-ttl-after-finished-syncs', d.concurrentTtlAfterFinishedSyncs),
    deploymentControllerSyncPeriodMs: n('deployment-controller-sync-period', d.deploymentControllerSyncPeriodMs),
    namespaceSyncPeriodMs: n('namespace-sync-period', d.namespaceSyncPeriodMs),
    resourceQuotaSyncPeriodMs: n('resource-quota-sync-period', d.resourceQuotaSyncPeriodMs),
    minResyncPeriodMs: n('min-resync-period', d.minResyncPeriodMs),
    terminatedPodGcThreshold: n('terminated-pod-gc-threshold', d.terminatedPodGcThreshold),
    enableGarbageCollector: parsed.bool('enable-garbage-collector'),
    serviceAccountPrivateKeyFile: resolved(parsed.string('service-account-private-key-file')),
    rootCaFile: resolved(parsed.string('root-ca-file')),
    mirroringConcurrentServiceEndpointSyncs: n('mirroring-concurrent-service-endpoint-syncs', d.mirroringConcurrentServiceEndpointSyncs),
    endpointUpdatesBatchPeriodMs: n('endpoint-updates-batch-period', d.endpointUpdatesBatchPeriodMs),
    endpointSliceUpdatesBatchPeriodMs: n('endpointslice-updates-batch-period', d.endpointSliceUpdatesBatchPeriodMs),
    mirroringEndpointSliceUpdatesBatchPeriodMs: n('mirroring-endpointslice-updates-batch-period', d.mirroringEndpointSliceUpdatesBatchPeriodMs),
    maxEndpointsPerSlice: n('max-endpoints-per-slice', d.maxEndpointsPerSlice),
    mirroringMaxEndpointsPerSubset: n('mirroring-max-endpoints-per-subset', d.mirroringMaxEndpointsPerSubset),
    pvClaimBinderSyncPeriodMs: n('pvclaimbinder-sync-period', d.pvClaimBinderSyncPeriodMs),
    enableHostPathProvisioner: parsed.bool('enable-hostpath-provisioner'),
    enableDynamicProvisioning: parsed.bool('enable-dynamic-provisioning'),
    pvRecycler: {
      minimumTimeoutHostPathSeconds: n('pv-recycler-minimum-timeout-hostpath', d.pvRecycler.minimumTimeoutHostPathSeconds),
      timeoutIncrementHostPathSeconds: n('pv-recycler-timeout-increment-hostpath', d.pvRecycler.timeoutIncrementHostPathSeconds),
      podTemplateFileHostPath: resolved(parsed.string('pv-recycler-pod-template-filepath-hostpath')),
    },
    horizontalPodAutoscaler: {
      syncPeriodMs: n('horizontal-pod-autoscaler-sync-period', d.horizontalPodAutoscaler.syncPeriodMs),
      cpuInitializationPeriodMs: n('horizontal-pod-autoscaler-cpu-initialization-period', d.horizontalPodAutoscaler.cpuInitializationPeriodMs),
      downscaleStabilizationMs: n('horizontal-pod-autoscaler-downscale-stabilization', d.horizontalPodAutoscaler.downscaleStabilizationMs),
      initialReadinessDelayMs: n('horizontal-pod-autoscaler-initial-readiness-delay', d.horizontalPodAutoscaler.initialReadinessDelayMs),
      tolerance: n('horizontal-pod-autoscaler-tolerance', d.horizontalPodAutoscaler.tolerance),
    },
    nodeLifecycle: {
      monitorPeriodMs: n('node-monitor-period', d.nodeLifecycle.monitorPeriodMs),
      monitorGracePeriodMs: n('node-monitor-grace-period', d.nodeLifecycle.monitorGracePeriodMs),
      startupGracePeriodMs: n('node-startup-grace-period', d.nodeLifecycle.startupGracePeriodMs),
      podEvictionTimeoutMs: n('pod-eviction-timeout', d.nodeLifecycle.podEvictionTimeoutMs),
      evictionRate: n('node-eviction-rate', d.nodeLifecycle.evictionRate),
      secondaryEvictionRate: n('secondary-node-eviction-rate', d.nodeLifecycle.secondaryEvictionRate),
      largeClusterSizeThreshold: n('large-cluster-size-threshold', d.nodeLifecycle.largeClusterSizeThreshold),
      unhealthyZoneThreshold: n('unhealthy-zone-threshold', d.nodeLifecycle.unhealthyZoneThreshold),
      enableTaintManager: parsed.bool('enable-taint-manager'),
    },
    nodeIpam: {
      allocateNodeCidrs: parsed.bool('allocate-node-cidrs'),
      cidrAllocatorType: parsed.string('cidr-allocator-type') || d.nodeIpam.cidrAllocatorType,
      clusterCidrs: (parsed.string('cluster-cidr') ?? '').split(',').map((c) => c.trim()).filter((c) => c !== ''),
      serviceClusterIpRange: parsed.string('service-cluster-ip-range') || undefined,
      nodeCidrMaskSize: n('node-cidr-mask-size', 0),
      nodeCidrMaskSizeIpv4: n('node-cidr-mask-size-ipv4', 0),
      nodeCidrMaskSizeIpv6: n('node-cidr-mask-size-ipv6', 0),
    },
    clusterSigning: clusterSigning(parsed),
  };
}

/** delegated authentication and authorization from the section 5 flags (their defaults are each component's) */
export function delegatedAuth(parsed: ParsedOptions): DelegatedAuthConfig {
  return {
    clientCaFile: resolved(parsed.string('client-ca-file')),
    authenticationKubeconfig: resolved(parsed.string('authentication-kubeconfig')),
    skipLookup: parsed.bool('authentication-skip-lookup'),
    tolerateLookupFailure: parsed.bool('authentication-tolerate-lookup-failure'),
    tokenCacheTtlMs: parsed.number('authentication-token-webhook-cache-ttl') ?? 10_000,
    requestHeader: {
      clientCaFile: resolved(parsed.string('requestheader-client-ca-file')),
      allowedNames: parsed.list('requestheader-allowed-names').filter((x) => x !== ''),
      usernameHeaders: parsed.list('requestheader-username-headers').filter((x) => x !== ''),
      groupHeaders: parsed.list('requestheader-group-headers').filter((x) => x !== ''),
      extraHeadersPrefix: parsed.list('requestheader-extra-headers-prefix').filter((x) => x !== ''),
    },
    authorizationKubeconfig: resolved(parsed.string('authorization-kubeconfig')),
    alwaysAllowPaths: parsed.list('authorization-always-allow-paths').filter((x) => x !== ''),
    authorizedTtlMs: parsed.number('authorization-webhook-cache-authorized-ttl') ?? 10_000,
    unauthorizedTtlMs: parsed.number('authorization-webhook-cache-unauthorized-ttl') ?? 10_000,
  };
}

/** check the parsed flags against each other and build the configuration; throws FlagError */
export function controllerManagerConfig(parsed: ParsedOptions): ControllerManagerConfig {
  checkNodeCidrMasks(parsed);
  const certFile = parsed.string('tls-cert-file') || undefined;
  const keyFile = parsed.string('tls-private-key-file') || undefined;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new FlagError('--tls-cert-file and --tls-private-key-file must be given together');
  const kubeconfig = parsed.string('kubeconfig') || undefined;
  const master = parsed.string('master') || undefined;
  if (!kubeconfig && !master) {
    // kube falls back to in-cluster configuration; Ballast has no in-cluster mode yet
    throw new FlagError('neither --kubeconfig nor --master was specified');
  }
  const settings = controllerSettings(parsed);
  return {
    kubeconfig: resolved(kubeconfig),
    master,
    contentType: parsed.string('kube-api-content-type') === 'application/json' ? 'application/json' : 'application/vnd.kubernetes.protobuf',
    qps: parsed.number('kube-api-qps') ?? 20,
    burst: parsed.number('kube-api-burst') ?? 30,
    controllers: Object.freeze(parsed.list('controllers')),
    controllerStartIntervalMs: parsed.number('controller-start-interval') ?? 0,
    useServiceAccountCredentials: parsed.bool('use-service-account-credentials'),
    cloudProvider: parsed.string('cloud-provider') ?? '',
    leaderElection: leaderElectionConfig(parsed),
    serving: servingConfig(parsed, 10257),
    auth: delegatedAuth(parsed),
    settings,
    featureGates: new FeatureGates((parsed.value('feature-gates') as Record<string, boolean> | undefined) ?? {}),
    logging: loggingConfig(parsed),
    ignoredFlags: Object.freeze(parsed.acceptedButIgnored()),
  };
}
