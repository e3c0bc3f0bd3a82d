/**
 * `ballast nodeagent`'s options: the groups in --help order, and `nodeAgentConfig`, which builds the
 * NodeAgentConfig the node agent runs with as kubelet 1.20 does: the --config file with its
 * v1beta1 defaults (or, without a file, the flags' defaults), then every flag given on the command
 * line over it, then kubelet's validation. A bad file or flag is one FlagError line.
 */
import path from 'node:path';
import { parseQuantity } from '../api/kinds/core/quantity';
import { DEFAULT_POD_LOGS_DIR, withDefaults } from '../nodeagent/config/defaults';
import { parseThresholds } from '../nodeagent/config/eviction';
import { ConfigFileError, KUBELET_CONFIG_GROUP_VERSION, KUBELET_CONFIG_KIND, loadKubeletConfigFile } from '../nodeagent/config/file';
import { parseColonMultimap, parseLangleMap, parseTaint } from '../nodeagent/config/flag-values';
import { nodeLabelsProblem } from '../nodeagent/config/node-labels';
import { KUBELET_CONFIGURATION_FIELDS, type FieldValue } from '../nodeagent/config/schema';
import { hostSwapProblem } from '../nodeagent/config/swap';
import type { ContainerRuntimeKind, NodeAgentConfig } from '../nodeagent/config/types';
import { processPodLogsDir } from '../nodeagent/runtimes/process/pod-logs-dir';
import { configFeatureGates, validateKubeletConfiguration } from '../nodeagent/config/validate';
import { formatDuration } from './duration';
import { loggingConfig } from './logging';
import { CONFIG_FLAG_FIELDS, nodeAgentOptionGroups } from './nodeagent-flags';
import type { ParsedOptions } from './parse';
import { FlagError } from './types';

export { nodeAgentOptionGroups };
export type { NodeAgentConfig };

export interface NodeAgentConfigOptions {
  /** reads the --config file (tests pass their own) */
  readFile?: (file: string) => string;
  /** reads /proc/swaps for --fail-swap-on (tests pass their own) */
  readProcSwaps?: () => string;
}

const RUNTIMES: readonly ContainerRuntimeKind[] = ['remote', 'process', 'simulated'];

/** a given flag's value in the configuration's form */
function flagFieldValue(parsed: ParsedOptions, flag: string): FieldValue {
  if (flag === 'eviction-hard' || flag === 'eviction-soft') return parseLangleMap(parsed.list(flag));
  if (flag === 'manifest-url-header') return parseColonMultimap(parsed.list(flag));
  return parsed.value(flag) as FieldValue;
}

/** the file (or the flags' defaults) with the given flags over it: kubelet's flag precedence */
export function effectiveValues(parsed: ParsedOptions, options: NodeAgentConfigOptions = {}): { values: Map<string, FieldValue>; configFile?: string } {
  const file = parsed.string('config') || undefined;
  const configFile = file && path.resolve(file);
  let given = new Map<string, FieldValue>();
  if (file) {
    try {
      given = loadKubeletConfigFile(file, options.readFile);
    } catch (err) {
      if (err instanceof ConfigFileError) throw new FlagError(err.message);
      throw err;
    }
  }
  const values = withDefaults(given, { legacy: !file });
  for (const [flag, field] of CONFIG_FLAG_FIELDS) {
    if (!parsed.isSet(flag)) continue;
    let value = flagFieldValue(parsed, flag);
    // flag gates win; the file's other gates stay
    if (field === 'featureGates') value = { ...((values.get(field) as Record<string, boolean>) ?? {}), ...(value as Record<string, boolean>) };
    values.set(field, value);
  }
  if (parsed.isSet('experimental-kernel-memcg-notification') && !parsed.isSet('kernel-memcg-notification')) {
    values.set('kernelMemcgNotification', parsed.bool('experimental-kernel-memcg-notification'));
  }
  if (parsed.isSet('volume-plugin-dir') || !values.has('volumePluginDir')) values.set('volumePluginDir', parsed.string('volume-plugin-dir') ?? '');
  return { values, configFile };
}

/** the effective configuration as a v1beta1 KubeletConfiguration object */
export function kubeletConfigurationObject(values: ReadonlyMap<string, FieldValue>): Record<string, unknown> {
  const out: Record<string, unknown> = { apiVersion: KUBELET_CONFIG_GROUP_VERSION, kind: KUBELET_CONFIG_KIND };
  for (const [p, spec] of KUBELET_CONFIGURATION_FIELDS) {
    const v = values.get(p);
    if (v === undefined) continue;
    const parts = p.split('.');
    let node = out;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1]] = spec.kind === 'duration' ? formatDuration(v as number) : v;
  }
  return out;
}

const oneError = (errs: readonly string[]): string => (errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);

/** what `ballast nodeagent` acts on, checked; throws FlagError with one line */
export function nodeAgentConfig(parsed: ParsedOptions, options: NodeAgentConfigOptions = {}): NodeAgentConfig {
  const { values, configFile } = effectiveValues(parsed, options);
  const errs = validateKubeletConfiguration(values);
  if (errs.length > 0) throw new FlagError(oneError(errs));

  // kubelet's ValidateKubeletFlags and the checks of its start-up
  const gates = configFeatureGates(values);
  if (parsed.string('dynamic-config-dir') && !gates.enabled('DynamicKubeletConfig')) {
    throw new FlagError('the DynamicKubeletConfig feature gate must be enabled in order to use the --dynamic-config-dir flag');
  }
  const nodeLabels = (parsed.value('node-labels') as Record<string, string> | undefined) ?? {};
  const labelsProblem = nodeLabelsProblem(nodeLabels);
  if (labelsProblem) throw new FlagError(labelsProblem);
  const runtime = parsed.string('container-runtime') ?? 'remote';
  if (runtime === 'docker') {
    throw new FlagError('--container-runtime docker is not supported: Ballast has no dockershim; use "remote" with a CRI runtime such as containerd (--container-runtime-endpoint), or "process"');
  }
  if (!(RUNTIMES as readonly string[]).includes(runtime)) throw new FlagError(`unsupported CRI runtime: "${runtime}" (use remote, process or simulated)`);
  const simulatedNodes = parsed.number('simulated-nodes') ?? 1;
  if (parsed.isSet('simulated-nodes') && runtime !== 'simulated') throw new FlagError('--simulated-nodes needs --container-runtime simulated');
  if (simulatedNodes < 1) throw new FlagError(`--simulated-nodes ${simulatedNodes} must be 1 or greater`);
  const str = (p: string): string => (values.get(p) as string | undefined) ?? '';
  const num = (p: string): number => (values.get(p) as number | undefined) ?? 0;
  const bool = (p: string): boolean => values.get(p) === true;
  const map = (p: string): Readonly<Record<string, string>> => Object.freeze({ ...((values.get(p) as Record<string, string> | undefined) ?? {}) });
  const list = (p: string): readonly string[] => Object.freeze([...((values.get(p) as string[] | undefined) ?? [])]);
  const opt = (s: string | undefined): string | undefined => (s ? s : undefined);
  const abs = (s: string | undefined): string | undefined => (s ? path.resolve(s) : undefined);

  const hasKubeconfig = Boolean(parsed.string('kubeconfig'));
  if (bool('enableServer') && !hasKubeconfig) {
    // kubelet's BuildAuth: the webhooks need an API server
    if (bool('authentication.webhook.enabled')) throw new FlagError('no client provided, cannot use webhook authentication');
    if (str('authorization.mode') === 'Webhook') throw new FlagError('no client provided, cannot use webhook authorization');
  }
  if (bool('failSwapOn') && runtime !== 'simulated') {
    const swap = hostSwapProblem(options.readProcSwaps);
    if (swap) throw new FlagError(swap);
  }
  let taints;
  try {
    taints = parsed.list('register-with-taints').filter((s) => s !== '').map(parseTaint);
  } catch (err) {
    throw new FlagError((err as Error).message);
  }
  const endpoint = parsed.string('container-runtime-endpoint') ?? '';
  const headers = (values.get('staticPodURLHeader') as Record<string, string[]> | undefined) ?? {};

  return Object.freeze({
    configFile,
    kubeconfig: abs(parsed.string('kubeconfig')),
    bootstrapKubeconfig: abs(parsed.string('bootstrap-kubeconfig') || parsed.string('experimental-bootstrap-kubeconfig')),
    certDir: path.resolve(parsed.string('cert-dir') ?? ''),
    rootDir: path.resolve(parsed.string('root-dir') ?? ''),
    // the configuration's podLogsDir (kubelet's /var/log/pods by default), which the process runtime (often
    // without root) replaces with one under --root-dir when it cannot write there
    podLogsDir:
      runtime === 'process' && (str('podLogsDir') || DEFAULT_POD_LOGS_DIR) === DEFAULT_POD_LOGS_DIR
        ? processPodLogsDir(DEFAULT_POD_LOGS_DIR, path.resolve(parsed.string('root-dir') ?? ''))
        : str('podLogsDir') || DEFAULT_POD_LOGS_DIR,
    hostnameOverride: opt(parsed.string('hostname-override')),
    nodeIP: opt(parsed.string('node-ip')),
    nodeLabels: Object.freeze({ ...nodeLabels }),
    registerNode: parsed.bool('register-node'),
    registerWithTaints: Object.freeze(taints),
    registerSchedulable: parsed.bool('register-schedulable'),
    providerID: str('providerID'),

    enableServer: bool('enableServer'),
    address: str('address'),
    port: num('port'),
    readOnlyPort: num('readOnlyPort'),
    healthzBindAddress: str('healthzBindAddress'),
    healthzPort: num('healthzPort'),
    enableDebuggingHandlers: bool('enableDebuggingHandlers'),
    streamingConnectionIdleTimeoutMs: num('streamingConnectionIdleTimeout'),
    tlsCertFile: abs(opt(str('tlsCertFile'))),
    tlsPrivateKeyFile: abs(opt(str('tlsPrivateKeyFile'))),
    tlsMinVersion: opt(str('tlsMinVersion')),
    tlsCipherSuites: list('tlsCipherSuites'),
    rotateCertificates: bool('rotateCertificates'),
    serverTLSBootstrap: bool('serverTLSBootstrap'),
    authentication: Object.freeze({
      anonymous: Object.freeze({ enabled: bool('authentication.anonymous.enabled') }),
      webhook: Object.freeze({ enabled: bool('authentication.webhook.enabled'), cacheTTLMs: num('authentication.webhook.cacheTTL') }),
      x509: Object.freeze({ clientCAFile: abs(opt(str('authentication.x509.clientCAFile'))) }),
    }),
    authorization: Object.freeze({
      mode: str('authorization.mode') as 'AlwaysAllow' | 'Webhook',
      webhook: Object.freeze({
        cacheAuthorizedTTLMs: num('authorization.webhook.cacheAuthorizedTTL'),
        cacheUnauthorizedTTLMs: num('authorization.webhook.cacheUnauthorizedTTL'),
      }),
    }),

    containerRuntime: runtime as ContainerRuntimeKind,
    containerRuntimeEndpoint: endpoint,
    imageServiceEndpoint: parsed.string('image-service-endpoint') || endpoint,
    runtimeRequestTimeoutMs: num('runtimeRequestTimeout'),
    podInfraContainerImage: parsed.string('pod-infra-container-image') ?? '',
    simulatedNodes,
    serializeImagePulls: bool('serializeImagePulls'),
    registryPullQPS: num('registryPullQPS'),
    registryBurst: num('registryBurst'),
    imagePullProgressDeadlineMs: parsed.number('image-pull-progress-deadline') ?? 60_000,

    staticPodPath: abs(opt(str('staticPodPath'))),
    fileCheckFrequencyMs: num('fileCheckFrequency'),
    staticPodURL: opt(str('staticPodURL')),
    staticPodURLHeader: Object.freeze(Object.fromEntries(Object.entries(headers).map(([k, vs]) => [k, Object.freeze([...vs])]))),
    httpCheckFrequencyMs: num('httpCheckFrequency'),
    syncFrequencyMs: num('syncFrequency'),

    nodeStatusUpdateFrequencyMs: num('nodeStatusUpdateFrequency'),
    nodeStatusReportFrequencyMs: num('nodeStatusReportFrequency'),
    nodeLeaseDurationSeconds: num('nodeLeaseDurationSeconds'),
    nodeStatusMaxImages: num('nodeStatusMaxImages'),
    maxPods: num('maxPods'),
    podsPerCore: num('podsPerCore'),
    podCIDR: str('podCIDR'),
    podPidsLimit: num('podPidsLimit'),
    maxOpenFiles: num('maxOpenFiles'),
    volumeStatsAggPeriodMs: num('volumeStatsAggPeriod'),

    clusterDNS: list('clusterDNS'),
    clusterDomain: str('clusterDomain'),
    resolvConf: str('resolvConf'),
    hairpinMode: str('hairpinMode'),
    cniBinDir: parsed.string('cni-bin-dir') ?? '',
    cniConfDir: parsed.string('cni-conf-dir') ?? '',
    cniCacheDir: parsed.string('cni-cache-dir') ?? '',
    networkPluginMTU: parsed.number('network-plugin-mtu') ?? 0,
    makeIPTablesUtilChains: bool('makeIPTablesUtilChains'),
    iptablesMasqueradeBit: num('iptablesMasqueradeBit'),
    iptablesDropBit: num('iptablesDropBit'),
    allowedUnsafeSysctls: list('allowedUnsafeSysctls'),

    kubeReserved: map('kubeReserved'),
    systemReserved: map('systemReserved'),
    kubeReservedCgroup: str('kubeReservedCgroup'),
    systemReservedCgroup: str('systemReservedCgroup'),
    enforceNodeAllocatable: list('enforceNodeAllocatable'),
    evictionHard: map('evictionHard'),
    evictionSoft: map('evictionSoft'),
    evictionSoftGracePeriod: map('evictionSoftGracePeriod'),
    evictionMinimumReclaim: map('evictionMinimumReclaim'),
    evictionMaxPodGracePeriod: num('evictionMaxPodGracePeriod'),
    evictionPressureTransitionPeriodMs: num('evictionPressureTransitionPeriod'),
    evictionThresholds: Object.freeze(
      parseThresholds({ hard: map('evictionHard'), soft: map('evictionSoft'), softGracePeriod: map('evictionSoftGracePeriod'), minimumReclaim: map('evictionMinimumReclaim') }),
    ),
    experimentalAllocatableIgnoreEviction: parsed.bool('experimental-allocatable-ignore-eviction'),
    kernelMemcgNotification: bool('kernelMemcgNotification'),

    imageGCHighThresholdPercent: num('imageGCHighThresholdPercent'),
    imageGCLowThresholdPercent: num('imageGCLowThresholdPercent'),
    imageMinimumGCAgeMs: num('imageMinimumGCAge'),
    minimumContainerTTLMs: parsed.number('minimum-container-ttl-duration') ?? 0,
    maxContainerCount: parsed.number('maximum-dead-containers') ?? -1,
    maxPerPodContainerCount: parsed.number('maximum-dead-containers-per-container') ?? 1,
    containerLogMaxSize: str('containerLogMaxSize'),
    containerLogMaxSizeBytes: parseQuantity(str('containerLogMaxSize')) ?? 0,
    containerLogMaxFiles: num('containerLogMaxFiles'),

    cgroupsPerQOS: bool('cgroupsPerQOS'),
    cgroupDriver: str('cgroupDriver') as 'cgroupfs' | 'systemd',
    cgroupRoot: str('cgroupRoot'),
    kubeletCgroups: str('kubeletCgroups'),
    systemCgroups: str('systemCgroups'),
    runtimeCgroups: str('runtimeCgroups'),
    cpuCFSQuota: bool('cpuCFSQuota'),
    cpuCFSQuotaPeriodMs: num('cpuCFSQuotaPeriod'),
    cpuManagerPolicy: str('cpuManagerPolicy'),
    failSwapOn: bool('failSwapOn'),
    oomScoreAdj: num('oomScoreAdj'),

    kubeAPIQPS: num('kubeAPIQPS'),
    kubeAPIBurst: num('kubeAPIBurst'),
    contentType: str('contentType') as NodeAgentConfig['contentType'],
    eventRecordQPS: num('eventRecordQPS'),
    eventBurst: num('eventBurst'),

    volumePluginDir: str('volumePluginDir'),
    enableControllerAttachDetach: bool('enableControllerAttachDetach'),
    keepTerminatedPodVolumes: parsed.bool('keep-terminated-pod-volumes'),
    configMapAndSecretChangeDetectionStrategy: str('configMapAndSecretChangeDetectionStrategy') as NodeAgentConfig['configMapAndSecretChangeDetectionStrategy'],
    shutdownGracePeriodMs: num('shutdownGracePeriod'),
    shutdownGracePeriodCriticalPodsMs: num('shutdownGracePeriodCriticalPods'),
    runOnce: parsed.bool('runonce') || bool('runOnce'),

    componentConfig: Object.freeze(kubeletConfigurationObject(values)),
    featureGates: gates,
    // the file's logging.format applies unless --logging-format is given
    logging: Object.freeze({ ...loggingConfig(parsed), format: str('logging.format') === 'json' ? ('json' as const) : ('text' as const) }),
    ignoredFlags: Object.freeze(parsed.acceptedButIgnored()),
  });
}
