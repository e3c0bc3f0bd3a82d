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
  clusterSigning: Object.freeze({ durationMs: 8760 * 3600_000, signers: Object.freeze({}) }),
});
