/**
 * SelectorSpread (kube 1.20; the legacy default spreading, used when DefaultPodTopologySpread is
 * off): fewer pods of the same services, controllers and sets on a node, and in its zone, score
 * higher. Zones weigh 2/3 when nodes have zone labels. Pods with topologySpreadConstraints are
 * left to PodTopologySpread.
 */
import type { LabelSelector } from '../../../api/selectors';
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { podSpec } from '../../framework/resource';
import { errorStatus } from '../../framework/status';
import { MAX_NODE_SCORE, type FrameworkHandle, type NodeScore, type Plugin, type PluginFactory, type StateData } from '../../framework/types';
import { defaultSelector } from './default-selector';
import { countPodsMatching } from './pod-matching';
import { namespaceOf, zoneKey } from './topology';

export const SELECTOR_SPREAD_NAME = 'SelectorSpread';
const PRE_SCORE_KEY = `PreScore${SELECTOR_SPREAD_NAME}`;
const ZONE_WEIGHTING = 2 / 3;

class SelectorState implements StateData {
  constructor(readonly selector: LabelSelector) {}
  clone(): SelectorState {
    return this;
  }
}

function skip(pod: KubeObject): boolean {
  return ((podSpec(pod).topologySpreadConstraints as unknown[] | undefined) ?? []).length !== 0;
}

/** pods of the namespace, not terminating, that the selector selects (none for an empty selector) */
function countMatchingPods(namespace: string, selector: LabelSelector, nodeInfo: NodeInfo): number {
  if (selector.isEmpty()) return 0;
  return countPodsMatching(nodeInfo, selector, namespace);
}

export const newSelectorSpread: PluginFactory = (_args: unknown, handle: FrameworkHandle): Plugin => ({
  name: SELECTOR_SPREAD_NAME,
  preScore(state, pod) {
    if (skip(pod)) return undefined;
    state.write(PRE_SCORE_KEY, new SelectorState(defaultSelector(handle, pod)));
    return undefined;
  },
  score(state, pod, nodeInfo) {
    if (skip(pod)) return 0;
    const s = state.read<SelectorState>(PRE_SCORE_KEY);
    if (!s) return errorStatus(new Error(`Error reading "${PRE_SCORE_KEY}" from cycleState: not found`));
    return countMatchingPods(namespaceOf(pod), s.selector, nodeInfo);
  },
  normalizeScore(_state, pod, scores: NodeScore[]) {
    if (skip(pod)) return undefined;
    const lister = handle.snapshot();
    const zones: string[] = [];
    const byZone = new Map<string, number>();
    let maxByNode = 0;
    for (const { name, score } of scores) {
      if (score > maxByNode) maxByNode = score;
      const info = lister.get(name);
      if (!info) return errorStatus(new Error(`getting node "${name}" from Snapshot: nodeinfo not found for node name "${name}"`));
      const zone = zoneKey(info.node);
      zones.push(zone);
      if (zone !== '') byZone.set(zone, (byZone.get(zone) ?? 0) + score);
    }
    let maxByZone = 0;
    for (const n of byZone.values()) if (n > maxByZone) maxByZone = n;
    const haveZones = byZone.size > 0;
    scores.forEach((ns, i) => {
      let f = MAX_NODE_SCORE;
      if (maxByNode > 0) f = MAX_NODE_SCORE * ((maxByNode - ns.score) / maxByNode);
      const zone = zones[i];
      if (haveZones && zone !== '') {
        let zoneScore = MAX_NODE_SCORE;
        if (maxByZone > 0) zoneScore = MAX_NODE_SCORE * ((maxByZone - byZone.get(zone)!) / maxByZone);
        f = f * (1 - ZONE_WEIGHTING) + ZONE_WEIGHTING * zoneScore;
      }
      ns.score = Math.trunc(f);
    });
    return undefined;
  },
});
