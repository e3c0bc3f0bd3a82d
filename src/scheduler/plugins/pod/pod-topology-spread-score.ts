/**
 * PodTopologySpread's scoring half (kube 1.20's podtopologyspread/scoring.go). PreScore counts the
 * matching pods per pair of the ScheduleAnyway constraints over the eligible nodes (hostname pairs
 * are counted per node in Score) and weighs each constraint by log(number of its domains + 2), so
 * small topologies are not drowned by big ones; fewer matching pods score higher after
 * NormalizeScore inverts the sums. Nodes missing a topology key are ignored (score 0).
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { errorStatus, type Result } from '../../framework/status';
import { MAX_NODE_SCORE, type CycleState, type NodeInfoLister, type NodeScore, type StateData } from '../../framework/types';
import { compileNodeMatcher } from './node-match';
import { POD_TOPOLOGY_SPREAD_NAME } from './pod-topology-spread-filter';
import { hasAllTopologyKeys, type SpreadConstraint } from './spread-constraints';
import { countPodsMatching } from './pod-matching';
import { LABEL_HOSTNAME, TopologyCounts, labelsOf, missingState, namespaceOf } from './topology';

const PRE_SCORE_KEY = `PreScore${POD_TOPOLOGY_SPREAD_NAME}`;

export class SpreadPreScoreState implements StateData {
  constructor(
    readonly constraints: SpreadConstraint[],
    /** nodes that miss some topology key */
    readonly ignoredNodes = new Set<string>(),
    readonly counts = new TopologyCounts(),
    readonly weights: number[] = [],
    /** node name -> matching pods on it, per hostname constraint, for the nodes PreScore walked */
    readonly hostCounts = new Map<string, number[]>(),
  ) {}
  clone(): SpreadPreScoreState {
    return this;
  }
}

/** kube's topologyNormalizingWeight */
export function topologyNormalizingWeight(size: number): number {
  return Math.log(size + 2);
}

/** kube's scoreForCount: maxSkew - 1 waters down differences the constraint tolerates */
export function scoreForCount(count: number, maxSkew: number, weight: number): number {
  return count * weight + (maxSkew - 1);
}

export function computePreScoreState(pod: KubeObject, constraints: SpreadConstraint[], filtered: readonly NodeInfo[], lister: NodeInfoLister): SpreadPreScoreState {
  const s = new SpreadPreScoreState(constraints);
  if (constraints.length === 0) return s;
  const domains = constraints.map(() => 0);
  for (const info of filtered) {
    const labels = labelsOf(info.node);
    if (!hasAllTopologyKeys(labels, constraints)) {
      s.ignoredNodes.add(info.name);
      continue;
    }
    constraints.forEach((c, i) => {
      if (c.topologyKey === LABEL_HOSTNAME) return;
      const v = labels[c.topologyKey];
      if (!s.counts.has(c.topologyKey, v)) {
        s.counts.set(c.topologyKey, v, 0);
        domains[i]++;
      }
    });
  }
  constraints.forEach((c, i) => {
    const size = c.topologyKey === LABEL_HOSTNAME ? filtered.length - s.ignoredNodes.size : domains[i];
    s.weights.push(topologyNormalizingWeight(size));
  });

  const fits = compileNodeMatcher(pod);
  const ns = namespaceOf(pod);
  const hostname = constraints.findIndex((c) => c.topologyKey === LABEL_HOSTNAME);
  for (const info of lister.list()) {
    if (!info.node || !fits(info.node)) continue;
    const labels = labelsOf(info.node);
    if (!hasAllTopologyKeys(labels, constraints)) continue;
    // constraints of the defaults share one selector: count each node's pods once for them all
    const perNode: number[] = [];
    constraints.forEach((c, i) => {
      const same = constraints.findIndex((o) => o.selector === c.selector);
      const isHost = c.topologyKey === LABEL_HOSTNAME;
      const v = labels[c.topologyKey];
      if (!isHost && !s.counts.has(c.topologyKey, v)) return;
      perNode[i] = same < i && perNode[same] !== undefined ? perNode[same] : countPodsMatching(info, c.selector, ns);
      if (!isHost) s.counts.set(c.topologyKey, v, s.counts.get(c.topologyKey, v) + perNode[i]);
    });
    // Score would count the node's own pods again for a hostname constraint: keep them
    if (hostname >= 0) s.hostCounts.set(info.name, perNode);
  }
  return s;
}

export function writePreScoreState(state: CycleState, s: SpreadPreScoreState): void {
  state.write(PRE_SCORE_KEY, s);
}

export function scoreNode(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): number | Error {
  if (!nodeInfo.node) return new Error(`getting node "${nodeInfo.name}" from Snapshot: node is nil`);
  const s = state.read<SpreadPreScoreState>(PRE_SCORE_KEY);
  if (!s) return missingState(PRE_SCORE_KEY);
  if (s.ignoredNodes.has(nodeInfo.name)) return 0;
  const labels = labelsOf(nodeInfo.node);
  let score = 0;
  s.constraints.forEach((c, i) => {
    const v = labels[c.topologyKey];
    if (v === undefined) return;
    const count = c.topologyKey === LABEL_HOSTNAME ? (s.hostCounts.get(nodeInfo.name)?.[i] ?? countPodsMatching(nodeInfo, c.selector, namespaceOf(pod))) : s.counts.get(c.topologyKey, v);
    score += scoreForCount(count, c.maxSkew, s.weights[i]);
  });
  return Math.trunc(score);
}

export function normalize(state: CycleState, scores: NodeScore[]): Result {
  const s = state.read<SpreadPreScoreState>(PRE_SCORE_KEY);
  if (!s) return errorStatus(missingState(PRE_SCORE_KEY));
  let min = Number.MAX_SAFE_INTEGER;
  let max = 0;
  for (const { name, score } of scores) {
    if (s.ignoredNodes.has(name)) continue;
    if (score < min) min = score;
    if (score > max) max = score;
  }
  for (const ns of scores) {
    if (s.ignoredNodes.has(ns.name)) ns.score = 0;
    else if (max === 0) ns.score = MAX_NODE_SCORE;
    // integer arithmetic, as kube's int64 division
    else ns.score = Math.trunc((MAX_NODE_SCORE * (max + min - ns.score)) / max);
  }
  return undefined;
}
