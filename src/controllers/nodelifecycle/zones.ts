/**
 * Zones and their disruption states (kube's nodelifecycle ComputeZoneState, GetZoneKey and the
 * eviction rate chosen per state). A zone is the node's region and zone labels; nodes without them
 * share the zone "".
 */
import type { KubeObject } from '../../client/types';
import type { NodeCondition } from './taints';

export type ZoneState = 'Initial' | 'Normal' | 'PartialDisruption' | 'FullDisruption';

/** utilnode.GetZoneKey: region and zone, stable or beta labels; "" when the node has neither */
export function zoneKey(node: KubeObject): string {
  const labels = node.metadata?.labels ?? {};
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  if (!region && !zone) return '';
  return `${region}:\u0000:${zone}`;
}

/**
 * ComputeZoneState: FullDisruption when no node is ready and some are not; PartialDisruption when
 * more than two are not ready and they are at least `unhealthyThreshold` of the zone; else Normal.
 * A missing Ready condition counts as not ready.
 */
export function computeZoneState(readyConditions: readonly (NodeCondition | undefined)[], unhealthyThreshold: number): { notReady: number; state: ZoneState } {
  let ready = 0;
  let notReady = 0;
  for (const c of readyConditions) {
    if (c?.status === 'True') ready++;
    else notReady++;
  }
  if (ready === 0 && notReady > 0) return { notReady, state: 'FullDisruption' };
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyThreshold) return { notReady, state: 'PartialDisruption' };
  return { notReady, state: 'Normal' };
}

export interface EvictionRates {
  evictionRate: number;
  secondaryEvictionRate: number;
  largeClusterSizeThreshold: number;
}

/**
 * setLimiterInZone: evictions per second in a zone of `zoneSize` nodes. Normal and FullDisruption
 * (HealthyQPSFunc) use the eviction rate; PartialDisruption (ReducedQPSFunc) the secondary rate in
 * large zones and none in small ones.
 */
export function zoneEvictionRate(state: ZoneState, zoneSize: number, r: EvictionRates): number {
  if (state === 'PartialDisruption') return zoneSize > r.largeClusterSizeThreshold ? r.secondaryEvictionRate : 0;
  return r.evictionRate;
}

/** what a monitor pass's zone review asks of the controller */
export type DisruptionDecision =
  /** every zone is fully disrupted (newly): the controller's own network is suspect; stop evicting and untaint every node */
  | { kind: 'enterFullDisruption' }
  /** some node is ready again after a full disruption: restart every node's clock, then set these rates */
  | { kind: 'exitFullDisruption'; rates: Map<string, number> }
  /** the zones whose state changed, with their new rates (maybe none) */
  | { kind: 'zones'; rates: Map<string, number> };

/**
 * The zone states across monitor passes (kube's zoneStates and handleDisruption). A zone seen for
 * the first time starts Initial, so it is never taken for fully disrupted before one review.
 */
export class ZoneStates {
  readonly states = new Map<string, ZoneState>();
  readonly #o: EvictionRates & { unhealthyZoneThreshold: number };

  constructor(o: EvictionRates & { unhealthyZoneThreshold: number }) {
    this.#o = o;
  }

  /** a zone first seen with a new node: true when it is new */
  add(zone: string): boolean {
    if (this.states.has(zone)) return false;
    this.states.set(zone, 'Initial');
    return true;
  }

  /** review every zone from the Ready conditions of its nodes (those not excluded from disruption checks) */
  review(zoneConditions: ReadonlyMap<string, readonly (NodeCondition | undefined)[]>): DisruptionDecision {
    const next = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conditions] of zoneConditions) {
      const { state } = computeZoneState(conditions, this.#o.unhealthyZoneThreshold);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      next.set(zone, state);
      if (!this.states.has(zone)) this.states.set(zone, 'Initial');
    }
    // zones whose nodes are all gone are forgotten (kube may keep some a pass longer, by map order)
    for (const zone of this.states.keys()) if (!zoneConditions.has(zone)) this.states.delete(zone);
    const allWereFullyDisrupted = [...this.states.values()].every((s) => s === 'FullDisruption');
    const rates = new Map<string, number>();
    if (allAreFullyDisrupted && allWereFullyDisrupted) return { kind: 'zones', rates };
    const sizeOf = (zone: string) => zoneConditions.get(zone)?.length ?? 0;
    if (allAreFullyDisrupted) {
      for (const zone of this.states.keys()) this.states.set(zone, 'FullDisruption');
      return { kind: 'enterFullDisruption' };
    }
    if (allWereFullyDisrupted) {
      for (const zone of this.states.keys()) {
        const state = next.get(zone) ?? 'Normal';
        rates.set(zone, zoneEvictionRate(state, sizeOf(zone), this.#o));
        this.states.set(zone, state);
      }
      return { kind: 'exitFullDisruption', rates };
    }
    for (const [zone, old] of this.states) {
      const state = next.get(zone) ?? 'Normal';
      if (old === state) continue;
      rates.set(zone, zoneEvictionRate(state, sizeOf(zone), this.#o));
      this.states.set(zone, state);
    }
    return { kind: 'zones', rates };
  }
}
