/**
 * The fields of kubelet.config.k8s.io/v1beta1 KubeletConfiguration as of kube 1.20, each with its
 * JSON kind and SetDefaults_KubeletConfiguration's default. kube defaults a plain field when it is
 * absent or holds its zero value (`port: 0` becomes 10250), and a pointer field only when absent
 * (`failSwapOn: false` stays false): `pointer` marks the second kind.
 */
export type FieldKind = 'bool' | 'string' | 'int' | 'duration' | 'stringMap' | 'stringList' | 'headerMap' | 'gateMap';

/** a field's value in memory: durations in milliseconds */
export type FieldValue = boolean | string | number | string[] | Record<string, string> | Record<string, string[]> | Record<string, boolean>;

export interface FieldSpec {
  readonly kind: FieldKind;
  readonly default?: FieldValue;
  readonly pointer?: boolean;
  /** a path resolved against the file's directory (kubelet's KubeletConfigurationPathRefs) */
  readonly path?: boolean;
}

const S = (kind: FieldKind, extra: Omit<FieldSpec, 'kind'> = {}): FieldSpec => Object.freeze({ kind, ...extra });
const P = (kind: FieldKind, def: FieldValue): FieldSpec => S(kind, { default: def, pointer: true });
const D = (kind: FieldKind, def: FieldValue): FieldSpec => S(kind, { default: def });
const sec = (n: number): number => n * 1000;

export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = Object.freeze({
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
});

/** dotted field path -> spec; nested objects are the paths' prefixes */
export const KUBELET_CONFIGURATION_FIELDS: ReadonlyMap<string, FieldSpec> = new Map<string, FieldSpec>([
  ['enableServer', P('bool', true)],
  ['staticPodPath', S('string', { path: true })],
  ['syncFrequency', D('duration', sec(60))],
  ['fileCheckFrequency', D('duration', sec(20))],
  ['httpCheckFrequency', D('duration', sec(20))],
  ['staticPodURL', S('string')],
  ['staticPodURLHeader', S('headerMap')],
  ['address', D('string', '0.0.0.0')],
  ['port', D('int', 10250)],
  ['readOnlyPort', S('int')],
  ['tlsCertFile', S('string', { path: true })],
  ['tlsPrivateKeyFile', S('string', { path: true })],
  ['tlsCipherSuites', S('stringList')],
  ['tlsMinVersion', S('string')],
  ['rotateCertificates', S('bool')],
  ['serverTLSBootstrap', S('bool')],
  ['authentication.x509.clientCAFile', S('string', { path: true })],
  ['authentication.webhook.enabled', P('bool', true)],
  ['authentication.webhook.cacheTTL', D('duration', sec(120))],
  ['authentication.anonymous.enabled', P('bool', false)],
  ['authorization.mode', D('string', 'Webhook')],
  ['authorization.webhook.cacheAuthorizedTTL', D('duration', sec(300))],
  ['authorization.webhook.cacheUnauthorizedTTL', D('duration', sec(30))],
  ['registryPullQPS', P('int', 5)],
  ['registryBurst', D('int', 10)],
  ['eventRecordQPS', P('int', 5)],
  ['eventBurst', D('int', 10)],
  ['enableDebuggingHandlers', P('bool', true)],
  ['enableContentionProfiling', S('bool')],
  ['healthzPort', P('int', 10248)],
  ['healthzBindAddress', D('string', '127.0.0.1')],
  ['oomScoreAdj', P('int', -999)],
  ['clusterDomain', S('string')],
  ['clusterDNS', S('stringList')],
  ['streamingConnectionIdleTimeout', D('duration', sec(4 * 3600))],
  ['nodeStatusUpdateFrequency', D('duration', sec(10))],
  // defaulted in defaults.ts: 5m, or nodeStatusUpdateFrequency when that is given
  ['nodeStatusReportFrequency', S('duration')],
  ['nodeLeaseDurationSeconds', D('int', 40)],
  ['imageMinimumGCAge', D('duration', sec(120))],
  ['imageGCHighThresholdPercent', P('int', 85)],
  ['imageGCLowThresholdPercent', P('int', 80)],
  ['volumeStatsAggPeriod', D('duration', sec(60))],
  ['kubeletCgroups', S('string')],
  ['systemCgroups', S('string')],
  ['runtimeCgroups', S('string')],
  ['cgroupRoot', S('string')],
  ['cgroupsPerQOS', P('bool', true)],
  ['cgroupDriver', D('string', 'cgroupfs')],
  ['cpuManagerPolicy', D('string', 'none')],
  ['cpuManagerReconcilePeriod', D('duration', sec(10))],
  ['topologyManagerPolicy', D('string', 'none')],
  ['topologyManagerScope', D('string', 'container')],
  ['qosReserved', S('stringMap')],
  ['runtimeRequestTimeout', D('duration', sec(120))],
  ['hairpinMode', D('string', 'promiscuous-bridge')],
  ['maxPods', D('int', 110)],
  ['podCIDR', S('string')],
  ['podPidsLimit', P('int', -1)],
  ['resolvConf', S('string', { default: '/etc/resolv.conf', pointer: true, path: true })],
  ['runOnce', S('bool')],
  ['cpuCFSQuota', P('bool', true)],
  ['cpuCFSQuotaPeriod', P('duration', 100)],
  ['nodeStatusMaxImages', P('int', 50)],
  ['maxOpenFiles', D('int', 1_000_000)],
  ['contentType', D('string', 'application/vnd.kubernetes.protobuf')],
  ['kubeAPIQPS', P('int', 5)],
  ['kubeAPIBurst', D('int', 10)],
  ['serializeImagePulls', P('bool', true)],
  ['evictionHard', P('stringMap', DEFAULT_EVICTION_HARD)],
  ['evictionSoft', S('stringMap')],
  ['evictionSoftGracePeriod', S('stringMap')],
  ['evictionPressureTransitionPeriod', D('duration', sec(300))],
  ['evictionMaxPodGracePeriod', S('int')],
  ['evictionMinimumReclaim', S('stringMap')],
  ['podsPerCore', S('int')],
  ['enableControllerAttachDetach', P('bool', true)],
  ['protectKernelDefaults', S('bool')],
  ['makeIPTablesUtilChains', P('bool', true)],
  ['iptablesMasqueradeBit', P('int', 14)],
  ['iptablesDropBit', P('int', 15)],
  ['featureGates', S('gateMap')],
  ['failSwapOn', P('bool', true)],
  ['containerLogMaxSize', D('string', '10Mi')],
  ['containerLogMaxFiles', P('int', 5)],
  ['configMapAndSecretChangeDetectionStrategy', D('string', 'Watch')],
  ['systemReserved', S('stringMap')],
  ['kubeReserved', S('stringMap')],
  ['reservedSystemCPUs', S('string')],
  ['showHiddenMetricsForVersion', S('string')],
  ['systemReservedCgroup', S('string')],
  ['kubeReservedCgroup', S('string')],
  ['enforceNodeAllocatable', P('stringList', ['pods'])],
  ['allowedUnsafeSysctls', S('stringList')],
  ['volumePluginDir', S('string')],
  ['providerID', S('string')],
  ['kernelMemcgNotification', S('bool')],
  ['logging.format', D('string', 'text')],
  ['logging.sanitization', S('bool')],
  ['enableSystemLogHandler', P('bool', true)],
  ['shutdownGracePeriod', S('duration')],
  ['shutdownGracePeriodCriticalPods', S('duration')],
  // kubelet 1.29's field (no flag): where containers' logs go; one directory per agent on a shared host
  ['podLogsDir', D('string', '/var/log/pods')],
]);

/** the object paths (`authentication`, `authentication.webhook`, ...) */
export const OBJECT_PATHS: ReadonlySet<string> = new Set(
  [...KUBELET_CONFIGURATION_FIELDS.keys()].flatMap((p) => {
    const parts = p.split('.');
    return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('.'));
  }),
);

/** kube's zero value of a kind, which a plain (non-pointer) field's default replaces */
export function isZero(value: FieldValue): boolean {
  if (value === '' || value === 0 || value === false) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}
