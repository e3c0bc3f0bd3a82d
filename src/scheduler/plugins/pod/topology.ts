/**
 * Small pieces the inter-pod plugins share: counts per topology pair kept as key -> value -> n
 * (no string concatenation on hot paths), pod field accessors, kube's zone key, and args errors
 * rendered as kube's field.ErrorList aggregate.
 */
import type { KubeObject } from '../../../client/types';

/** counts (or scores) per topology pair: topologyKey -> topologyValue -> number */
export class TopologyCounts {
  readonly byKey = new Map<string, Map<string, number>>();

  get(key: string, value: string): number {
    return this.byKey.get(key)?.get(value) ?? 0;
  }

  has(key: string, value: string): boolean {
    return this.byKey.get(key)?.has(value) ?? false;
  }

  /** set the pair to n (creating it) */
  set(key: string, value: string, n: number): void {
    let values = this.byKey.get(key);
    if (!values) this.byKey.set(key, (values = new Map()));
    values.set(value, n);
  }

  /** add delta; a pair that falls to zero is dropped, as kube deletes emptied map entries */
  add(key: string, value: string, delta: number): void {
    const n = this.get(key, value) + delta;
    if (n === 0) {
      const values = this.byKey.get(key);
      values?.delete(value);
      if (values && values.size === 0) this.byKey.delete(key);
    } else {
      this.set(key, value, n);
    }
  }

  /** no pair at all (pairs emptied by add are gone; set keeps zeros) */
  isEmpty(): boolean {
    return this.byKey.size === 0;
  }

  get size(): number {
    let n = 0;
    for (const values of this.byKey.values()) n += values.size;
    return n;
  }

  /** the sum over the pairs the node's labels name */
  sumFor(labels: Record<string, string>): number {
    let sum = 0;
    for (const [key, values] of this.byKey) {
      const v = labels[key];
      if (v !== undefined) sum += values.get(v) ?? 0;
    }
    return sum;
  }

  /** does any pair the node's labels name hold a positive count? */
  anyPositiveFor(labels: Record<string, string>): boolean {
    for (const [key, values] of this.byKey) {
      const v = labels[key];
      if (v !== undefined && (values.get(v) ?? 0) > 0) return true;
    }
    return false;
  }

  clone(): TopologyCounts {
    const c = new TopologyCounts();
    for (const [key, values] of this.byKey) c.byKey.set(key, new Map(values));
    return c;
  }
}

const NO_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export function labelsOf(obj: KubeObject | undefined): Record<string, string> {
  return (obj?.metadata?.labels as Record<string, string> | undefined) ?? NO_LABELS;
}

export function namespaceOf(obj: KubeObject): string {
  return obj.metadata?.namespace ?? '';
}

export function isTerminating(pod: KubeObject): boolean {
  return !!pod.metadata?.deletionTimestamp;
}

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
export const LABEL_TOPOLOGY_REGION = 'topology.kubernetes.io/region';
export const LABEL_ZONE_FAILURE_DOMAIN = 'failure-domain.beta.kubernetes.io/zone';
export const LABEL_ZONE_REGION = 'failure-domain.beta.kubernetes.io/region';

/** kube 1.20's utilnode.GetZoneKey: region and zone (beta labels first), '' when neither is set */
export function zoneKey(node: KubeObject | undefined): string {
  const labels = labelsOf(node);
  const zone = labels[LABEL_ZONE_FAILURE_DOMAIN] ?? labels[LABEL_TOPOLOGY_ZONE] ?? '';
  const region = labels[LABEL_ZONE_REGION] ?? labels[LABEL_TOPOLOGY_REGION] ?? '';
  if (region === '' && zone === '') return '';
  // the NUL keeps a colon inside a region or zone from making two keys equal
  return `${region}:\x00:${zone}`;
}

/** an error carrying kube's aggregate of field errors: one alone, several as `[a, b]` */
export function fieldErrors(errs: readonly string[]): Error | undefined {
  if (errs.length === 0) return undefined;
  return new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
}

/** kube's "error reading <key> from cycleState: not found" */
export function missingState(key: string): Error {
  return new Error(`error reading "${key}" from cycleState: not found`);
}
