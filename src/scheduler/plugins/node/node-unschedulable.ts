/**
 * NodeUnschedulable (kube 1.20): a cordoned node (spec.unschedulable) takes no pod, unless the
 * pod tolerates the `node.kubernetes.io/unschedulable:NoSchedule` taint.
 */
import { toleratesTaint, type Taint, type Toleration } from '../../../controllers/util/taints';
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { unresolvable, type Result } from '../../framework/status';
import type { Plugin, PluginFactory } from '../../framework/types';

export const NODE_UNSCHEDULABLE = 'NodeUnschedulable';
export const ERR_REASON_UNSCHEDULABLE = 'node(s) were unschedulable';
export const ERR_REASON_UNKNOWN_CONDITION = 'node(s) had unknown conditions';

const unschedulableTaint: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

export function tolerationsTolerate(tolerations: readonly Toleration[] | undefined, taint: Taint): boolean {
  if (!tolerations) return false;
  for (let i = 0; i < tolerations.length; i++) if (toleratesTaint(tolerations[i], taint)) return true;
  return false;
}

export const newNodeUnschedulable: PluginFactory = () => {
  const plugin: Plugin = {
    name: NODE_UNSCHEDULABLE,
    filter(_state, pod: KubeObject, nodeInfo: NodeInfo): Result {
      const node = nodeInfo?.node;
      if (!node) return unresolvable(ERR_REASON_UNKNOWN_CONDITION);
      if (!(node.spec as { unschedulable?: boolean } | undefined)?.unschedulable) return undefined;
      const tolerations = (pod.spec as { tolerations?: Toleration[] } | undefined)?.tolerations;
      return tolerationsTolerate(tolerations, unschedulableTaint) ? undefined : unresolvable(ERR_REASON_UNSCHEDULABLE);
    },
  };
  return plugin;
};
