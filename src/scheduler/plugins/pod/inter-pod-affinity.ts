/**
 * InterPodAffinity (kube 1.20): required pod affinity and anti-affinity, of the incoming pod and of
 * the pods already placed, as a filter; preferred terms (and existing pods' required affinity,
 * weighted by args.hardPodAffinityWeight) as a score.
 */
import type { KubeObject } from '../../../client/types';
import { errorStatus, unresolvable } from '../../framework/status';
import type { FrameworkHandle, Plugin, PluginFactory, PreFilterExtensions } from '../../framework/types';
import { INTER_POD_AFFINITY_NAME, computePreFilterState, filterNode, preFilterStateOrError, writePreFilterState } from './inter-pod-affinity-filter';
import { computePreScoreState, normalize, scoreNode, writePreScoreState } from './inter-pod-affinity-score';
import { podParseError } from './pod-parse';

export { INTER_POD_AFFINITY_NAME } from './inter-pod-affinity-filter';

export interface InterPodAffinityArgs {
  hardPodAffinityWeight: number;
}

const MIN_HARD_POD_AFFINITY_WEIGHT = 0;
const MAX_HARD_POD_AFFINITY_WEIGHT = 100;

/** v1beta1 defaulting (hardPodAffinityWeight 1) and ValidateInterPodAffinityArgs */
export function interPodAffinityArgs(raw: unknown): InterPodAffinityArgs {
  const given = (raw ?? {}) as { hardPodAffinityWeight?: unknown };
  const w = given.hardPodAffinityWeight ?? 1;
  if (typeof w !== 'number' || !Number.isInteger(w)) throw new Error(`hardPodAffinityWeight: Invalid value: ${JSON.stringify(w)}: must be an integer`);
  if (w < MIN_HARD_POD_AFFINITY_WEIGHT || w > MAX_HARD_POD_AFFINITY_WEIGHT) {
    throw new Error(`hardPodAffinityWeight: Invalid value: ${w}: not in valid range [${MIN_HARD_POD_AFFINITY_WEIGHT}-${MAX_HARD_POD_AFFINITY_WEIGHT}]`);
  }
  return { hardPodAffinityWeight: w };
}

export const newInterPodAffinity: PluginFactory = (rawArgs: unknown, handle: FrameworkHandle): Plugin => {
  const args = interPodAffinityArgs(rawArgs);
  const extensions: PreFilterExtensions = {
    addPod(state, _pod, podToAdd, nodeInfo) {
      const s = preFilterStateOrError(state);
      if (s instanceof Error) return errorStatus(s);
      s.updateWithPod(podToAdd, nodeInfo.node, 1);
      return undefined;
    },
    removePod(state, _pod, podToRemove, nodeInfo) {
      const s = preFilterStateOrError(state);
      if (s instanceof Error) return errorStatus(s);
      s.updateWithPod(podToRemove, nodeInfo.node, -1);
      return undefined;
    },
  };
  return {
    name: INTER_POD_AFFINITY_NAME,
    preFilter(state, pod: KubeObject) {
      const parseError = podParseError(pod);
      if (parseError !== undefined) return unresolvable(`parsing pod: ${parseError}`);
      writePreFilterState(state, computePreFilterState(pod, handle.snapshot()));
      return undefined;
    },
    preFilterExtensions: () => extensions,
    filter: (state, _pod, nodeInfo) => filterNode(state, nodeInfo),
    preScore(state, pod, nodes) {
      if (nodes.length === 0) return undefined;
      const parseError = podParseError(pod);
      if (parseError !== undefined) return errorStatus(new Error(`parsing pod: ${parseError}`));
      writePreScoreState(state, computePreScoreState(pod, handle.snapshot(), args.hardPodAffinityWeight));
      return undefined;
    },
    score(state, _pod, nodeInfo) {
      const score = scoreNode(state, nodeInfo);
      return score instanceof Error ? errorStatus(score) : score;
    },
    normalizeScore: (state, _pod, scores) => normalize(state, scores),
  };
};
