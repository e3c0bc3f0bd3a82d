/**
 * A pod's QoS class (kube's GetPodQOS) and its cgroup parent under --cgroups-per-qos, as cgroupfs
 * names: <cgroup-root>/kubepods/<burstable|besteffort>/pod<uid>, Guaranteed pods directly under
 * kubepods.
 */
import * as path from 'path';
import { parseQuantity } from '../../api/kinds/core/quantity';
import type { Pod } from '../types';

export type QOSClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

const QOS_RESOURCES = ['cpu', 'memory'];

export function podQOSClass(pod: Pod): QOSClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const containers = [...((pod.spec?.containers ?? []) as Record<string, unknown>[]), ...((pod.spec?.initContainers ?? []) as Record<string, unknown>[])];
  for (const c of containers) {
    const res = (c.resources ?? {}) as { requests?: Record<string, unknown>; limits?: Record<string, unknown> };
    for (const [name, q] of Object.entries(res.requests ?? {})) {
      const v = parseQuantity(q) ?? 0;
      if (QOS_RESOURCES.includes(name) && v > 0) requests.set(name, (requests.get(name) ?? 0) + v);
    }
    const found = new Set<string>();
    for (const [name, q] of Object.entries(res.limits ?? {})) {
      const v = parseQuantity(q) ?? 0;
      if (QOS_RESOURCES.includes(name) && v > 0) {
        found.add(name);
        limits.set(name, (limits.get(name) ?? 0) + v);
      }
    }
    if (!QOS_RESOURCES.every((r) => found.has(r))) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (lim === undefined || Math.abs(lim - req) > 1e-9 * Math.max(1, req)) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}

/** the cgroup parent of a pod; without cgroupsPerQOS, the cgroup root (kube's no-op pod container manager) */
export function podCgroupParent(pod: Pod, cgroupsPerQOS: boolean, cgroupRoot: string): string {
  if (!cgroupsPerQOS) return cgroupRoot;
  const qos = podQOSClass(pod);
  const parts = [cgroupRoot || '/', 'kubepods'];
  if (qos !== 'Guaranteed') parts.push(qos.toLowerCase());
  parts.push(`pod${pod.metadata?.uid ?? ''}`);
  return path.posix.join(...parts);
}
