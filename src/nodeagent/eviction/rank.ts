/**
 * Which pod goes first (kubelet 1.20's rankMemoryPressure, rankPIDPressure, rankDiskPressureFunc)
 * and what its eviction says (evictionMessage). Under memory pressure: pods using more than they
 * request, then lower priority, then the larger use above request. Under PID pressure: lower
 * priority. Under disk pressure: the same order as memory over the disk use that signal measures
 * (rootfs, logs and local volumes without a dedicated image filesystem; logs and volumes for nodefs,
 * rootfs for imagefs with one). Pods without stats go first, as kubelet ranks them.
 */
import type { EvictionSignal } from '../config/eviction';
import { parseQuantity } from '../../api/kinds/core/quantity';
import { binaryQuantity, decimalQuantity } from '../node/quantity';
import type { PodStats } from '../server/stats';
import type { Pod } from '../types';
import { SIGNAL_RESOURCE, type ReclaimResource } from './signals';

export type StatsFunc = (pod: Pod) => PodStats | undefined;
type Cmp = (a: Pod, b: Pod) => number;

/** which part of a pod's disk use a signal counts */
export type FsStatsType = 'root' | 'logs' | 'localVolumeSource';

type Spec = {
  containers?: Container[];
  initContainers?: Container[];
  priority?: number;
  volumes?: { name: string; emptyDir?: { medium?: string; sizeLimit?: unknown }; gitRepo?: unknown; configMap?: unknown; downwardAPI?: unknown }[];
};
type Container = { name: string; resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } };

function spec(pod: Pod): Spec {
  return (pod.spec ?? {}) as Spec;
}

/** kubelet's cmpBool: true ranks first */
function cmpBool(a: boolean, b: boolean): number {
  if (a === b) return 0;
  return a ? -1 : 1;
}

/** the pod's request of a resource (GetResourceRequestQuantity: the containers' sum, at least any init container's) */
export function podRequest(pod: Pod, resource: string): number {
  const value = (c: Container) => parseQuantity(c.resources?.requests?.[resource]) ?? 0;
  let total = (spec(pod).containers ?? []).reduce((n, c) => n + value(c), 0);
  for (const c of spec(pod).initContainers ?? []) total = Math.max(total, value(c));
  return total;
}

export function podPriority(pod: Pod): number {
  return typeof spec(pod).priority === 'number' ? spec(pod).priority! : 0;
}

/** lower priority first */
const priority: Cmp = (a, b) => {
  const pa = podPriority(a);
  const pb = podPriority(b);
  return pa === pb ? 0 : pa > pb ? 1 : -1;
};

function memoryUsage(s: PodStats): number {
  return s.memory?.workingSetBytes ?? 0;
}

/** the local ephemeral volumes, whose use counts against the node's disk (kube's IsLocalEphemeralVolume) */
function localVolumeNames(pod: Pod): Set<string> {
  const local = (v: NonNullable<Spec['volumes']>[number]) => v.gitRepo || (v.emptyDir && v.emptyDir.medium !== 'Memory') || v.configMap || v.downwardAPI;
  return new Set((spec(pod).volumes ?? []).filter(local).map((v) => v.name));
}

/** a pod's disk use (bytes or inodes) over the measured parts (podDiskUsage / podLocalEphemeralStorageUsage) */
export function podDiskUsage(pod: Pod, s: PodStats, parts: readonly FsStatsType[], inodes: boolean): number {
  let total = 0;
  const pick = (fs: { usedBytes?: number; inodesUsed?: number } | undefined) => (inodes ? fs?.inodesUsed : fs?.usedBytes) ?? 0;
  for (const c of s.containers) {
    if (parts.includes('root')) total += pick(c.rootfs);
    if (parts.includes('logs')) total += pick(c.logs);
  }
  if (parts.includes('localVolumeSource')) {
    const local = localVolumeNames(pod);
    for (const v of s.volume ?? []) if (local.has(v.name)) total += pick(v);
  }
  return total;
}

function orderedBy(pods: Pod[], cmps: Cmp[]): Pod[] {
  return pods
    .map((pod, i) => ({ pod, i }))
    .sort((x, y) => {
      for (const cmp of cmps) {
        const r = cmp(x.pod, y.pod);
        if (r !== 0) return r;
      }
      return x.i - y.i;
    })
    .map((x) => x.pod);
}

/** pods using more than requested first, then by use above request, larger first */
function usageComparators(stats: StatsFunc, usage: (pod: Pod, s: PodStats) => number, request: (pod: Pod) => number): [Cmp, Cmp] {
  const exceeds: Cmp = (a, b) => {
    const sa = stats(a);
    const sb = stats(b);
    if (!sa || !sb) return cmpBool(!sa, !sb);
    return cmpBool(usage(a, sa) > request(a), usage(b, sb) > request(b));
  };
  const larger: Cmp = (a, b) => {
    const sa = stats(a);
    const sb = stats(b);
    if (!sa || !sb) return cmpBool(!sa, !sb);
    const ua = usage(a, sa) - request(a);
    const ub = usage(b, sb) - request(b);
    return ua === ub ? 0 : ua > ub ? -1 : 1;
  };
  return [exceeds, larger];
}

export function rankMemoryPressure(pods: Pod[], stats: StatsFunc): Pod[] {
  const [exceeds, larger] = usageComparators(stats, (_p, s) => memoryUsage(s), (p) => podRequest(p, 'memory'));
  return orderedBy(pods, [exceeds, priority, larger]);
}

export function rankPidPressure(pods: Pod[]): Pod[] {
  return orderedBy(pods, [priority]);
}

export function rankDiskPressure(parts: readonly FsStatsType[], resource: 'ephemeral-storage' | 'inodes'): (pods: Pod[], stats: StatsFunc) => Pod[] {
  return (pods, stats) => {
    const inodes = resource === 'inodes';
    const [exceeds, larger] = usageComparators(stats, (p, s) => podDiskUsage(p, s, parts, inodes), (p) => (inodes ? 0 : podRequest(p, 'ephemeral-storage')));
    return orderedBy(pods, [exceeds, priority, larger]);
  };
}

/** the ranking for each signal (buildSignalToRankFunc) */
export function rankFuncFor(signal: EvictionSignal, dedicatedImageFs: boolean): (pods: Pod[], stats: StatsFunc) => Pod[] {
  switch (signal) {
    case 'memory.available':
    case 'allocatableMemory.available':
      return rankMemoryPressure;
    case 'pid.available':
      return rankPidPressure;
    case 'nodefs.available':
    case 'nodefs.inodesFree': {
      const parts: FsStatsType[] = dedicatedImageFs ? ['logs', 'localVolumeSource'] : ['root', 'logs', 'localVolumeSource'];
      return rankDiskPressure(parts, signal === 'nodefs.available' ? 'ephemeral-storage' : 'inodes');
    }
    case 'imagefs.available':
    case 'imagefs.inodesFree': {
      const parts: FsStatsType[] = dedicatedImageFs ? ['root'] : ['root', 'logs', 'localVolumeSource'];
      return rankDiskPressure(parts, signal === 'imagefs.available' ? 'ephemeral-storage' : 'inodes');
    }
  }
}

/** resource.NewQuantity(n, BinarySI).String(): small values print as decimal, as kube's canonical form does */
export function bytesText(n: number): string {
  return Math.abs(n) < 1024 ? decimalQuantity(n) : binaryQuantity(n);
}

/** the text of a request as the API holds it ("0" when there is none) */
function requestText(c: Container, resource: string): string {
  const v = c.resources?.requests?.[resource];
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number') return String(v);
  return '0';
}

/** kubelet's evictionMessage: the resource, then each container using more than it requests */
export function evictionMessage(resource: ReclaimResource, pod: Pod, stats: StatsFunc): { message: string; annotations: Record<string, string> } {
  let message = `The node was low on resource: ${resource}. `;
  const annotations: Record<string, string> = {};
  const s = stats(pod);
  if (!s) return { message, annotations };
  const offending: string[] = [];
  const usages: string[] = [];
  for (const cs of s.containers) {
    const container = (spec(pod).containers ?? []).find((c) => c.name === cs.name);
    if (!container) continue;
    let usage: number | undefined;
    if (resource === 'ephemeral-storage' && cs.rootfs?.usedBytes !== undefined && cs.logs?.usedBytes !== undefined) usage = cs.rootfs.usedBytes + cs.logs.usedBytes;
    if (resource === 'memory' && cs.memory?.workingSetBytes !== undefined) usage = cs.memory.workingSetBytes;
    const request = parseQuantity(container.resources?.requests?.[resource]) ?? 0;
    if (usage === undefined || usage <= request) continue;
    message += `Container ${container.name} was using ${bytesText(usage)}, which exceeds its request of ${requestText(container, resource)}. `;
    offending.push(container.name);
    usages.push(bytesText(usage));
  }
  annotations.offending_containers = offending.join(',');
  annotations.offending_containers_usage = usages.join(',');
  annotations.starved_resource = resource;
  return { message, annotations };
}

export { SIGNAL_RESOURCE };
