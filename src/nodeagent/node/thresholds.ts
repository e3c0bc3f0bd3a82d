/**
 * Hard eviction thresholds as node status uses them (kubelet's pkg/kubelet/eviction): the signals
 * observed from host measurements, which node condition each one raises, the pressure transition
 * period before a condition clears, and the reservation the thresholds take out of allocatable.
 */
import type { HostMeasurements } from './host';
import { parseQuantity } from './quantity';

export type Signal = 'memory.available' | 'nodefs.available' | 'nodefs.inodesFree' | 'imagefs.available' | 'imagefs.inodesFree' | 'pid.available';
export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** which node condition each signal raises (eviction's signalToNodeCondition) */
export const SIGNAL_CONDITION: Readonly<Record<Signal, PressureCondition>> = Object.freeze({
  'memory.available': 'MemoryPressure',
  'nodefs.available': 'DiskPressure',
  'nodefs.inodesFree': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'imagefs.inodesFree': 'DiskPressure',
  'pid.available': 'PIDPressure',
});

/** a threshold: an absolute quantity, or a fraction of the signal's capacity */
export interface Threshold {
  signal: Signal;
  quantity?: number;
  percentage?: number;
}

/** kubelet 1.20's --eviction-pressure-transition-period default */
export const DEFAULT_PRESSURE_TRANSITION_MS = 5 * 60_000;

/** {signal: "100Mi" | "10%"} (KubeletConfiguration's evictionHard) to thresholds; unknown signals and empty values are skipped */
export function parseThresholds(map: Readonly<Record<string, string>> | undefined): Threshold[] {
  const out: Threshold[] = [];
  for (const [signal, raw] of Object.entries(map ?? {})) {
    if (!(signal in SIGNAL_CONDITION)) continue;
    const value = raw.trim();
    if (value.endsWith('%')) {
      const pct = Number(value.slice(0, -1));
      // 0% disables the threshold, as kube's parser does
      if (Number.isFinite(pct) && pct > 0) out.push({ signal: signal as Signal, percentage: pct / 100 });
      continue;
    }
    const q = parseQuantity(value);
    if (q !== undefined && q > 0) out.push({ signal: signal as Signal, quantity: q });
  }
  return out;
}

/** what each signal observes now: its available amount and its capacity */
export type Observations = Record<Signal, { available: number; capacity: number }>;

export function observe(m: HostMeasurements): Observations {
  return {
    'memory.available': { available: Math.max(0, m.memoryCapacityBytes - m.memoryWorkingSetBytes), capacity: m.memoryCapacityBytes },
    'nodefs.available': { available: m.nodefs.availableBytes, capacity: m.nodefs.capacityBytes },
    'nodefs.inodesFree': { available: m.nodefs.inodesFree, capacity: m.nodefs.inodes },
    'imagefs.available': { available: m.imagefs.availableBytes, capacity: m.imagefs.capacityBytes },
    'imagefs.inodesFree': { available: m.imagefs.inodesFree, capacity: m.imagefs.inodes },
    'pid.available': { available: Math.max(0, m.maxPid - m.numProcesses), capacity: m.maxPid },
  };
}

/** the amount a threshold stands for against a capacity */
export function thresholdValue(t: Threshold, capacity: number): number {
  return t.quantity ?? Math.floor((t.percentage ?? 0) * capacity);
}

/** the thresholds whose signal is below them (eviction's thresholdsMet) */
export function thresholdsMet(thresholds: readonly Threshold[], obs: Observations): Threshold[] {
  return thresholds.filter((t) => {
    const o = obs[t.signal];
    // a filesystem that reports no inodes cannot be judged by them
    if (o.capacity === 0 && t.signal.endsWith('inodesFree')) return false;
    return o.available < thresholdValue(t, o.capacity);
  });
}

/**
 * Node conditions with the transition period: a condition observed at some time stays reported
 * until the period has passed without it (eviction's nodeConditionsObservedSince).
 */
export class PressureTracker {
  readonly #periodMs: number;
  readonly #lastObserved = new Map<PressureCondition, number>();

  constructor(periodMs = DEFAULT_PRESSURE_TRANSITION_MS) {
    this.#periodMs = periodMs;
  }

  /** record the thresholds met at `now`, and answer the conditions to report */
  update(met: readonly Threshold[], now: number): Set<PressureCondition> {
    for (const t of met) this.#lastObserved.set(SIGNAL_CONDITION[t.signal], now);
    const out = new Set<PressureCondition>();
    for (const [condition, at] of this.#lastObserved) {
      if (now - at < this.#periodMs) out.add(condition);
      else this.#lastObserved.delete(condition);
    }
    return out;
  }
}

/**
 * The part of capacity the hard thresholds reserve (container manager's hardEvictionReservation):
 * memory.available from memory, nodefs.available from ephemeral-storage.
 */
export function hardEvictionReservation(thresholds: readonly Threshold[], capacity: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of thresholds) {
    const resource = t.signal === 'memory.available' ? 'memory' : t.signal === 'nodefs.available' ? 'ephemeral-storage' : undefined;
    if (!resource || capacity[resource] === undefined) continue;
    out[resource] = (out[resource] ?? 0) + thresholdValue(t, capacity[resource]);
  }
  return out;
}
