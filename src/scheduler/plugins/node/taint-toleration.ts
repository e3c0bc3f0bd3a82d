/**
 * TaintToleration (kube 1.20): the filter refuses a node with a NoSchedule or NoExecute taint the
 * pod does not tolerate (naming the first such taint); the score counts the node's
 * PreferNoSchedule taints the pod does not tolerate, and normalization reverses it so that fewer
 * such taints score higher.
 */
import { toleratesTaint, type Taint, type Toleration } from '../../../controllers/util/taints';
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { errorStatus, unresolvable, type Result, type Status } from '../../framework/status';
import { MAX_NODE_SCORE, type CycleState, type NodeScore, type PluginFactory, type StateData } from '../../framework/types';
import { defaultNormalizeScore } from './normalize';
import { tolerationsTolerate } from './node-unschedulable';

export const TAINT_TOLERATION = 'TaintToleration';
const PRE_SCORE_KEY = `PreScore${TAINT_TOLERATION}`;

const NO_TAINTS: readonly Taint[] = [];

/** the node's taints without allocating for a node that has none */
function taintsOf(node: KubeObject): readonly Taint[] {
  return (node.spec as { taints?: Taint[] } | undefined)?.taints ?? NO_TAINTS;
}

function tolerationsOf(pod: KubeObject): Toleration[] | undefined {
  return (pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations;
}

/** the reason kube prints for an untolerated taint */
export function untoleratedTaintReason(taint: Taint): string {
  return `node(s) had taint {${taint.key}: ${taint.value ?? ''}}, that the pod didn't tolerate`;
}

/** kube's FindMatchingUntoleratedTaint for NoSchedule and NoExecute taints: the first one not tolerated */
export function firstUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[] | undefined): Taint | undefined {
  for (let i = 0; i < taints.length; i++) {
    const t = taints[i];
    if (t.effect !== 'NoSchedule' && t.effect !== 'NoExecute') continue;
    if (!tolerationsTolerate(tolerations, t)) return t;
  }
  return undefined;
}

class PreScoreState implements StateData {
  constructor(readonly tolerations: readonly Toleration[]) {}
  clone(): StateData {
    return this;
  }
}

/** the pod's tolerations that can tolerate PreferNoSchedule taints (empty effect or PreferNoSchedule) */
function preferNoScheduleTolerations(pod: KubeObject): Toleration[] {
  return (tolerationsOf(pod) ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
}

function countIntolerable(taints: readonly Taint[], tolerations: readonly Toleration[]): number {
  let n = 0;
  for (let i = 0; i < taints.length; i++) {
    const t = taints[i];
    if (t.effect !== 'PreferNoSchedule') continue;
    let tolerated = false;
    for (let j = 0; j < tolerations.length && !tolerated; j++) tolerated = toleratesTaint(tolerations[j], t);
    if (!tolerated) n++;
  }
  return n;
}

export const newTaintToleration: PluginFactory = () => ({
  name: TAINT_TOLERATION,

  filter(_state, pod: KubeObject, nodeInfo: NodeInfo): Result {
    const node = nodeInfo?.node;
    if (!node) return errorStatus(new Error('invalid nodeInfo'));
    const taint = firstUntoleratedTaint(taintsOf(node), tolerationsOf(pod));
    return taint ? unresolvable(untoleratedTaintReason(taint)) : undefined;
  },

  preScore(state: CycleState, pod: KubeObject, nodes: readonly NodeInfo[]): Result {
    if (nodes.length === 0) return undefined;
    state.write(PRE_SCORE_KEY, new PreScoreState(preferNoScheduleTolerations(pod)));
    return undefined;
  },

  score(state: CycleState, _pod: KubeObject, nodeInfo: NodeInfo): number | Status {
    const node = nodeInfo.node;
    if (!node) return errorStatus(new Error(`getting node "${nodeInfo.name}" from Snapshot: node not found`));
    const s = state.read<PreScoreState>(PRE_SCORE_KEY);
    if (!s) return errorStatus(new Error(`failed to read "${PRE_SCORE_KEY}" from cycleState`));
    return countIntolerable(taintsOf(node), s.tolerations);
  },

  normalizeScore(_state, _pod, scores: NodeScore[]): Result {
    defaultNormalizeScore(MAX_NODE_SCORE, true, scores);
    return undefined;
  },
});
