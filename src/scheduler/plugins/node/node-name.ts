/** NodeName (kube 1.20): a pod naming a node in spec.nodeName fits only that node. */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { errorStatus, unresolvable, type Result } from '../../framework/status';
import type { PluginFactory } from '../../framework/types';
import { NODE_NOT_FOUND } from './plugin-args';

export const NODE_NAME = 'NodeName';
export const ERR_REASON_NODE_NAME = "node(s) didn't match the requested hostname";

/** kube's nodename.Fits */
export function fitsNodeName(pod: KubeObject, nodeInfo: NodeInfo): boolean {
  const wanted = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  return !wanted || wanted === nodeInfo.node?.metadata?.name;
}

export const newNodeName: PluginFactory = () => ({
  name: NODE_NAME,
  filter(_state, pod, nodeInfo): Result {
    if (!nodeInfo.node) return errorStatus(new Error(NODE_NOT_FOUND));
    return fitsNodeName(pod, nodeInfo) ? undefined : unresolvable(ERR_REASON_NODE_NAME);
  },
});
