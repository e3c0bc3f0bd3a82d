/**
 * The settings controllers read, from the controller manager's options (spec 3, sections 1.1 and
 * 8). Durations are milliseconds. Defaults are kube 1.20's.
 */
export interface ControllerSettings {
  concurrentDeploymentSyncs: number;
  concurrentReplicaSetSyncs: number;
  concurrentRcSyncs: number;
  concurrentGcSyncs: number;
  concurrentNamespaceSyncs: number;
  concurrentServiceAccountTokenSyncs: number;
  concurrentEndpointSyncs: number;
  concurrentServiceEndpointSyncs: number;
  concurrentStatefulSetSyncs: number;
  concurrentResourceQuotaSyncs: number;
  concurrentTtlAfterFinishedSyncs: number;
  deploymentControllerSyncPeriodMs: number;
  namespaceSyncPeriodMs: number;
  resourceQuotaSyncPeriodMs: number;
  /** informers resync at a random period between this and twice this */
  minResyncPeriodMs: number;
  terminatedPodGcThreshold: number;
  enableGarbageCollector: boolean;
  /** --service-account-private-key-file (PEM), for legacy token secrets */
  serviceAccountPrivateKeyFile?: string;
  /** --root-ca-file (PEM bundle), put in token secrets and kube-root-ca.crt */
  rootCaFile?: string;
  /** --mirroring-concurrent-service-endpoint-syncs */
  mirroringConcurrentServiceEndpointSyncs: number;
  /** --endpoint-updates-batch-period, --endpointslice-updates-batch-period, --mirroring-endpointslice-updates-batch-period */
  endpointUpdatesBatchPeriodMs: number;
  endpointSliceUpdatesBatchPeriodMs: number;
  mirroringEndpointSliceUpdatesBatchPeriodMs: number;
  /** --max-endpoints-per-slice, --mirroring-max-endpoints-per-subset */
  maxEndpointsPerSlice: number;
  mirroringMaxEndpointsPerSubset: number;
  /** --pvclaimbinder-sync-period */
  pvClaimBinderSyncPeriodMs: number;
  /** --enable-hostpath-provisioner, --enable-dynamic-provisioning */
  enableHostPathProvisioner: boolean;
  enableDynamicProvisioning: boolean;
  /** the host-path recycler's --pv-recycler-* options (seconds, as kube's flags) */
  pvRecycler: {
    minimumTimeoutHostPathSeconds: number;
    timeoutIncrementHostPathSeconds: number;
    podTemplateFileHostPath?: string;
  };
  /** --horizontal-pod-autoscaler-* */
  horizontalPodAutoscaler: {
    syncPeriodMs: number;
    cpuInitializationPeriodMs: number;
    downscaleStabilizationMs: number;
    initialReadinessDelayMs: number;
    tolerance: number;
  };
  /** the node lifecycle controller's options */
  nodeLifecycle: {
    monitorPeriodMs: number;
    monitorGracePeriodMs: number;
    startupGracePeriodMs: number;
    podEvictionTimeoutMs: number;
    evictionRate: number;
    secondaryEvictionRate: number;
    largeClusterSizeThreshold: number;
    unhealthyZoneThreshold: number;
    /** --enable-taint-manager */
    enableTaintManager: boolean;
  };
  /** node IPAM: --allocate-node-cidrs, --cluster-cidr (comma-separated, one per family), mask sizes (0 = kube's default) */
  nodeIpam: {
    allocateNodeCidrs: boolean;
    cidrAllocatorType: string;
    clusterCidrs: readonly string[];
    serviceClusterIpRange?: string;
    nodeCidrMaskSize: number;
    nodeCidrMaskSizeIpv4: number;
    nodeCidrMaskSizeIpv6: number;
  };
  clusterSigning: {
    certFile?: string;
    keyFile?: string;
    durationMs: number;
    /** per signer (apiserver-client, kubelet-client, kubelet-serving, legacy-unknown) */
    signers: Readonly<Record<string, { certFile: string; keyFile: string }>>;
  };
}

export const DEFAULT_CONTROLLER_SETTINGS: ControllerSettings = Object.freeze({
  concurrentDeploymentSyncs: 5,
  concurrentReplicaSetSyncs: 5,
  concurrentRcSyncs: 5,
  concurrentGcSyncs: 20,
  concurrentNamespaceSyncs: 10,
  concurrentServiceAccountTokenSyncs: 5,
  concurrentEndpointSyncs: 5,
  concurrentServiceEndpointSyncs: 5,
  concurrentStatefulSetSyncs: 5,
  concurrentResourceQuotaSyncs: 5,
  concurrentTtlAfterFinishedSyncs: 5,
  deploymentControllerSyncPeriodMs: 30_000,
  namespaceSyncPeriodMs: 300_000,
  resourceQuotaSyncPeriodMs: 300_000,
  minResyncPeriodMs: 12 * 3600_000,
  terminatedPodGcThreshold: 12500,
  enableGarbageCollector: true,
  mirroringConcurrentServiceEndpointSyncs: 5,
  endpointUpdatesBatchPeriodMs: 0,
  endpointSliceUpdatesBatchPeriodMs: 0,
  mirroringEndpointSliceUpdatesBatchPeriodMs: 0,
  maxEndpointsPerSlice: 100,
  mirroringMaxEndpointsPerSubset: 1000,
  pvClaimBinderSyncPeriodMs: 15_000,
  enableHostPathProvisioner: false,
  enableDynamicProvisioning: true,
  pvRecycler: Object.freeze({ minimumTimeoutHostPathSeconds: 60, timeoutIncrementHostPathSeconds: 30 }),
  horizontalPodAutoscaler: Object.freeze({
    syncPeriodMs: 15_000,
    cpuInitializationPeriodMs: 300_000,
    downscaleStabilizationMs: 300_000,
    initialReadinessDelayMs: 30_000,
    tolerance: 0.1,
  }),
  nodeLifecycle: Object.freeze({
    monitorPeriodMs: 5000,
    monitorGracePeriodMs: 40_000,
    startupGracePeriodMs: 60_000,
    podEvictionTimeoutMs: 300_000,
    evictionRate: 0.1,
    secondaryEvictionRate: 0.01,
    largeClusterSizeThreshold: 50,
    unhealthyZoneThreshold: 0.55,
    enableTaintManager: true,
  }),
  nodeIpam: Object.freeze({
    allocateNodeCidrs: false,
    cidrAllocatorType: 'RangeAllocator',
    clusterCidrs: Object.freeze([]),
    nodeCidrMaskSize: 0,
    nodeCidrMaskSizeIpv4: 0,
    nodeCidrMaskSizeIpv6: 0,
  }),
  clusterSigning: Object.freeze({ durationMs: 8760 * 3600_000, signers: Object.freeze({}) }),
});
