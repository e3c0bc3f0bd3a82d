/**
 * The decisions of kube 1.20's DaemonSet controller, as pure functions of the DaemonSet, the
 * nodes and the pods it owns grouped by node: which nodes need a pod and which pods go (manage),
 * which old pods a rolling update replaces now, and the status.
 */
import type { KubeObject } from '../../client/types';
import { isPodAvailable, isPodReady } from '../util/pods';
import { nodeShouldRunDaemonPod, targetNodeName } from './node-eligibility';

export const REVISION_LABEL = 'controller-revision-hash';
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

interface DaemonSpec {
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string } };
}

export function daemonSpec(ds: KubeObject): DaemonSpec {
  return (ds.spec ?? {}) as DaemonSpec;
}

/** util.GetTemplateGeneration: the annotation, when it is a number */
export function templateGeneration(ds: KubeObject): string | undefined {
  const v = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return v !== undefined && /^\d+$/.test(v) ? v : undefined;
}

/** util.IsPodUpdated: the pod carries the current hash or the current template generation */
export function isPodUpdated(pod: KubeObject, hash: string, generation: string | undefined): boolean {
  const labels = pod.metadata?.labels ?? {};
  return (generation !== undefined && labels[TEMPLATE_GENERATION_LABEL] === generation) || (hash !== '' && labels[REVISION_LABEL] === hash);
}

function phaseOf(pod: KubeObject): string {
  return ((pod.status ?? {}) as { phase?: string }).phase ?? '';
}

function createdAt(pod: KubeObject): number {
  const t = Date.parse(pod.metadata?.creationTimestamp ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/** podByCreationTimestampAndPhase: running before others among equals, the oldest first */
export function oldestFirst(pods: readonly KubeObject[]): KubeObject[] {
  return [...pods].sort((a, b) => {
    const d = createdAt(a) - createdAt(b);
    if (d !== 0) return d;
    const ar = phaseOf(a) === 'Running' ? 0 : 1;
    const br = phaseOf(b) === 'Running' ? 0 : 1;
    if (ar !== br) return ar - br;
    return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1;
  });
}

/** getNodesToDaemonPods: the pods grouped by the node they run on or are meant for */
export function podsByNode(pods: readonly KubeObject[]): Map<string, KubeObject[]> {
  const byNode = new Map<string, KubeObject[]>();
  for (const pod of pods) {
    const node = targetNodeName(pod);
    if (!node) continue;
    const list = byNode.get(node) ?? [];
    list.push(pod);
    byNode.set(node, list);
  }
  return byNode;
}

export interface ManagePlan {
  nodesNeedingPods: string[];
  podsToDelete: KubeObject[];
  /** failed pods found (each gets a FailedDaemonPod event), with their node */
  failed: { pod: KubeObject; node: string }[];
}

/**
 * manage's per-node decisions (podsShouldBeOnNode), then the unscheduled pods meant for nodes
 * that no longer exist. `failedInBackoff(node)` tells whether a failed pod on that node was
 * deleted too recently to delete another.
 */
export function planManage(ds: KubeObject, nodes: readonly KubeObject[], byNode: ReadonlyMap<string, KubeObject[]>, failedInBackoff: (node: string) => boolean = () => false): ManagePlan {
  const plan: ManagePlan = { nodesNeedingPods: [], podsToDelete: [], failed: [] };
  const known = new Set<string>();
  for (const node of nodes) {
    const name = node.metadata?.name ?? '';
    known.add(name);
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const pods = byNode.get(name) ?? [];
    if (shouldRun && pods.length === 0) {
      plan.nodesNeedingPods.push(name);
    } else if (shouldContinueRunning) {
      const running: KubeObject[] = [];
      for (const pod of pods) {
        if (pod.metadata?.deletionTimestamp) continue;
        if (phaseOf(pod) === 'Failed') {
          if (failedInBackoff(name)) continue;
          plan.failed.push({ pod, node: name });
          plan.podsToDelete.push(pod);
        } else {
          running.push(pod);
        }
      }
      // more than one daemon pod on a node: the oldest stays
      plan.podsToDelete.push(...oldestFirst(running).slice(1));
    } else if (pods.length > 0) {
      plan.podsToDelete.push(...pods.filter((p) => !p.metadata?.deletionTimestamp));
    }
  }
  for (const [name, pods] of byNode) {
    if (known.has(name)) continue;
    for (const pod of pods) {
      if (!((pod.spec ?? {}) as { nodeName?: string }).nodeName && !pod.metadata?.deletionTimestamp) plan.podsToDelete.push(pod);
    }
  }
  return plan;
}

/** intstr.GetScaledValueFromIntOrPercent, rounding up */
export function scaledValue(value: number | string | undefined, total: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number') return value;
  const m = /^(\d+)%$/.exec(value);
  if (!m) return Number.parseInt(value, 10) || 0;
  return Math.ceil((Number(m[1]) * total) / 100);
}

/** rollingUpdate: every unavailable old pod, then available old pods while under maxUnavailable */
export function planRollingUpdate(ds: KubeObject, nodes: readonly KubeObject[], byNode: ReadonlyMap<string, KubeObject[]>, hash: string, now = Date.now()): KubeObject[] {
  const minReady = daemonSpec(ds).minReadySeconds ?? 0;
  const generation = templateGeneration(ds);
  let desired = 0;
  let unavailable = 0;
  for (const node of nodes) {
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) continue;
    desired += 1;
    const pods = byNode.get(node.metadata?.name ?? '') ?? [];
    if (!pods.some((p) => isPodAvailable(p, minReady, now))) unavailable += 1;
  }
  const maxUnavailable = scaledValue(daemonSpec(ds).updateStrategy?.rollingUpdate?.maxUnavailable, desired, 1);
  const old = [...byNode.values()].flat().filter((p) => !isPodUpdated(p, hash, generation));
  const toDelete = old.filter((p) => !isPodAvailable(p, minReady, now) && !p.metadata?.deletionTimestamp);
  for (const pod of old.filter((p) => isPodAvailable(p, minReady, now))) {
    if (unavailable >= maxUnavailable) break;
    toDelete.push(pod);
    unavailable += 1;
  }
  return toDelete;
}

export interface DaemonSetStatus {
  currentNumberScheduled: number;
  numberMisscheduled: number;
  desiredNumberScheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
  observedGeneration?: number;
  collisionCount?: number;
}

/** updateDaemonSetStatus: counted per node, from the oldest daemon pod of each */
export function calculateStatus(ds: KubeObject, nodes: readonly KubeObject[], byNode: ReadonlyMap<string, KubeObject[]>, hash: string, now = Date.now()): DaemonSetStatus {
  const minReady = daemonSpec(ds).minReadySeconds ?? 0;
  const generation = templateGeneration(ds);
  const s: DaemonSetStatus = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0, updatedNumberScheduled: 0, numberAvailable: 0, numberUnavailable: 0 };
  for (const node of nodes) {
    const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
    const pods = byNode.get(node.metadata?.name ?? '') ?? [];
    if (!shouldRun) {
      if (pods.length > 0) s.numberMisscheduled += 1;
      continue;
    }
    s.desiredNumberScheduled += 1;
    if (pods.length === 0) continue;
    s.currentNumberScheduled += 1;
    const pod = oldestFirst(pods)[0]!;
    if (isPodReady(pod)) {
      s.numberReady += 1;
      if (isPodAvailable(pod, minReady, now)) s.numberAvailable += 1;
    }
    if (isPodUpdated(pod, hash, generation)) s.updatedNumberScheduled += 1;
  }
  s.numberUnavailable = s.desiredNumberScheduled - s.numberAvailable;
  return s;
}
