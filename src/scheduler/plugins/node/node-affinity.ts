/**
 * NodeAffinity (kube 1.20): the filter requires spec.nodeSelector and the required node affinity
 * to match; the score sums the weights of the preferred terms whose matchExpressions match the
 * node's labels (matchFields are not scored in 1.20), normalized so the best node gets 100.
 */
import type { LabelRequirement } from '../../../api/selectors/label-requirement';
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { errorStatus, unresolvable, type Result, type Status } from '../../framework/status';
import { MAX_NODE_SCORE, type NodeScore, type PluginFactory } from '../../framework/types';
import { labelRequirementsMatch, nodeAffinityOf, nodeSelectorRequirementsAsSelector, RequiredNodeSelector } from './node-selector';
import { defaultNormalizeScore } from './normalize';
import { NODE_NOT_FOUND } from './plugin-args';

export const NODE_AFFINITY = 'NodeAffinity';
export const ERR_REASON_NODE_AFFINITY = "node(s) didn't match node selector";

interface WeightedTerm {
  weight: number;
  requirements: readonly LabelRequirement[];
}

/** the pod's preferred terms, compiled: weight-0 and empty terms dropped, or the first invalid term's error */
type Preferred = WeightedTerm[] | { error: string };

const preferredCache = new WeakMap<KubeObject, Preferred>();

function preferredTerms(pod: KubeObject): Preferred {
  let p = preferredCache.get(pod);
  if (p) return p;
  const terms: WeightedTerm[] = [];
  p = terms;
  for (const term of nodeAffinityOf(pod)?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    if (!term.weight) continue;
    const reqs = nodeSelectorRequirementsAsSelector(term.preference?.matchExpressions);
    if (reqs === undefined) continue; // an empty preference matches no node
    if ('error' in reqs) {
      p = reqs;
      break;
    }
    terms.push({ weight: term.weight, requirements: reqs });
  }
  preferredCache.set(pod, p);
  return p;
}

export const newNodeAffinity: PluginFactory = () => ({
  name: NODE_AFFINITY,

  filter(_state, pod: KubeObject, nodeInfo: NodeInfo): Result {
    const node = nodeInfo.node;
    if (!node) return errorStatus(new Error(NODE_NOT_FOUND));
    return RequiredNodeSelector.of(pod).matches(node) ? undefined : unresolvable(ERR_REASON_NODE_AFFINITY);
  },

  score(_state, pod: KubeObject, nodeInfo: NodeInfo): number | Status {
    const node = nodeInfo.node;
    if (!node) return errorStatus(new Error(`getting node "${nodeInfo.name}" from Snapshot: node not found`));
    const terms = preferredTerms(pod);
    if ('error' in terms) return errorStatus(new Error(terms.error));
    const labels = node.metadata?.labels;
    let count = 0;
    for (let i = 0; i < terms.length; i++) if (labelRequirementsMatch(terms[i].requirements, labels)) count += terms[i].weight;
    return count;
  },

  normalizeScore(_state, _pod, scores: NodeScore[]): Result {
    defaultNormalizeScore(MAX_NODE_SCORE, false, scores);
    return undefined;
  },
});
