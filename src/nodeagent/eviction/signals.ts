/**
 * Eviction signals and thresholds over the summary (kubelet 1.20's eviction helpers): what each
 * signal observes (makeSignalObservations), which thresholds are met (with minimum reclaim for those
 * already met), since when (grace periods), the node conditions they raise with the pressure
 * transition period, and the order thresholds are acted on.
 */
import type { EvictionSignal, EvictionThreshold, ThresholdValue } from '../config/eviction';
import type { PressureCondition } from '../node/thresholds';
import type { Summary } from '../server/stats';

/** a signal's available amount and its capacity */
export interface Observation {
  available: number;
  capacity: number;
}

export type Observations = Partial<Record<EvictionSignal, Observation>>;

/** what a signal reclaims: kube's resource names plus the eviction package's own inodes and pids */
export type ReclaimResource = 'memory' | 'ephemeral-storage' | 'inodes' | 'pids';

export const SIGNAL_RESOURCE: Readonly<Record<EvictionSignal, ReclaimResource>> = Object.freeze({
  'memory.available': 'memory',
  'allocatableMemory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
  'nodefs.inodesFree': 'inodes',
  'imagefs.available': 'ephemeral-storage',
  'imagefs.inodesFree': 'inodes',
  'pid.available': 'pids',
});

export const SIGNAL_CONDITION: Readonly<Record<EvictionSignal, PressureCondition>> = Object.freeze({
  'memory.available': 'MemoryPressure',
  'allocatableMemory.available': 'MemoryPressure',
  'nodefs.available': 'DiskPressure',
  'nodefs.inodesFree': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'imagefs.inodesFree': 'DiskPressure',
  'pid.available': 'PIDPressure',
});

/** the signals observed in a summary; a signal whose numbers are missing is not observed */
export function observe(summary: Summary): Observations {
  const out: Observations = {};
  const { node } = summary;
  const memory = node.memory;
  if (memory?.availableBytes !== undefined && memory.workingSetBytes !== undefined) {
    out['memory.available'] = { available: memory.availableBytes, capacity: memory.availableBytes + memory.workingSetBytes };
  }
  const pods = node.systemContainers?.find((c) => c.name === 'pods')?.memory;
  if (pods?.availableBytes !== undefined && pods.workingSetBytes !== undefined) {
    out['allocatableMemory.available'] = { available: pods.availableBytes, capacity: pods.availableBytes + pods.workingSetBytes };
  }
  for (const [prefix, fs] of [['nodefs', node.fs], ['imagefs', node.runtime?.imageFs]] as const) {
    if (fs?.availableBytes !== undefined && fs.capacityBytes !== undefined) out[`${prefix}.available`] = { available: fs.availableBytes, capacity: fs.capacityBytes };
    if (fs?.inodesFree !== undefined && fs.inodes !== undefined) out[`${prefix}.inodesFree`] = { available: fs.inodesFree, capacity: fs.inodes };
  }
  const rlimit = node.rlimit;
  if (rlimit?.maxpid !== undefined && rlimit.curproc !== undefined) {
    out['pid.available'] = { available: rlimit.maxpid - rlimit.curproc, capacity: rlimit.maxpid };
  }
  return out;
}

/** the amount a threshold value stands for against a capacity (a percentage is truncated, as kube's int64 conversion) */
export function thresholdQuantity(value: ThresholdValue, capacity: number): number {
  return 'quantity' in value ? value.quantity : Math.trunc(value.percentage * capacity);
}

export function isHard(t: EvictionThreshold): boolean {
  return t.gracePeriodMs === 0;
}

/**
 * The thresholds whose signal is below them. With enforceMinReclaim a threshold counts as met until
 * the signal is above it by its minimum reclaim (a pressure, once seen, must be relieved by that much).
 */
export function thresholdsMet(thresholds: readonly EvictionThreshold[], obs: Observations, enforceMinReclaim: boolean): EvictionThreshold[] {
  return thresholds.filter((t) => {
    const o = obs[t.signal];
    if (!o) return false;
    let quantity = thresholdQuantity(t.value, o.capacity);
    if (enforceMinReclaim && t.minReclaim) quantity += thresholdQuantity(t.minReclaim, o.capacity);
    return quantity > o.available;
  });
}

/** the union of two lists of thresholds, without duplicates */
export function mergeThresholds(a: readonly EvictionThreshold[], b: readonly EvictionThreshold[]): EvictionThreshold[] {
  return [...new Set([...a, ...b])];
}

/** when each met threshold was first seen: kept from before, else now */
export function firstObservedAt(met: readonly EvictionThreshold[], last: ReadonlyMap<EvictionThreshold, number>, now: number): Map<EvictionThreshold, number> {
  return new Map(met.map((t) => [t, last.get(t) ?? now]));
}

/** the thresholds whose grace period has passed since they were first seen */
export function metGracePeriod(observedAt: ReadonlyMap<EvictionThreshold, number>, now: number): EvictionThreshold[] {
  return [...observedAt].filter(([t, at]) => now - at >= t.gracePeriodMs).map(([t]) => t);
}

export function conditionsOf(met: readonly EvictionThreshold[]): Set<PressureCondition> {
  return new Set(met.map((t) => SIGNAL_CONDITION[t.signal]));
}

/** each condition seen now is stamped now; the others keep their last time */
export function conditionsLastObservedAt(conditions: ReadonlySet<PressureCondition>, last: ReadonlyMap<PressureCondition, number>, now: number): Map<PressureCondition, number> {
  const out = new Map(last);
  for (const c of conditions) out.set(c, now);
  return out;
}

/** the conditions seen within the transition period: they are reported until it has passed */
export function conditionsObservedSince(lastObserved: ReadonlyMap<PressureCondition, number>, periodMs: number, now: number): Set<PressureCondition> {
  return new Set([...lastObserved].filter(([, at]) => now - at < periodMs).map(([c]) => c));
}

/** memory signals first (kubelet's byEvictionPriority), then the others in their order */
export function byEvictionPriority(thresholds: readonly EvictionThreshold[]): EvictionThreshold[] {
  const memory = (t: EvictionThreshold) => t.signal === 'memory.available' || t.signal === 'allocatableMemory.available';
  return [...thresholds.filter(memory), ...thresholds.filter((t) => !memory(t))];
}

/** a threshold as the log shows it: "memory.available<100Mi" */
export function describe(t: EvictionThreshold): string {
  return `${t.signal}<${'quantity' in t.value ? t.value.text : `${Math.round(t.value.percentage * 10000) / 100}%`}`;
}
