/**
 * Whether a node passes a pod's nodeSelector and required node affinity (kube 1.20's
 * PodMatchesNodeSelectorAndAffinityTerms), compiled once per pod: PodTopologySpread counts only
 * such nodes. The matching itself is the NodeAffinity plugin's.
 */
import type { KubeObject } from '../../../client/types';
import { RequiredNodeSelector } from '../node/node-selector';

export type NodeMatcher = (node: KubeObject) => boolean;

export function compileNodeMatcher(pod: KubeObject): NodeMatcher {
  const required = RequiredNodeSelector.of(pod);
  return (node) => required.matches(node);
}
