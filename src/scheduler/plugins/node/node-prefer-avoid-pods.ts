/**
 * NodePreferAvoidPods (kube 1.20): a node's `scheduler.alpha.kubernetes.io/preferAvoidPods`
 * annotation names controllers whose pods should go elsewhere. A pod controlled by a named
 * ReplicationController or ReplicaSet scores 0 there; every other case scores 100 (including an
 * annotation that does not parse).
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { errorStatus, type Status } from '../../framework/status';
import { MAX_NODE_SCORE, type PluginFactory } from '../../framework/types';

export const NODE_PREFER_AVOID_PODS = 'NodePreferAvoidPods';
export const PREFER_AVOID_PODS_ANNOTATION = 'scheduler.alpha.kubernetes.io/preferAvoidPods';

interface AvoidPods {
  preferAvoidPods?: Array<{ podSignature?: { podController?: { kind?: string; uid?: string } } }>;
}

/** the annotation parsed once per Node object; undefined when absent or malformed */
const parsed = new WeakMap<KubeObject, AvoidPods | undefined>();

function avoidPodsOf(node: KubeObject): AvoidPods | undefined {
  if (parsed.has(node)) return parsed.get(node);
  const raw = node.metadata?.annotations?.[PREFER_AVOID_PODS_ANNOTATION];
  let value: AvoidPods | undefined;
  if (raw) {
    try {
      const v = JSON.parse(raw) as unknown;
      value = v && typeof v === 'object' ? (v as AvoidPods) : undefined;
    } catch {
      value = undefined;
    }
  }
  parsed.set(node, value);
  return value;
}

/** metav1.GetControllerOf */
function controllerOf(pod: KubeObject): { kind: string; uid: string } | undefined {
  for (const ref of pod.metadata?.ownerReferences ?? []) if (ref.controller) return ref;
  return undefined;
}

export const newNodePreferAvoidPods: PluginFactory = () => ({
  name: NODE_PREFER_AVOID_PODS,
  score(_state, pod: KubeObject, nodeInfo: NodeInfo): number | Status {
    const node = nodeInfo.node;
    if (!node) return errorStatus(new Error('node not found'));
    const ref = controllerOf(pod);
    if (!ref || (ref.kind !== 'ReplicationController' && ref.kind !== 'ReplicaSet')) return MAX_NODE_SCORE;
    const avoids = avoidPodsOf(node)?.preferAvoidPods;
    if (!Array.isArray(avoids)) return MAX_NODE_SCORE;
    for (const a of avoids) {
      const c = a?.podSignature?.podController;
      if (c && c.kind === ref.kind && c.uid === ref.uid) return 0;
    }
    return MAX_NODE_SCORE;
  },
});
