/**
 * kube 1.20's ValidateKubeletConfiguration over the effective configuration (the file's fields,
 * the defaults and the flags given), with its messages, plus the checks kubelet makes while it
 * starts (reserved resources, eviction thresholds, container log rotation). Every problem is
 * returned; the caller stops start-up with them.
 */
import path from 'node:path';
import { formatDuration } from '../../options/duration';
import { FEATURE_GATES, FeatureGates, validateFeatureGates } from '../../options/feature-gates';
import { parseQuantity } from '../../api/kinds/core/quantity';
import { parseThresholds } from './eviction';
import type { FieldValue } from './schema';

export type ConfigValues = ReadonlyMap<string, FieldValue>;

const num = (v: ConfigValues, p: string): number => (v.get(p) as number | undefined) ?? 0;
const str = (v: ConfigValues, p: string): string => (v.get(p) as string | undefined) ?? '';
const bool = (v: ConfigValues, p: string): boolean => v.get(p) === true;
const map = (v: ConfigValues, p: string): Record<string, string> => (v.get(p) as Record<string, string> | undefined) ?? {};
const list = (v: ConfigValues, p: string): string[] => (v.get(p) as string[] | undefined) ?? [];
const dur = (ms: number): string => formatDuration(ms);

const inRange = (n: number, lo: number, hi: number): boolean => n >= lo && n <= hi;

/** the gates the configuration runs with: its featureGates over the defaults */
export function configFeatureGates(values: ConfigValues): FeatureGates {
  const gates = (values.get('featureGates') as Record<string, boolean> | undefined) ?? {};
  return new FeatureGates(Object.fromEntries(Object.entries(gates).filter(([name]) => FEATURE_GATES.has(name))));
}

/** ValidateKubeletConfiguration: every problem, in kube's order and words */
export function validateKubeletConfiguration(v: ConfigValues): string[] {
  const errs: string[] = [];
  const bad = (m: string): void => void errs.push(`invalid configuration: ${m}`);
  const gateProblem = validateFeatureGates(v.get('featureGates') ?? {});
  if (gateProblem) return [gateProblem];
  const gates = configFeatureGates(v);

  if (num(v, 'nodeLeaseDurationSeconds') <= 0) bad('nodeLeaseDurationSeconds must be greater than 0');
  if (str(v, 'systemCgroups') !== '' && str(v, 'cgroupRoot') === '') {
    bad('systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified');
  }
  if (num(v, 'eventBurst') < 0) bad(`eventBurst (--event-burst) ${num(v, 'eventBurst')} must not be a negative number`);
  if (num(v, 'eventRecordQPS') < 0) bad(`eventRecordQPS (--event-qps) ${num(v, 'eventRecordQPS')} must not be a negative number`);
  const healthz = num(v, 'healthzPort');
  if (healthz !== 0 && !inRange(healthz, 1, 65535)) bad(`healthzPort (--healthz-port) ${healthz} must be between 1 and 65535, inclusive`);
  const period = num(v, 'cpuCFSQuotaPeriod');
  if (!gates.enabled('CustomCPUCFSQuotaPeriod') && period !== 100) {
    bad(`cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${dur(period)} requires feature gate CustomCPUCFSQuotaPeriod`);
  }
  if (gates.enabled('CustomCPUCFSQuotaPeriod') && !inRange(period, 0.001, 1000)) {
    bad(`cpuCFSQuotaPeriod (--cpu-cfs-quota-period) ${dur(period)} must be between 1usec and 1sec, inclusive`);
  }
  const high = num(v, 'imageGCHighThresholdPercent');
  const low = num(v, 'imageGCLowThresholdPercent');
  if (!inRange(high, 0, 100)) bad(`imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`);
  if (!inRange(low, 0, 100)) bad(`imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`);
  if (low >= high) {
    bad(`imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`);
  }
  for (const [field, flag] of [
    ['iptablesDropBit', 'iptables-drop-bit'],
    ['iptablesMasqueradeBit', 'iptables-masquerade-bit'],
  ]) {
    if (!inRange(num(v, field), 0, 31)) bad(`${field} (--${flag}) ${num(v, field)} must be between 0 and 31, inclusive`);
  }
  for (const [field, flag] of [
    ['kubeAPIBurst', 'kube-api-burst'],
    ['kubeAPIQPS', 'kube-api-qps'],
    ['maxOpenFiles', 'max-open-files'],
    ['maxPods', 'max-pods'],
  ]) {
    if (num(v, field) < 0) bad(`${field} (--${flag}) ${num(v, field)} must not be a negative number`);
  }
  if (num(v, 'nodeStatusMaxImages') < -1) bad(`nodeStatusMaxImages (--node-status-max-images) ${num(v, 'nodeStatusMaxImages')} must be -1 or greater`);
  if (!inRange(num(v, 'oomScoreAdj'), -1000, 1000)) bad(`oomScoreAdj (--oom-score-adj) ${num(v, 'oomScoreAdj')} must be between -1000 and 1000, inclusive`);
  if (num(v, 'podsPerCore') < 0) bad(`podsPerCore (--pods-per-core) ${num(v, 'podsPerCore')} must not be a negative number`);
  if (!inRange(num(v, 'port'), 1, 65535)) bad(`port (--port) ${num(v, 'port')} must be between 1 and 65535, inclusive`);
  const readOnly = num(v, 'readOnlyPort');
  if (readOnly !== 0 && !inRange(readOnly, 1, 65535)) bad(`readOnlyPort (--read-only-port) ${readOnly} must be between 0 and 65535, inclusive`);
  if (num(v, 'registryBurst') < 0) bad(`registryBurst (--registry-burst) ${num(v, 'registryBurst')} must not be a negative number`);
  if (num(v, 'registryPullQPS') < 0) bad(`registryPullQPS (--registry-qps) ${num(v, 'registryPullQPS')} must not be a negative number`);
  if (bool(v, 'serverTLSBootstrap') && !gates.enabled('RotateKubeletServerCertificate')) {
    bad('serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate');
  }
  const topologyPolicies = ['none', 'best-effort', 'restricted', 'single-numa-node'];
  if (!topologyPolicies.includes(str(v, 'topologyManagerPolicy'))) {
    bad(`topologyManagerPolicy (--topology-manager-policy) "${str(v, 'topologyManagerPolicy')}" must be one of: ${JSON.stringify(topologyPolicies).replace(/,/g, ' ')}`);
  }
  if (!['container', 'pod'].includes(str(v, 'topologyManagerScope'))) {
    bad(`topologyManagerScope (--topology-manager-scope) "${str(v, 'topologyManagerScope')}" must be one of: "container", or "pod"`);
  }
  errs.push(...shutdownErrors(v, gates));
  errs.push(...enforceNodeAllocatableErrors(v));
  const hairpin = str(v, 'hairpinMode');
  if (!['none', 'hairpin-veth', 'promiscuous-bridge'].includes(hairpin)) {
    bad(`option "${hairpin}" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"`);
  }
  const reserved = str(v, 'reservedSystemCPUs');
  if (reserved !== '') {
    if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(reserved)) bad(`unable to parse reservedSystemCPUs (--reserved-cpus) ${reserved}, error: invalid cpuset`);
    if (str(v, 'systemReservedCgroup') !== '' || str(v, 'kubeReservedCgroup') !== '') {
      bad("can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)");
    }
  }
  errs.push(...startupErrors(v));
  return errs;
}

function shutdownErrors(v: ConfigValues, gates: FeatureGates): string[] {
  const errs: string[] = [];
  const grace = num(v, 'shutdownGracePeriod');
  const critical = num(v, 'shutdownGracePeriodCriticalPods');
  if (grace < 0 || critical < 0 || critical > grace) {
    errs.push(`invalid configuration: ShutdownGracePeriod ${dur(grace)} must be >= 0, ShutdownGracePeriodCriticalPods ${dur(critical)} must be >= 0, and ShutdownGracePeriodCriticalPods must be <= ShutdownGracePeriod`);
  }
  if (grace > 0 && grace < 1000) errs.push(`invalid configuration: ShutdownGracePeriod ${dur(grace)} must be either zero or otherwise >= 1 sec`);
  if (critical > 0 && critical < 1000) errs.push(`invalid configuration: ShutdownGracePeriodCriticalPods ${dur(critical)} must be either zero or otherwise >= 1 sec`);
  if ((grace > 0 || critical > 0) && !gates.enabled('GracefulNodeShutdown')) {
    errs.push('invalid configuration: Specifying ShutdownGracePeriod or ShutdownGracePeriodCriticalPods requires feature gate GracefulNodeShutdown');
  }
  return errs;
}

function enforceNodeAllocatableErrors(v: ConfigValues): string[] {
  const errs: string[] = [];
  const levels = list(v, 'enforceNodeAllocatable');
  for (const level of levels) {
    switch (level) {
      case 'pods':
        break;
      case 'system-reserved':
        if (str(v, 'systemReservedCgroup') === '') {
          errs.push('invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)');
        }
        break;
      case 'kube-reserved':
        if (str(v, 'kubeReservedCgroup') === '') {
          errs.push('invalid configuration: kubeReservedCgroup (--kube-reserved-cgroup) must be specified when "kube-reserved" contained in enforceNodeAllocatable (--enforce-node-allocatable)');
        }
        break;
      case 'none':
        if (levels.length > 1) errs.push('invalid configuration: "none" specified in enforceNodeAllocatable (--enforce-node-allocatable) but other options also specified');
        break;
      default:
        errs.push(`invalid configuration: option "${level}" specified for enforceNodeAllocatable (--enforce-node-allocatable). Valid options are "pods", "system-reserved", "kube-reserved", or "none"`);
    }
  }
  return errs;
}

const RESERVABLE = ['cpu', 'memory', 'ephemeral-storage', 'pid'];

/** kubelet's parseResourceList for --kube-reserved / --system-reserved */
export function reservedProblem(reserved: Readonly<Record<string, string>>): string | undefined {
  for (const [name, text] of Object.entries(reserved)) {
    if (!RESERVABLE.includes(name)) return `cannot reserve "${name}" resource`;
    const q = parseQuantity(text);
    if (q === undefined) return `quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`;
    if (q < 0) return `resource quantity for "${name}" cannot be negative: ${text}`;
  }
  return undefined;
}

/** what kubelet refuses while starting rather than in ValidateKubeletConfiguration */
function startupErrors(v: ConfigValues): string[] {
  const errs: string[] = [];
  for (const field of ['kubeReserved', 'systemReserved']) {
    const problem = reservedProblem(map(v, field));
    if (problem) errs.push(problem);
  }
  try {
    parseThresholds({
      hard: map(v, 'evictionHard'),
      soft: map(v, 'evictionSoft'),
      softGracePeriod: map(v, 'evictionSoftGracePeriod'),
      minimumReclaim: map(v, 'evictionMinimumReclaim'),
    });
  } catch (err) {
    errs.push((err as Error).message);
  }
  const mode = str(v, 'authorization.mode');
  if (mode !== 'AlwaysAllow' && mode !== 'Webhook') errs.push(`unknown authorization mode ${mode}`);
  const driver = str(v, 'cgroupDriver');
  if (driver !== 'cgroupfs' && driver !== 'systemd') errs.push(`invalid configuration: cgroupDriver (--cgroup-driver) "${driver}" must be one of: "cgroupfs" or "systemd"`);
  const cpuPolicy = str(v, 'cpuManagerPolicy');
  if (cpuPolicy !== 'none' && cpuPolicy !== 'static') errs.push(`failed to initialize cpu manager: unknown policy: "${cpuPolicy}"`);
  const contentType = str(v, 'contentType');
  if (contentType !== 'application/vnd.kubernetes.protobuf' && contentType !== 'application/json') {
    errs.push(`invalid configuration: contentType (--kube-api-content-type) "${contentType}" must be one of: "application/vnd.kubernetes.protobuf" or "application/json"`);
  }
  const strategy = str(v, 'configMapAndSecretChangeDetectionStrategy');
  if (!['Get', 'Cache', 'Watch'].includes(strategy)) errs.push(`unknown configmap and secret manager mode: ${strategy}`);
  // kubelet 1.29's checks of podLogsDir
  const podLogsDir = str(v, 'podLogsDir');
  if (!podLogsDir.startsWith('/')) errs.push(`invalid configuration: podLogsDir ${podLogsDir} must be absolute path`);
  else if (path.posix.normalize(podLogsDir) !== podLogsDir) errs.push(`invalid configuration: podLogsDir ${podLogsDir} must be normalized`);
  else if (podLogsDir === '/') errs.push('invalid configuration: podLogsDir may not be /');
  const maxFiles = num(v, 'containerLogMaxFiles');
  if (maxFiles <= 1) errs.push(`failed to initialize container log manager: invalid MaxFiles ${maxFiles}, must be > 1`);
  const maxSize = str(v, 'containerLogMaxSize');
  if (parseQuantity(maxSize) === undefined) {
    errs.push(`failed to initialize container log manager: failed to parse container log max size "${maxSize}": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  }
  return errs;
}
