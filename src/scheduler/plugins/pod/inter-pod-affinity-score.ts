/**
 * InterPodAffinity's scoring half (kube 1.20's interpodaffinity/scoring.go): PreScore sums, per
 * topology pair, the weights of the preferred terms of the incoming pod that existing pods match,
 * of the existing pods' preferred terms that the incoming pod matches, and of the existing pods'
 * required affinity terms (weighted by hardPodAffinityWeight); Score adds the pairs of a node;
 * NormalizeScore maps [min, max] onto [0, 100].
 */
import type { KubeObject } from '../../../client/types';
import { PodInfo, type AffinityTerm, type NodeInfo, type WeightedAffinityTerm } from '../../framework/node-info';
import { errorStatus, type Result } from '../../framework/status';
import { MAX_NODE_SCORE, type CycleState, type NodeInfoLister, type NodeScore, type StateData } from '../../framework/types';
import { INTER_POD_AFFINITY_NAME } from './inter-pod-affinity-filter';
import { countPodsMatchingAll, memoForNode, podSignature, termListKey, termMatcher, toDeltas } from './pod-matching';
import { TopologyCounts, labelsOf, missingState } from './topology';

const PRE_SCORE_KEY = `PreScore${INTER_POD_AFFINITY_NAME}`;

export class AffinityPreScoreState implements StateData {
  constructor(readonly topologyScore: TopologyCounts) {}
  clone(): AffinityPreScoreState {
    return this;
  }
}

/** when `target` matches the term and the node has its topology key, the pair gains weight * multiplier */
function processTerm(scores: TopologyCounts, term: AffinityTerm, weight: number, target: KubeObject, labels: Record<string, string>, multiplier: number): void {
  const v = labels[term.topologyKey];
  if (v === undefined || !termMatcher(term)(target)) return;
  scores.set(term.topologyKey, v, scores.get(term.topologyKey, v) + weight * multiplier);
}

function processTerms(scores: TopologyCounts, terms: readonly WeightedAffinityTerm[], target: KubeObject, labels: Record<string, string>, multiplier: number): void {
  for (const t of terms) processTerm(scores, t, t.weight, target, labels, multiplier);
}

export function computePreScoreState(pod: KubeObject, lister: NodeInfoLister, hardPodAffinityWeight: number): AffinityPreScoreState {
  const incoming = new PodInfo(pod);
  // without (anti-)affinity of its own, only pods with affinity can score the incoming pod
  const own = incoming.hasAffinity;
  const scores = new TopologyCounts();
  const signature = podSignature(pod);
  const incomingTerms = [
    ...incoming.preferredAffinityTerms.map((term) => ({ term, key: termListKey([term]), sign: 1 })),
    ...incoming.preferredAntiAffinityTerms.map((term) => ({ term, key: termListKey([term]), sign: -1 })),
  ];
  for (const info of own ? lister.list() : lister.havePodsWithAffinityList()) {
    if (!info.node) continue;
    const labels = labelsOf(info.node);
    if (Object.keys(labels).length === 0) continue;
    // the incoming pod's preferred terms: weight times the node's matching pods (remembered per node)
    incomingTerms.forEach(({ term, key, sign }) => {
      const v = labels[term.topologyKey];
      if (v === undefined) return;
      const n = countPodsMatchingAll(info, [term], key);
      if (n > 0) scores.set(term.topologyKey, v, scores.get(term.topologyKey, v) + term.weight * sign * n);
    });
    // what the node's pods' terms say of the incoming pod depends only on its namespace and labels
    const deltas = memoForNode(info, `${own ? 'all' : 'withAffinity'}\x00${hardPodAffinityWeight}\x00${signature}`, () => {
      const c = new TopologyCounts();
      for (const existing of own ? info.pods : info.podsWithAffinity) {
        if (hardPodAffinityWeight > 0) {
          for (const t of existing.requiredAffinityTerms) processTerm(c, t, hardPodAffinityWeight, pod, labels, 1);
        }
        processTerms(c, existing.preferredAffinityTerms, pod, labels, 1);
        processTerms(c, existing.preferredAntiAffinityTerms, pod, labels, -1);
      }
      return toDeltas(c);
    });
    for (const [k, v, n] of deltas) scores.set(k, v, scores.get(k, v) + n);
  }
  return new AffinityPreScoreState(scores);
}

export function writePreScoreState(state: CycleState, s: AffinityPreScoreState): void {
  state.write(PRE_SCORE_KEY, s);
}

export function scoreNode(state: CycleState, nodeInfo: NodeInfo): number | Error {
  const s = state.read<AffinityPreScoreState>(PRE_SCORE_KEY);
  if (!s) return missingState(PRE_SCORE_KEY);
  if (s.topologyScore.byKey.size === 0) return 0;
  return s.topologyScore.sumFor(labelsOf(nodeInfo.node));
}

export function normalize(state: CycleState, scores: NodeScore[]): Result {
  const s = state.read<AffinityPreScoreState>(PRE_SCORE_KEY);
  if (!s) return errorStatus(missingState(PRE_SCORE_KEY));
  if (s.topologyScore.byKey.size === 0) return undefined;
  let max = 0;
  let min = 0;
  for (const { score } of scores) {
    if (score > max) max = score;
    if (score < min) min = score;
  }
  const diff = max - min;
  for (const ns of scores) ns.score = diff > 0 ? Math.trunc(MAX_NODE_SCORE * ((ns.score - min) / diff)) : 0;
  return undefined;
}
