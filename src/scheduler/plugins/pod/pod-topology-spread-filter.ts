/**
 * PodTopologySpread's filtering half (kube 1.20's podtopologyspread/filtering.go). PreFilter counts
 * the matching pods per topology pair over the nodes that pass the pod's node selector and
 * affinity and carry every topology key, and keeps per key the two smallest counts (the
 * "critical paths"); Filter allows a node when its pair's count, plus one if the pod matches
 * itself, exceeds the global minimum by at most maxSkew.
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { errorStatus, unresolvable, unschedulable, type Result } from '../../framework/status';
import type { CycleState, NodeInfoLister, StateData } from '../../framework/types';
import { compileNodeMatcher } from './node-match';
import { hasAllTopologyKeys, type SpreadConstraint } from './spread-constraints';
import { countPodsMatching } from './pod-matching';
import { TopologyCounts, labelsOf, missingState, namespaceOf } from './topology';

export const POD_TOPOLOGY_SPREAD_NAME = 'PodTopologySpread';
const PRE_FILTER_KEY = `PreFilter${POD_TOPOLOGY_SPREAD_NAME}`;

export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

const MAX_INT32 = 2147483647;

interface Path {
  value: string;
  count: number;
}

/** the two topology values with the smallest counts; paths[0] always holds the minimum */
export class CriticalPaths {
  paths: [Path, Path] = [
    { value: '', count: MAX_INT32 },
    { value: '', count: MAX_INT32 },
  ];

  get min(): number {
    return this.paths[0].count;
  }

  update(value: string, count: number): void {
    const p = this.paths;
    const at = value === p[0].value ? p[0] : value === p[1].value ? p[1] : undefined;
    if (at) {
      at.count = count;
      if (p[0].count > p[1].count) this.paths = [p[1], p[0]];
    } else if (count < p[0].count) {
      this.paths = [{ value, count }, p[0]];
    } else if (count < p[1].count) {
      p[1] = { value, count };
    }
  }

  clone(): CriticalPaths {
    const c = new CriticalPaths();
    c.paths = [{ ...this.paths[0] }, { ...this.paths[1] }];
    return c;
  }
}

export class SpreadPreFilterState implements StateData {
  constructor(
    readonly constraints: SpreadConstraint[],
    readonly counts = new TopologyCounts(),
    readonly criticalPaths = new Map<string, CriticalPaths>(),
  ) {}

  clone(): SpreadPreFilterState {
    const paths = new Map<string, CriticalPaths>();
    for (const [k, p] of this.criticalPaths) paths.set(k, p.clone());
    return new SpreadPreFilterState(this.constraints, this.counts.clone(), paths);
  }

  /** a pod added to (+1) or removed from (-1) a node in a preemption what-if */
  updateWithPod(changed: KubeObject, incoming: KubeObject, node: KubeObject | undefined, delta: number): void {
    if (!node || namespaceOf(changed) !== namespaceOf(incoming)) return;
    const labels = labelsOf(node);
    if (!hasAllTopologyKeys(labels, this.constraints)) return;
    const podLabels = labelsOf(changed);
    for (const c of this.constraints) {
      if (!c.selector.matches(podLabels)) continue;
      const v = labels[c.topologyKey];
      const n = this.counts.get(c.topologyKey, v) + delta;
      this.counts.set(c.topologyKey, v, n);
      this.criticalPaths.get(c.topologyKey)?.update(v, n);
    }
  }
}

export function computePreFilterState(pod: KubeObject, constraints: SpreadConstraint[], lister: NodeInfoLister): SpreadPreFilterState {
  const s = new SpreadPreFilterState(constraints);
  if (constraints.length === 0) return s;
  const nodes = lister.list();
  const fits = compileNodeMatcher(pod);
  // the pairs of eligible nodes start at zero
  for (const info of nodes) {
    if (!info.node || !fits(info.node)) continue;
    const labels = labelsOf(info.node);
    if (!hasAllTopologyKeys(labels, constraints)) continue;
    for (const c of constraints) s.counts.set(c.topologyKey, labels[c.topologyKey], 0);
  }
  // then every node in such a pair adds its matching pods (as kube, without asking the node again)
  const ns = namespaceOf(pod);
  for (const info of nodes) {
    if (!info.node) continue;
    const labels = labelsOf(info.node);
    for (const c of constraints) {
      const v = labels[c.topologyKey];
      if (v === undefined || !s.counts.has(c.topologyKey, v)) continue;
      s.counts.set(c.topologyKey, v, s.counts.get(c.topologyKey, v) + countPodsMatching(info, c.selector, ns));
    }
  }
  for (const c of constraints) s.criticalPaths.set(c.topologyKey, new CriticalPaths());
  for (const [key, values] of s.counts.byKey) {
    const paths = s.criticalPaths.get(key)!;
    for (const [value, n] of values) paths.update(value, n);
  }
  return s;
}

export function writePreFilterState(state: CycleState, s: SpreadPreFilterState): void {
  state.write(PRE_FILTER_KEY, s);
}

export function preFilterStateOrError(state: CycleState): SpreadPreFilterState | Error {
  return state.read<SpreadPreFilterState>(PRE_FILTER_KEY) ?? missingState(PRE_FILTER_KEY);
}

export function filterNode(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result {
  if (!nodeInfo.node) return errorStatus(new Error('node not found'));
  const s = preFilterStateOrError(state);
  if (s instanceof Error) return errorStatus(s);
  if (s.constraints.length === 0) return undefined;
  const labels = labelsOf(nodeInfo.node);
  const podLabels = labelsOf(pod);
  for (const c of s.constraints) {
    const v = labels[c.topologyKey];
    if (v === undefined) return unresolvable(ERR_REASON_NODE_LABEL_NOT_MATCH);
    const paths = s.criticalPaths.get(c.topologyKey);
    if (!paths) continue;
    const self = c.selector.matches(podLabels) ? 1 : 0;
    const skew = s.counts.get(c.topologyKey, v) + self - paths.min;
    if (skew > c.maxSkew) return unschedulable(ERR_REASON_CONSTRAINTS_NOT_MATCH);
  }
  return undefined;
}
