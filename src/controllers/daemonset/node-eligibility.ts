/**
 * Which nodes a DaemonSet's pod belongs on (kube 1.20's nodeShouldRunDaemonPod and the helpers of
 * pkg/controller/daemon/util): the node's name, the template's nodeSelector and required node
 * affinity must fit; taints with effect NoSchedule or NoExecute must be tolerated, counting the
 * tolerations every daemon pod gets. A pod whose node only gained an untolerated NoSchedule
 * taint keeps running; an untolerated NoExecute taint evicts it.
 */
import type { KubeObject } from '../../client/types';
import { taintsOf, toleratesTaint, type Taint, type Toleration } from '../util/taints';

export type { Taint, Toleration };

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

interface SelectorTerm {
  matchExpressions?: Requirement[];
  matchFields?: Requirement[];
}

export interface DaemonPodSpec {
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  hostNetwork?: boolean;
  tolerations?: Toleration[];
  affinity?: {
    nodeAffinity?: {
      requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: SelectorTerm[] };
      [k: string]: unknown;
    };
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** util.AddOrUpdateDaemonPodTolerations: what every daemon pod tolerates */
export function defaultDaemonTolerations(hostNetwork: boolean): Toleration[] {
  const t: Toleration[] = [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
    { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
    { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
  ];
  if (hostNetwork) t.push({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
  return t;
}

/** v1helper.AddOrUpdateTolerationInPodSpec for each default: a toleration of the same key and effect is replaced */
export function withDaemonTolerations(spec: DaemonPodSpec): DaemonPodSpec {
  const tolerations = [...(spec.tolerations ?? [])];
  for (const d of defaultDaemonTolerations(!!spec.hostNetwork)) {
    const i = tolerations.findIndex((t) => (t.key ?? '') === d.key && (t.effect ?? '') === d.effect);
    if (i >= 0) tolerations[i] = d;
    else tolerations.push(d);
  }
  return { ...spec, tolerations };
}

function requirementMatches(r: Requirement, value: string | undefined): boolean {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1) return false;
      const a = Number.parseInt(value, 10);
      const b = Number.parseInt(values[0]!, 10);
      if (Number.isNaN(a) || Number.isNaN(b)) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** a term matches when it has a requirement and all of them hold; fields are only metadata.name */
function termMatches(term: SelectorTerm, node: KubeObject): boolean {
  const exprs = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (exprs.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  if (!exprs.every((r) => requirementMatches(r, Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined))) return false;
  return fields.every((r) => r.key === 'metadata.name' && requirementMatches(r, node.metadata?.name));
}

/** pluginhelper.PodMatchesNodeSelectorAndAffinityTerms */
export function fitsNodeAffinity(spec: DaemonPodSpec, node: KubeObject): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (labels[k] !== v) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((term) => termMatches(term, node));
}

/** taints the spec does not tolerate, among those with the given effects */
export function untoleratedTaints(spec: DaemonPodSpec, node: KubeObject, effects: readonly string[]): Taint[] {
  const tolerations = spec.tolerations ?? [];
  return taintsOf(node).filter((taint) => effects.includes(taint.effect) && !tolerations.some((t) => toleratesTaint(t, taint)));
}

export interface Eligibility {
  /** a daemon pod should be created on the node */
  shouldRun: boolean;
  /** a daemon pod already there may stay */
  shouldContinueRunning: boolean;
}

/** nodeShouldRunDaemonPod (kube 1.20) for the DaemonSet's template spec */
export function nodeShouldRunDaemonPod(node: KubeObject, ds: KubeObject): Eligibility {
  const template = ((ds.spec ?? {}) as { template?: { spec?: DaemonPodSpec } }).template;
  const spec = withDaemonTolerations(template?.spec ?? {});
  const no = { shouldRun: false, shouldContinueRunning: false };
  if (spec.nodeName && spec.nodeName !== node.metadata?.name) return no;
  if (!fitsNodeAffinity(spec, node)) return no;
  if (untoleratedTaints(spec, node, ['NoSchedule', 'NoExecute']).length > 0) {
    // only NoExecute evicts what already runs there
    return { shouldRun: false, shouldContinueRunning: untoleratedTaints(spec, node, ['NoExecute']).length === 0 };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}

/** util.ReplaceDaemonSetPodNodeNameNodeAffinity: the only required term is `metadata.name In [node]` */
export function withNodeNameAffinity(spec: DaemonPodSpec, nodeName: string): DaemonPodSpec {
  const affinity = structuredClone(spec.affinity ?? {});
  affinity.nodeAffinity = {
    ...(affinity.nodeAffinity ?? {}),
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] }],
    },
  };
  return { ...spec, affinity };
}

/** util.GetTargetNodeName: the pod's node, or the node its metadata.name affinity names */
export function targetNodeName(pod: KubeObject): string | undefined {
  const spec = (pod.spec ?? {}) as DaemonPodSpec;
  if (spec.nodeName) return spec.nodeName;
  for (const term of spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const f of term.matchFields ?? []) {
      if (f.key === 'metadata.name' && f.operator === 'In' && f.values?.length === 1) return f.values[0];
    }
  }
  return undefined;
}
