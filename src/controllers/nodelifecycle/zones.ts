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
