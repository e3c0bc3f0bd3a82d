/**
 * ServiceAffinity (kube 1.20, legacy policy only). Filter: pods of one service land on nodes with
 * the same values of args.affinityLabels; values the pod's nodeSelector leaves open are taken
 * from the node of a pod already placed that carries the same labels. Score: fewer service pods
 * under the same value of each args.antiAffinityLabelsPreference label score higher.
 */
import type { LabelSelector } from '../../../api/selectors';
import type { KubeObject } from '../../../client/types';
import type { NodeInfo, PodInfo } from '../../framework/node-info';
import { errorStatus, unschedulable } from '../../framework/status';
import { MAX_NODE_SCORE, type CycleState, type FrameworkHandle, type Plugin, type PluginFactory, type PreFilterExtensions, type StateData } from '../../framework/types';
import { podServices, selectorFromSet, serviceSelector } from './default-selector';
import { isTerminating, labelsOf, missingState, namespaceOf } from './topology';

export const SERVICE_AFFINITY_NAME = 'ServiceAffinity';
const PRE_FILTER_KEY = `PreFilter${SERVICE_AFFINITY_NAME}`;
export const ERR_REASON_SERVICE_AFFINITY = "node(s) didn't match service affinity";

export interface ServiceAffinityArgs {
  affinityLabels: string[];
  antiAffinityLabelsPreference: string[];
}

class ServiceAffinityState implements StateData {
  constructor(
    /** pods in the pod's namespace carrying all of its labels */
    public matchingPods: KubeObject[],
    public services: KubeObject[],
  ) {}
  clone(): ServiceAffinityState {
    return new ServiceAffinityState([...this.matchingPods], [...this.services]);
  }
}

function readState(state: CycleState): ServiceAffinityState | Error {
  return state.read<ServiceAffinityState>(PRE_FILTER_KEY) ?? missingState(PRE_FILTER_KEY);
}

function hasKey(set: Record<string, string>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(set, key);
}

function nodeNameOf(pod: KubeObject): string {
  return ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
}

/** kube's NodeInfo.FilterOutPods: pods said to be on this node count only while the NodeInfo holds them */
function filterOutPods(nodeInfo: NodeInfo, pods: readonly KubeObject[]): KubeObject[] {
  if (!nodeInfo.node) return [...pods];
  const here = new Set(nodeInfo.pods.map((p) => p.pod.metadata?.uid));
  return pods.filter((p) => nodeNameOf(p) !== nodeInfo.name || here.has(p.metadata?.uid));
}

export function serviceAffinityArgs(raw: unknown): ServiceAffinityArgs {
  const given = (raw ?? {}) as Partial<ServiceAffinityArgs>;
  return { affinityLabels: [...(given.affinityLabels ?? [])], antiAffinityLabelsPreference: [...(given.antiAffinityLabelsPreference ?? [])] };
}

export const newServiceAffinity: PluginFactory = (rawArgs: unknown, handle: FrameworkHandle): Plugin => {
  const args = serviceAffinityArgs(rawArgs);
  const active = args.affinityLabels.length > 0;

  const extensions: PreFilterExtensions = {
    addPod(state, pod, podToAdd: PodInfo) {
      if (!active) return undefined;
      const s = readState(state);
      if (s instanceof Error) return errorStatus(s);
      if (namespaceOf(podToAdd.pod) !== namespaceOf(pod)) return undefined;
      if (selectorFromSet(labelsOf(pod)).matches(labelsOf(podToAdd.pod))) s.matchingPods.push(podToAdd.pod);
      return undefined;
    },
    removePod(state, _pod, podToRemove: PodInfo) {
      if (!active) return undefined;
      const s = readState(state);
      if (s instanceof Error) return errorStatus(s);
      const gone = podToRemove.pod;
      if (s.matchingPods.length === 0 || namespaceOf(gone) !== namespaceOf(s.matchingPods[0])) return undefined;
      const at = s.matchingPods.findIndex((p) => p.metadata?.name === gone.metadata?.name && namespaceOf(p) === namespaceOf(gone));
      if (at >= 0) s.matchingPods.splice(at, 1);
      return undefined;
    },
  };

  return {
    name: SERVICE_AFFINITY_NAME,
    preFilter(state, pod) {
      if (!active) return undefined;
      const selector = selectorFromSet(labelsOf(pod));
      const ns = namespaceOf(pod);
      const matching: KubeObject[] = [];
      for (const info of handle.snapshot().list()) {
        for (const p of info.pods) if (namespaceOf(p.pod) === ns && selector.matches(labelsOf(p.pod))) matching.push(p.pod);
      }
      state.write(PRE_FILTER_KEY, new ServiceAffinityState(matching, podServices(handle, pod)));
      return undefined;
    },
    preFilterExtensions: () => extensions,
    filter(state, pod, nodeInfo) {
      if (!active) return undefined;
      if (!nodeInfo.node) return errorStatus(new Error('node not found'));
      const s = readState(state);
      if (s instanceof Error) return errorStatus(s);
      const nodeSelector = ((pod.spec ?? {}) as { nodeSelector?: Record<string, string> }).nodeSelector ?? {};
      // the affinity labels the pod pins itself
      const wanted: Record<string, string> = {};
      for (const l of args.affinityLabels) if (hasKey(nodeSelector, l)) wanted[l] = nodeSelector[l];
      if (args.affinityLabels.length > Object.keys(wanted).length && s.services.length > 0) {
        const placed = filterOutPods(nodeInfo, s.matchingPods);
        if (placed.length > 0) {
          const other = handle.snapshot().get(nodeNameOf(placed[0]));
          if (!other?.node) return errorStatus(new Error('node not found'));
          const otherLabels = labelsOf(other.node);
          for (const l of args.affinityLabels) if (!hasKey(wanted, l) && hasKey(otherLabels, l)) wanted[l] = otherLabels[l];
        }
      }
      if (selectorFromSet(wanted).matches(labelsOf(nodeInfo.node))) return undefined;
      return unschedulable(ERR_REASON_SERVICE_AFFINITY);
    },
    score(_state, pod, nodeInfo) {
      if (!nodeInfo.node) return errorStatus(new Error('node not found'));
      const services = podServices(handle, pod);
      if (services.length === 0 || nodeInfo.pods.length === 0) return 0;
      const selector: LabelSelector = serviceSelector(services[0]);
      if (selector.isEmpty()) return 0;
      let n = 0;
      const ns = namespaceOf(pod);
      for (const p of nodeInfo.pods) if (namespaceOf(p.pod) === ns && !isTerminating(p.pod) && selector.matches(labelsOf(p.pod))) n++;
      return n;
    },
    normalizeScore(_state, _pod, scores) {
      const lister = handle.snapshot();
      const result = scores.map(() => 0);
      for (const label of args.antiAffinityLabelsPreference) {
        // each label works on the same raw counts; its share is added to the result (unlabeled nodes get none)
        let total = 0;
        const perValue = new Map<string, number>();
        const valueOfNode = new Map<string, string>();
        for (const { name, score } of scores) {
          total += score;
          const info = lister.get(name);
          if (!info) return errorStatus(new Error(`nodeinfo not found for node name "${name}"`));
          const labels = labelsOf(info.node);
          if (!hasKey(labels, label)) continue;
          valueOfNode.set(name, labels[label]);
          perValue.set(labels[label], (perValue.get(labels[label]) ?? 0) + score);
        }
        scores.forEach(({ name }, i) => {
          const value = valueOfNode.get(name);
          if (value === undefined) return;
          const f = total > 0 ? MAX_NODE_SCORE * ((total - perValue.get(value)!) / total) : MAX_NODE_SCORE;
          // each label has an equal share of the score
          result[i] += f / args.antiAffinityLabelsPreference.length;
        });
      }
      scores.forEach((ns, i) => (ns.score = Math.trunc(result[i])));
      return undefined;
    },
  };
};
