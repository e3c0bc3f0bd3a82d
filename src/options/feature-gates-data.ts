/**
 * The feature gates `--feature-gates` knows, with kube's stage and default for each.
 *
 * Where this comes from: kube 1.32's gates are kube's versioned feature specs (pkg/features and the
 * generic apiserver, apiextensions, component-base logging and client-go gates kube-apiserver
 * registers), each at the newest spec not after v1.32, read from kube's generated
 * versioned_feature_list.yaml of the 1.32 cycle and of a later release (gates removed after 1.32
 * come from the former). 1.20's gates are the spec's list (spec 2, part 9); a name 1.32 also knows
 * takes 1.32's stage.
 */

export type GateStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureGateSpec {
  readonly stage: GateStage;
  readonly default: boolean;
  /** kube refuses any other value ("feature is locked to ...") */
  readonly lockToDefault: boolean;
}

type Row = readonly [GateStage, boolean, boolean, readonly string[]];

/** [stage, default, locked, names] of kube 1.32 */
const KUBE_1_32: readonly Row[] = [
  ['ALPHA', false, false, [
    'AllAlpha', 'AllowUnsafeMalformedObjectDeletion', 'APIServingWithRoutine', 'CBORServingAndStorage', 'ClientsAllowCBOR',
    'ClientsPreferCBOR', 'CloudControllerManagerWebhook', 'ClusterTrustBundle', 'ClusterTrustBundleProjection', 'ComponentFlagz',
    'ComponentStatusz', 'CoordinatedLeaderElection', 'CPUCFSQuotaPeriod', 'CPUManagerPolicyAlphaOptions',
    'CrossNamespaceVolumeDataSource', 'CSIVolumeHealth', 'DisableAllocatorDualWrite', 'DRAAdminAccess',
    'DRAResourceClaimDeviceStatus', 'EventedPLEG', 'ExternalServiceAccountTokenSigner', 'HPAScaleToZero', 'ImageVolume',
    'InformerResourceVersion', 'InPlacePodVerticalScaling', 'InPlacePodVerticalScalingAllocatedStatus',
    'InPlacePodVerticalScalingExclusiveCPUs', 'InTreePluginPortworxUnregister', 'KubeletCrashLoopBackOffMax',
    'KubeletFineGrainedAuthz', 'KubeletInUserNamespace', 'KubeletPodResourcesDynamicResources', 'KubeletPodResourcesGet',
    'LoggingAlphaOptions', 'MaxUnavailableStatefulSet', 'MemoryQoS', 'MutatingAdmissionPolicy', 'PodAndContainerStatsFromCRI',
    'PodLevelResources', 'PodLifecycleSleepActionAllowZero', 'PodLogsQuerySplitStreams', 'QOSReserved',
    'RelaxedDNSSearchValidation', 'RemoteRequestHeaderUID', 'ResourceHealthStatus', 'RuntimeClassInImageCriAPI',
    'SchedulerAsyncPreemption', 'SELinuxChangePolicy', 'SELinuxMount', 'StorageVersionAPI', 'StorageVersionMigrator',
    'SupplementalGroupsPolicy', 'TopologyManagerPolicyAlphaOptions', 'UnknownVersionInteroperabilityProxy',
    'UserNamespacesPodSecurityStandards', 'WindowsCPUAndMemoryAffinity', 'WindowsGracefulNodeShutdown', 'WinDSR',
  ]],
  ['ALPHA', true, false, ['WindowsHostNetwork']],
  ['BETA', true, false, [
    'AnonymousAuthConfigurableEndpoints', 'AnyVolumeDataSource', 'APIResponseCompression', 'APIServerIdentity', 'APIServerTracing',
    'AuthorizeNodeWithSelectors', 'AuthorizeWithSelectors', 'BtreeWatchCache', 'ConsistentListFromCache', 'ContainerCheckpoint',
    'ContextualLogging', 'CPUManagerPolicyBetaOptions', 'CPUManagerPolicyOptions', 'CRDValidationRatcheting', 'CSIMigrationPortworx',
    'GracefulNodeShutdown', 'GracefulNodeShutdownBasedOnPodPriority', 'HonorPVReclaimPolicy', 'ImageMaximumGCAge',
    'JobBackoffLimitPerIndex', 'JobManagedBy', 'JobPodReplacementPolicy', 'JobSuccessPolicy', 'KubeletCgroupDriverFromCRI',
    'KubeletSeparateDiskGC', 'KubeletTracing', 'LoggingBetaOptions', 'MatchLabelKeysInPodAffinity',
    'MatchLabelKeysInPodTopologySpread', 'NFTablesProxyMode', 'NodeInclusionPolicyInPodTopologySpread', 'NodeSwap', 'OpenAPIEnums',
    'PodDeletionCost', 'PodLifecycleSleepAction', 'PodReadyToStartContainersCondition', 'PortForwardWebsockets',
    'RecoverVolumeExpansionFailure', 'RecursiveReadOnlyMounts', 'RelaxedEnvironmentVariableValidation',
    'ReloadKubeletServerCertificateFile', 'ResilientWatchCacheInitialization', 'RotateKubeletServerCertificate',
    'SchedulerQueueingHints', 'SELinuxMountReadWriteOncePod', 'SeparateCacheWatchRPC', 'SeparateTaintEvictionController',
    'ServiceAccountTokenNodeBinding', 'ServiceTrafficDistribution', 'SidecarContainers', 'StorageNamespaceIndex',
    'StorageVersionHash', 'StructuredAuthenticationConfiguration', 'SystemdWatchdog', 'TopologyAwareHints',
    'TopologyManagerPolicyBetaOptions', 'TranslateStreamCloseWebsocketRequests', 'UnauthenticatedHTTP2DOSMitigation', 'WatchList',
    'WinOverlay',
  ]],
  ['BETA', false, false, [
    'AllBeta', 'ConcurrentWatchObjectDecode', 'DynamicResourceAllocation', 'LocalStorageCapacityIsolationFSQuotaMonitoring',
    'MultiCIDRServiceAllocator', 'NodeLogQuery', 'OrderedNamespaceDeletion', 'ProcMountType', 'ServiceAccountNodeAudienceRestriction',
    'UserNamespacesSupport', 'VolumeAttributesClass', 'WatchCacheInitializationPostStartHook', 'WatchFromStorageWithoutResourceVersion',
    'WatchListClient',
  ]],
  ['GA', true, true, [
    'AdmissionWebhookMatchConditions', 'AggregatedDiscoveryEndpoint', 'APIListChunking', 'AppArmor', 'AppArmorFields', 'ComponentSLIs',
    'CPUManager', 'CronJobsScheduledAnnotation', 'CustomResourceFieldSelectors', 'DevicePluginCDIDevices', 'DisableCloudProviders',
    'DisableKubeletCloudCredentialProviders', 'EfficientWatchResumption', 'ElasticIndexedJob', 'HPAContainerMetrics',
    'JobPodFailurePolicy', 'KubeProxyDrainingTerminatingNodes', 'LoadBalancerIPMode', 'LogarithmicScaleDown', 'MemoryManager',
    'PDBUnhealthyPodEvictionPolicy', 'PersistentVolumeLastPhaseTransitionTime', 'PodDisruptionConditions', 'PodHostIPs',
    'PodIndexLabel', 'PodSchedulingReadiness', 'RemainingItemCount', 'RetryGenerateName', 'ServiceAccountTokenJTI',
    'ServiceAccountTokenNodeBindingValidation', 'ServiceAccountTokenPodNodeInfo', 'SizeMemoryBackedVolumes',
    'StatefulSetAutoDeletePVC', 'StatefulSetStartOrdinal', 'StrictCostEnforcementForVAP', 'StrictCostEnforcementForWebhooks',
    'StructuredAuthorizationConfiguration', 'WatchBookmark', 'ZeroLimitedNominalConcurrencyShares',
  ]],
  ['GA', true, false, ['ExecProbeTimeout', 'TopologyManagerPolicyOptions']],
  ['DEPRECATED', false, false, [
    'AllowDNSOnlyNodeCSR', 'AllowInsecureKubeletCertificateSigningRequests', 'AllowOverwriteTerminationGracePeriodSeconds',
    'DisableNodeKubeProxyVersion', 'KMSv1', 'KubeletRegistrationGetOnExistsOnly',
  ]],
  ['DEPRECATED', false, true, ['AllowServiceLBStatusOnNonLB']],
];

/** [stage, default, locked, names] of kube 1.20 (spec 2, part 9) */
const KUBE_1_20: readonly Row[] = [
  ['BETA', true, false, [
    'APIListChunking', 'APIPriorityAndFairness', 'APIResponseCompression', 'AllowInsecureBackendProxy', 'AppArmor', 'CPUManager',
    'CRIContainerLogRotation', 'CSIInlineVolume', 'CSIMigration', 'CSIVolumeFSGroupPolicy', 'ConfigurableFSGroupPolicy',
    'DefaultPodTopologySpread', 'DevicePlugins', 'DisableAcceleratorUsageMetrics', 'DynamicKubeletConfig', 'EndpointSlice',
    'EndpointSliceProxying', 'ExpandCSIVolumes', 'ExpandInUsePersistentVolumes', 'ExpandPersistentVolumes', 'HugePageStorageMediumSize',
    'ImmutableEphemeralVolumes', 'KubeletPodResources', 'LegacyNodeRoleBehavior', 'LocalStorageCapacityIsolation',
    'NodeDisruptionExclusion', 'NonPreemptingPriority', 'PodDisruptionBudget', 'PodOverhead', 'RemainingItemCount', 'RemoveSelfLink',
    'RootCAConfigMap', 'RotateKubeletServerCertificate', 'RunAsGroup', 'ServerSideApply', 'ServiceAccountIssuerDiscovery',
    'ServiceNodeExclusion', 'SetHostnameAsFQDN', 'StorageVersionHash', 'Sysctls', 'TopologyManager', 'ValidateProxyRedirects',
    'WarningHeaders', 'WinOverlay',
  ]],
  ['BETA', false, false, [
    'AllBeta', 'CSIMigrationAWS', 'CSIMigrationAzureDisk', 'CSIMigrationGCE', 'CSIMigrationOpenStack', 'CSIMigrationvSphere',
    'CSIMigrationvSphereComplete', 'ExperimentalHostUserNamespaceDefaulting',
  ]],
  ['ALPHA', false, false, [
    'APIServerIdentity', 'AllAlpha', 'AnyVolumeDataSource', 'BalanceAttachedNodeVolumes', 'BoundServiceAccountTokenVolume',
    'CSIMigrationAWSComplete', 'CSIMigrationAzureDiskComplete', 'CSIMigrationAzureFile', 'CSIMigrationAzureFileComplete',
    'CSIMigrationGCEComplete', 'CSIMigrationOpenStackComplete', 'CSIServiceAccountToken', 'CSIStorageCapacity', 'CronJobControllerV2',
    'CustomCPUCFSQuotaPeriod', 'DownwardAPIHugePages', 'EfficientWatchResumption', 'EndpointSliceNodeName',
    'EndpointSliceTerminatingCondition', 'EphemeralContainers', 'GenericEphemeralVolume', 'GracefulNodeShutdown', 'HPAContainerMetrics',
    'HPAScaleToZero', 'IPv6DualStack', 'KubeletCredentialProviders', 'LocalStorageCapacityIsolationFSQuotaMonitoring',
    'MixedProtocolLBService', 'ProcMountType', 'QOSReserved', 'ServiceLBNodePortControl', 'ServiceTopology', 'SizeMemoryBackedVolumes',
    'StorageVersionAPI', 'TTLAfterFinished', 'WinDSR', 'WindowsEndpointSliceProxying',
  ]],
];

function table(rows: readonly Row[]): Map<string, FeatureGateSpec> {
  const out = new Map<string, FeatureGateSpec>();
  for (const [stage, dflt, locked, names] of rows) {
    for (const name of names) {
      if (out.has(name)) throw new TypeError(`feature gate ${name} is listed twice`);
      out.set(name, Object.freeze({ stage, default: dflt, lockToDefault: locked }));
    }
  }
  return out;
}

/**
 * Where Ballast departs from the tables: gates 1.20 removed long ago whose feature Ballast serves as
 * kube 1.32 does (on, as GA; still settable, so a 1.20 command line that turns one off is honoured).
 */
const BALLAST_SPECS: Readonly<Record<string, FeatureGateSpec>> = {
  // GA in 1.25, gate gone since; pods/ephemeralcontainers is served by default
  EphemeralContainers: Object.freeze({ stage: 'GA', default: true, lockToDefault: false }),
};

/**
 * every known gate: 1.32's, then the 1.20 names 1.32 no longer has. A gate 1.20 let users turn off
 * (spec 2, part 9) stays settable even where 1.32 locked it (APIListChunking, RemainingItemCount):
 * the spec's 1.20 command lines keep working.
 */
export function knownFeatureGates(): ReadonlyMap<string, FeatureGateSpec> {
  const gates = table(KUBE_1_32);
  for (const [name, spec] of table(KUBE_1_20)) {
    const newer = gates.get(name);
    if (!newer) gates.set(name, spec);
    else if (newer.lockToDefault && !spec.lockToDefault) gates.set(name, Object.freeze({ ...newer, lockToDefault: false }));
  }
  for (const [name, spec] of Object.entries(BALLAST_SPECS)) gates.set(name, spec);
  return gates;
}
