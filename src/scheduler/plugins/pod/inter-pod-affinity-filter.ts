/**
 * InterPodAffinity's filtering half (kube 1.20's interpodaffinity/filtering.go): PreFilter counts,
 * per topology pair, the existing pods' required anti-affinity terms that match the incoming pod
 * and the existing pods matching the incoming pod's required (anti-)affinity terms; Filter then
 * looks up only the pairs of the node at hand.
 */
import type { KubeObject } from '../../../client/types';
import { PodInfo, type AffinityTerm, type NodeInfo } from '../../framework/node-info';
import { errorStatus, unresolvable, unschedulable, type Result } from '../../framework/status';
import type { CycleState, NodeInfoLister, StateData } from '../../framework/types';
import { addDeltas, countPodsMatchingAll, memoForNode, podSignature, termListKey, termMatcher, toDeltas } from './pod-matching';
import { TopologyCounts, labelsOf, missingState } from './topology';

export const INTER_POD_AFFINITY_NAME = 'InterPodAffinity';
const PRE_FILTER_KEY = `PreFilter${INTER_POD_AFFINITY_NAME}`;

export const ERR_REASON_EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules";
export const ERR_REASON_AFFINITY_NOT_MATCH = "node(s) didn't match pod affinity/anti-affinity";
export const ERR_REASON_AFFINITY_RULES = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES = "node(s) didn't match pod anti-affinity rules";

export class AffinityPreFilterState implements StateData {
  constructor(
    readonly podInfo: PodInfo,
    /** pairs where an existing pod's required anti-affinity term matches the incoming pod */
    readonly existingAntiAffinity = new TopologyCounts(),
    /** pairs holding pods that match all the incoming pod's required affinity terms */
    readonly affinity = new TopologyCounts(),
    /** pairs holding pods that match one of the incoming pod's required anti-affinity terms */
    readonly antiAffinity = new TopologyCounts(),
  ) {}

  clone(): AffinityPreFilterState {
    return new AffinityPreFilterState(this.podInfo, this.existingAntiAffinity.clone(), this.affinity.clone(), this.antiAffinity.clone());
  }

  /** a pod added to (multiplier 1) or removed from (-1) a node, as preemption tries victims */
  updateWithPod(changed: PodInfo, node: KubeObject | undefined, multiplier: number): void {
    if (!node) return;
    addAntiAffinityTerms(this.existingAntiAffinity, this.podInfo.pod, node, changed.requiredAntiAffinityTerms, multiplier);
    addAffinityTerms(this.affinity, changed.pod, node, this.podInfo.requiredAffinityTerms, multiplier);
    addAntiAffinityTerms(this.antiAffinity, changed.pod, node, this.podInfo.requiredAntiAffinityTerms, multiplier);
  }
}

/** kube's podMatchesAllAffinityTerms: false for no terms */
export function matchesAllTerms(pod: KubeObject, terms: readonly AffinityTerm[]): boolean {
  if (terms.length === 0) return false;
  for (const t of terms) if (!termMatcher(t)(pod)) return false;
  return true;
}

/** every term that selects `target` counts once at the pair of `node` */
function addAntiAffinityTerms(counts: TopologyCounts, target: KubeObject, node: KubeObject, terms: readonly AffinityTerm[], n: number): void {
  const labels = labelsOf(node);
  for (const t of terms) {
    if (!termMatcher(t)(target)) continue;
    const v = labels[t.topologyKey];
    if (v !== undefined) counts.add(t.topologyKey, v, n);
  }
}

/** when `target` matches all the terms, each term counts once at the pair of `node` */
function addAffinityTerms(counts: TopologyCounts, target: KubeObject, node: KubeObject, terms: readonly AffinityTerm[], n: number): void {
  if (!matchesAllTerms(target, terms)) return;
  const labels = labelsOf(node);
  for (const t of terms) {
    const v = labels[t.topologyKey];
    if (v !== undefined) counts.add(t.topologyKey, v, n);
  }
}

export function computePreFilterState(pod: KubeObject, lister: NodeInfoLister): AffinityPreFilterState {
  const s = new AffinityPreFilterState(new PodInfo(pod));
  // what a node's anti-affinity terms say depends only on the pod's namespace and labels
  const memoKey = `antiAffinityOf\x00${podSignature(pod)}`;
  for (const info of lister.havePodsWithRequiredAntiAffinityList()) {
    const node = info.node;
    if (!node) continue;
    const deltas = memoForNode(info, memoKey, () => {
      const c = new TopologyCounts();
      for (const existing of info.podsWithRequiredAntiAffinity) addAntiAffinityTerms(c, pod, node, existing.requiredAntiAffinityTerms, 1);
      return toDeltas(c);
    });
    addDeltas(s.existingAntiAffinity, deltas);
  }
  const { requiredAffinityTerms, requiredAntiAffinityTerms } = s.podInfo;
  if (requiredAffinityTerms.length === 0 && requiredAntiAffinityTerms.length === 0) return s;
  // each matching pod adds one per term: count the node's matching pods once (remembered per node)
  const affinityKey = termListKey(requiredAffinityTerms);
  const antiKeys = requiredAntiAffinityTerms.map((t) => termListKey([t]));
  for (const info of lister.list()) {
    if (!info.node) continue;
    const labels = labelsOf(info.node);
    const n = countPodsMatchingAll(info, requiredAffinityTerms, affinityKey);
    if (n > 0) {
      for (const t of requiredAffinityTerms) {
        const v = labels[t.topologyKey];
        if (v !== undefined) s.affinity.add(t.topologyKey, v, n);
      }
    }
    requiredAntiAffinityTerms.forEach((t, i) => {
      const v = labels[t.topologyKey];
      if (v === undefined) return;
      const m = countPodsMatchingAll(info, [t], antiKeys[i]);
      if (m > 0) s.antiAffinity.add(t.topologyKey, v, m);
    });
  }
  return s;
}

export function writePreFilterState(state: CycleState, s: AffinityPreFilterState): void {
  state.write(PRE_FILTER_KEY, s);
}

export function readPreFilterState(state: CycleState): AffinityPreFilterState | undefined {
  return state.read<AffinityPreFilterState>(PRE_FILTER_KEY);
}

function satisfiesPodAffinity(s: AffinityPreFilterState, labels: Record<string, string>): boolean {
  const terms = s.podInfo.requiredAffinityTerms;
  let podsExist = true;
  for (const t of terms) {
    const v = labels[t.topologyKey];
    // every topology key must be on the node
    if (v === undefined) return false;
    if (s.affinity.get(t.topologyKey, v) <= 0) podsExist = false;
  }
  if (podsExist) return true;
  // the first of a group of pods with affinity to each other: nothing matches anywhere yet, and
  // the pod matches its own terms, so it may go anywhere its topology keys exist
  return s.affinity.isEmpty() && matchesAllTerms(s.podInfo.pod, terms);
}

function satisfiesPodAntiAffinity(s: AffinityPreFilterState, labels: Record<string, string>): boolean {
  if (s.antiAffinity.isEmpty()) return true;
  for (const t of s.podInfo.requiredAntiAffinityTerms) {
    const v = labels[t.topologyKey];
    if (v !== undefined && s.antiAffinity.get(t.topologyKey, v) > 0) return false;
  }
  return true;
}

export function filterNode(state: CycleState, nodeInfo: NodeInfo): Result {
  if (!nodeInfo.node) return errorStatus(new Error('node not found'));
  const s = readPreFilterState(state);
  if (!s) return errorStatus(missingState(PRE_FILTER_KEY));
  const labels = labelsOf(nodeInfo.node);
  if (!satisfiesPodAffinity(s, labels)) return unresolvable(ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_AFFINITY_RULES);
  if (!satisfiesPodAntiAffinity(s, labels)) return unschedulable(ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_ANTI_AFFINITY_RULES);
  if (s.existingAntiAffinity.anyPositiveFor(labels)) return unschedulable(ERR_REASON_AFFINITY_NOT_MATCH, ERR_REASON_EXISTING_ANTI_AFFINITY);
  return undefined;
}

export function preFilterStateOrError(state: CycleState): AffinityPreFilterState | Error {
  return readPreFilterState(state) ?? missingState(PRE_FILTER_KEY);
}
