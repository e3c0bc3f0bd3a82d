/**
 * Pod predicates and kube's ranking of pods for deletion (controller.ActivePods and
 * podutil.IsPodAvailable), shared by the ReplicaSet and Deployment controllers.
 */
import type { KubeObject } from '../../client/types';

export interface PodCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
}

export interface PodStatus {
  phase?: string;
  conditions?: PodCondition[];
  containerStatuses?: { restartCount?: number }[];
}

function statusOf(pod: KubeObject): PodStatus {
  return (pod.status ?? {}) as PodStatus;
}

function nodeNameOf(pod: KubeObject): string {
  return ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
}

/** controller.IsPodActive: not finished and not being deleted */
export function isPodActive(pod: KubeObject): boolean {
  const phase = statusOf(pod).phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

function readyCondition(pod: KubeObject): PodCondition | undefined {
  return statusOf(pod).conditions?.find((c) => c.type === 'Ready');
}

export function isPodReady(pod: KubeObject): boolean {
  return readyCondition(pod)?.status === 'True';
}

/** podutil.IsPodAvailable: ready for at least minReadySeconds (at `now`) */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: number = Date.now()): boolean {
  const c = readyCondition(pod);
  if (c?.status !== 'True') return false;
  if (!minReadySeconds) return true;
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now;
}

function maxRestarts(pod: KubeObject): number {
  return Math.max(0, ...(statusOf(pod).containerStatuses ?? []).map((s) => s.restartCount ?? 0));
}

/** kube's afterOrZero as an order: a missing time first, then the more recent, then the older */
function recentFirst(a: string | undefined, b: string | undefined): number {
  const at = a ? Date.parse(a) : NaN;
  const bt = b ? Date.parse(b) : NaN;
  const aZero = Number.isNaN(at);
  const bZero = Number.isNaN(bt);
  if (aZero || bZero) return aZero === bZero ? 0 : aZero ? -1 : 1;
  return bt - at;
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * controller.ActivePods' Less, kube 1.20: the pod to delete first sorts first.
 * 1. unassigned < assigned; 2. Pending < Unknown < Running; 3. not ready < ready;
 * 4. ready for less time < ready for longer (both ready; no time first); 5. more restarts < fewer;
 * 6. newer < older (creationTimestamp; none first); ties keep their order. With `rankOf` (the number of related
 * pods on the same node), a higher rank goes first, after readiness.
 */
export function compareForDeletion(a: KubeObject, b: KubeObject, rankOf?: (pod: KubeObject) => number): number {
  const aNode = nodeNameOf(a) !== '';
  const bNode = nodeNameOf(b) !== '';
  if (aNode !== bNode) return aNode ? 1 : -1;
  const ap = PHASE_RANK[statusOf(a).phase ?? ''] ?? 0;
  const bp = PHASE_RANK[statusOf(b).phase ?? ''] ?? 0;
  if (ap !== bp) return ap - bp;
  const ar = isPodReady(a);
  const br = isPodReady(b);
  if (ar !== br) return ar ? 1 : -1;
  if (rankOf) {
    // kube 1.20's ActivePodsWithRanks: pods doubled up on a node with more of their kind go first
    const ak = rankOf(a);
    const bk = rankOf(b);
    if (ak !== bk) return bk - ak;
  }
  if (ar && br) {
    // the one ready since later has been ready for less time
    const byReady = recentFirst(readyCondition(a)?.lastTransitionTime, readyCondition(b)?.lastTransitionTime);
    if (byReady !== 0) return byReady;
  }
  const aRestarts = maxRestarts(a);
  const bRestarts = maxRestarts(b);
  if (aRestarts !== bRestarts) return bRestarts - aRestarts;
  return recentFirst(a.metadata?.creationTimestamp ?? undefined, b.metadata?.creationTimestamp ?? undefined);
}

/** the pods to delete first, first */
export function rankForDeletion<T extends KubeObject>(pods: readonly T[], rankOf?: (pod: KubeObject) => number): T[] {
  return [...pods].sort((a, b) => compareForDeletion(a, b, rankOf));
}
