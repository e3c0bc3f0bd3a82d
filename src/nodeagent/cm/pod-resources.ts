/**
 * A pod cgroup's resources (kubelet 1.20's ResourceConfigForPod): shares from the pod's cpu
 * requests; the CFS quota and the memory limit for Guaranteed pods, and for Burstable pods only
 * when every container declares that limit; BestEffort pods get the minimum shares. Requests and
 * limits are the containers' sums, at least any init container's.
 */
import { parseQuantity } from '../../api/kinds/core/quantity';
import { CFS_QUOTA_PERIOD_US, milliCpuToQuota, milliCpuToShares, podQosClass } from '../kuberuntime/resources';
import type { Pod } from '../types';
import type { ResourceConfig } from './cgroup-manager';

type Container = { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } };

export const MIN_SHARES = 2;

function containers(pod: Pod, field: 'containers' | 'initContainers'): Container[] {
  return ((pod.spec?.[field] as Container[] | undefined) ?? []).filter((c) => c && typeof c === 'object');
}

/** PodRequestsAndLimits for one resource and kind */
export function podTotal(pod: Pod, kind: 'requests' | 'limits', resource: string): number {
  const value = (c: Container) => parseQuantity(c.resources?.[kind]?.[resource]) ?? 0;
  let total = containers(pod, 'containers').reduce((n, c) => n + value(c), 0);
  for (const c of containers(pod, 'initContainers')) total = Math.max(total, value(c));
  return total;
}

export function resourceConfigForPod(pod: Pod, enforceCpuLimits: boolean, cpuPeriodUs = CFS_QUOTA_PERIOD_US): ResourceConfig {
  const cpuRequests = Math.round(podTotal(pod, 'requests', 'cpu') * 1000);
  const cpuLimits = Math.round(podTotal(pod, 'limits', 'cpu') * 1000);
  const memoryLimits = Math.round(podTotal(pod, 'limits', 'memory'));
  const cpuShares = milliCpuToShares(cpuRequests);
  const cpuQuota = enforceCpuLimits ? milliCpuToQuota(cpuLimits, cpuPeriodUs) : -1;
  const declared = (resource: string) => containers(pod, 'containers').every((c) => (parseQuantity(c.resources?.limits?.[resource]) ?? 0) !== 0);
  switch (podQosClass(pod)) {
    case 'Guaranteed':
      return { cpuShares, cpuQuota, cpuPeriod: cpuPeriodUs, memoryLimit: memoryLimits };
    case 'Burstable': {
      const out: ResourceConfig = { cpuShares };
      if (declared('cpu')) Object.assign(out, { cpuQuota, cpuPeriod: cpuPeriodUs });
      if (declared('memory')) out.memoryLimit = memoryLimits;
      return out;
    }
    default:
      return { cpuShares: MIN_SHARES };
  }
}
