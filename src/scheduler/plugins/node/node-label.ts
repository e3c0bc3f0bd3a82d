/**
 * NodeLabel (kube 1.20): the filter requires every presentLabels key on the node and no
 * absentLabels key; the score gives 100 for each presentLabelsPreference key the node has and
 * each absentLabelsPreference key it lacks, averaged over both lists.
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { errorStatus, unresolvable, type Result, type Status } from '../../framework/status';
import { MAX_NODE_SCORE, type PluginFactory } from '../../framework/types';
import { argsObject, NODE_NOT_FOUND, stringList } from './plugin-args';

export const NODE_LABEL = 'NodeLabel';
export const ERR_REASON_PRESENCE_VIOLATED = "node(s) didn't have the requested labels";

/** Go's %+v of a string slice: `[a b]` */
function goList(list: readonly string[]): string {
  return `[${list.join(' ')}]`;
}

/** kube's validateNoConflict */
function validateNoConflict(present: readonly string[], absent: readonly string[]): void {
  const set = new Set(present);
  for (const l of absent) {
    if (set.has(l)) {
      throw new Error(`detecting at least one label (e.g., ${JSON.stringify(l)}) that exist in both the present(${goList(present)}) and absent(${goList(absent)}) label list`);
    }
  }
}

function hasLabel(node: KubeObject, key: string): boolean {
  const labels = node.metadata?.labels;
  return !!labels && Object.prototype.hasOwnProperty.call(labels, key);
}

export const newNodeLabel: PluginFactory = (rawArgs) => {
  const kind = 'NodeLabelArgs';
  const args = argsObject(rawArgs, kind);
  const present = stringList(args, 'presentLabels', kind);
  const absent = stringList(args, 'absentLabels', kind);
  const presentPref = stringList(args, 'presentLabelsPreference', kind);
  const absentPref = stringList(args, 'absentLabelsPreference', kind);
  validateNoConflict(present, absent);
  validateNoConflict(presentPref, absentPref);

  return {
    name: NODE_LABEL,

    filter(_state, _pod, nodeInfo: NodeInfo): Result {
      const node = nodeInfo.node;
      if (!node) return errorStatus(new Error(NODE_NOT_FOUND));
      for (const l of present) if (!hasLabel(node, l)) return unresolvable(ERR_REASON_PRESENCE_VIOLATED);
      for (const l of absent) if (hasLabel(node, l)) return unresolvable(ERR_REASON_PRESENCE_VIOLATED);
      return undefined;
    },

    score(_state, _pod, nodeInfo: NodeInfo): number | Status {
      const node = nodeInfo.node;
      if (!node) return errorStatus(new Error(`getting node "${nodeInfo.name}" from Snapshot: node not found`));
      const count = presentPref.length + absentPref.length;
      // kube divides by the count unguarded; with no preferences there is nothing to score
      if (count === 0) return 0;
      let score = 0;
      for (const l of presentPref) if (hasLabel(node, l)) score += MAX_NODE_SCORE;
      for (const l of absentPref) if (!hasLabel(node, l)) score += MAX_NODE_SCORE;
      return Math.trunc(score / count);
    },
  };
};
