/**
 * The arithmetic of a PodDisruptionBudget's status (kube 1.20's pkg/controller/disruption): how
 * many of the selected pods must stay healthy, how many are, and which evictions the API server
 * recorded in status.disruptedPods are still pending (for at most DELETION_TIMEOUT_MS).
 */
import type { KubeObject } from '../../client/types';
import { scaledValue, type IntOrPercent } from '../deployment/util';
import { isPodReady } from '../util/pods';

/** kube's DeletionTimeout: how long an eviction recorded in disruptedPods keeps its pod out of the count */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

export interface BudgetSpec {
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
  selector?: unknown;
}

export interface BudgetStatus {
  observedGeneration?: number;
  disruptedPods?: Record<string, string>;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
}

export const specOf = (pdb: KubeObject): BudgetSpec => (pdb.spec ?? {}) as BudgetSpec;

/** whether the expected count comes from the pods' controllers (their scale) rather than the pods themselves */
export function needsScale(spec: BudgetSpec): boolean {
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) return true;
  return typeof spec.minAvailable === 'string';
}

/** kube's getExpectedPodCount once the expected scale is known (`scale` undefined: the pods' count) */
export function desiredHealthyOf(spec: BudgetSpec, pods: number, scale?: number): { expectedCount: number; desiredHealthy: number } {
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
    const expectedCount = scale ?? 0;
    const maxUnavailable = scaledValue(spec.maxUnavailable, expectedCount, true);
    return { expectedCount, desiredHealthy: Math.max(0, expectedCount - maxUnavailable) };
  }
  if (typeof spec.minAvailable === 'number') return { expectedCount: pods, desiredHealthy: spec.minAvailable };
  if (typeof spec.minAvailable === 'string') {
    const expectedCount = scale ?? 0;
    return { expectedCount, desiredHealthy: scaledValue(spec.minAvailable, expectedCount, true) };
  }
  return { expectedCount: 0, desiredHealthy: 0 };
}

/**
 * kube's buildDisruptedPodMap: the recorded evictions still pending. An entry goes once its pod is
 * gone or being deleted; one older than the timeout goes too, and is reported (its pod was
 * expected to be deleted but was not). `recheckAt` is when the earliest pending entry expires.
 */
export function pendingDisruptions(pods: readonly KubeObject[], recorded: Record<string, string> | undefined, now: number): {
  pending: Record<string, string>;
  expired: KubeObject[];
  recheckAt?: number;
} {
  const pending: Record<string, string> = {};
  const expired: KubeObject[] = [];
  let recheckAt: number | undefined;
  if (!recorded) return { pending, expired };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const at = recorded[name];
    if (at === undefined || pod.metadata?.deletionTimestamp) continue;
    const expectedDeletion = Date.parse(at) + DELETION_TIMEOUT_MS;
    if (expectedDeletion < now) {
      expired.push(pod);
      continue;
    }
    pending[name] = at;
    recheckAt = recheckAt === undefined ? expectedDeletion : Math.min(recheckAt, expectedDeletion);
  }
  return { pending, expired, recheckAt };
}

/** kube's countHealthyPods: ready pods, not being deleted, not pending an eviction */
export function countHealthy(pods: readonly KubeObject[], pending: Record<string, string>): number {
  return pods.filter((p) => !p.metadata?.deletionTimestamp && pending[p.metadata?.name ?? ''] === undefined && isPodReady(p)).length;
}

/** kube's updatePdbStatus arithmetic: disruptions are allowed only above the desired count, and never without expected pods */
export function budgetStatus(o: { generation?: number; pending: Record<string, string>; currentHealthy: number; desiredHealthy: number; expectedCount: number }): BudgetStatus {
  const allowed = o.currentHealthy - o.desiredHealthy;
  return {
    observedGeneration: o.generation,
    disruptedPods: o.pending,
    disruptionsAllowed: o.expectedCount <= 0 || allowed <= 0 ? 0 : allowed,
    currentHealthy: o.currentHealthy,
    desiredHealthy: o.desiredHealthy,
    expectedPods: o.expectedCount,
  };
}
