/**
 * A container's Linux resources as kubelet computes them (kuberuntime_container_linux.go, qos/):
 * cpu shares from the request (the limit when there is no request), CFS quota and period from the
 * limit when cpuCFSQuota, the memory limit, and the OOM score adjustment of the pod's QoS class.
 */
import { parseQuantity } from '../../api/kinds/core/quantity';
import type { LinuxContainerResources } from '../cri/generated/runtime/v1/LinuxContainerResources';
import type { Pod } from '../types';
import { containersOf } from './sandbox-config';

type Spec = Record<string, unknown>;

const MIN_SHARES = 2;
const MAX_SHARES = 262_144;
const SHARES_PER_CPU = 1024;
/** the CFS period kubelet uses (100 ms, in microseconds), and the smallest quota */
export const CFS_QUOTA_PERIOD_US = 100_000;
const MIN_QUOTA_US = 1_000;
export const GUARANTEED_OOM_SCORE_ADJ = -998;
export const BEST_EFFORT_OOM_SCORE_ADJ = 1000;
/** PriorityClass system-cluster-critical and above */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

function resourceValue(container: Spec, kind: 'requests' | 'limits', name: string): number {
  const list = (container.resources as Spec | undefined)?.[kind] as Spec | undefined;
  return parseQuantity(list?.[name]) ?? 0;
}

export function milliCpuToShares(milliCpu: number): number {
  if (milliCpu === 0) return MIN_SHARES;
  const shares = Math.floor((milliCpu * SHARES_PER_CPU) / 1000);
  return Math.min(Math.max(shares, MIN_SHARES), MAX_SHARES);
}

export function milliCpuToQuota(milliCpu: number, periodUs: number): number {
  if (milliCpu === 0) return 0;
  return Math.max(Math.floor((milliCpu * periodUs) / 1000), MIN_QUOTA_US);
}

/** kube's GetPodQOS over cpu and memory of every container and init container */
export function podQosClass(pod: Pod): QosClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  for (const container of [...containersOf(pod), ...containersOf(pod, 'initContainers')]) {
    for (const name of ['cpu', 'memory']) {
      const request = resourceValue(container, 'requests', name);
      if (request > 0) requests.set(name, (requests.get(name) ?? 0) + request);
    }
    const found = new Set<string>();
    for (const name of ['cpu', 'memory']) {
      const limit = resourceValue(container, 'limits', name);
      if (limit > 0) {
        found.add(name);
        limits.set(name, (limits.get(name) ?? 0) + limit);
      }
    }
    if (!found.has('cpu') || !found.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      if (limits.get(name) !== request) guaranteed = false;
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** static and mirror pods, and pods of system-critical priority */
export function isCriticalPod(pod: Pod): boolean {
  const annotations = pod.metadata?.annotations ?? {};
  const source = annotations['kubernetes.io/config.source'];
  if (source !== undefined && source !== 'api') return true;
  if (annotations['kubernetes.io/config.mirror'] !== undefined) return true;
  return typeof pod.spec?.priority === 'number' && pod.spec.priority >= SYSTEM_CRITICAL_PRIORITY;
}

/** kube's GetContainerOOMScoreAdjust */
export function containerOomScoreAdjust(pod: Pod, container: Spec, memoryCapacityBytes: number): number {
  if (isCriticalPod(pod)) return GUARANTEED_OOM_SCORE_ADJ;
  const qos = podQosClass(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BEST_EFFORT_OOM_SCORE_ADJ;
  const memoryRequest = resourceValue(container, 'requests', 'memory');
  const adjust = 1000 - Math.trunc((1000 * memoryRequest) / memoryCapacityBytes);
  if (adjust < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adjust === BEST_EFFORT_OOM_SCORE_ADJ) return adjust - 1;
  return adjust;
}

export function containerResources(pod: Pod, container: Spec, options: { cpuCFSQuota: boolean; memoryCapacityBytes: number }): LinuxContainerResources {
  const cpuRequest = Math.round(resourceValue(container, 'requests', 'cpu') * 1000);
  const cpuLimit = Math.round(resourceValue(container, 'limits', 'cpu') * 1000);
  const memoryLimit = Math.round(resourceValue(container, 'limits', 'memory'));
  const resources: LinuxContainerResources = {
    cpuShares: milliCpuToShares(cpuRequest === 0 && cpuLimit !== 0 ? cpuLimit : cpuRequest),
    oomScoreAdj: containerOomScoreAdjust(pod, container, options.memoryCapacityBytes),
  };
  if (memoryLimit !== 0) resources.memoryLimitInBytes = memoryLimit;
  if (options.cpuCFSQuota) {
    resources.cpuPeriod = CFS_QUOTA_PERIOD_US;
    resources.cpuQuota = milliCpuToQuota(cpuLimit, CFS_QUOTA_PERIOD_US);
  }
  return resources;
}
