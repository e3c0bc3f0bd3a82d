/**
 * CRD status conditions, as kube's apihelpers read and set them: one condition per type; setting
 * one moves lastTransitionTime only when its status changes.
 */
import type { KubeObject } from '../kind';
import type { Condition, CrdStatus } from './types';
import { statusOf } from './types';

export type ConditionType = 'Established' | 'NamesAccepted' | 'NonStructuralSchema' | 'Terminating' | 'KubernetesAPIApprovalPolicyConformant';

export function findCondition(crd: KubeObject, type: ConditionType): Condition | undefined {
  const conditions = statusOf(crd).conditions;
  return Array.isArray(conditions) ? conditions.find((c) => c?.type === type) : undefined;
}

export function isConditionTrue(crd: KubeObject, type: ConditionType): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** kube's SetCRDCondition on crd.status (mutates); `now` is the RFC 3339 time of a transition */
export function setCondition(crd: KubeObject, next: Omit<Condition, 'lastTransitionTime'>, now: string): void {
  const status: CrdStatus = (crd.status && typeof crd.status === 'object' ? crd.status : (crd.status = {})) as CrdStatus;
  if (!Array.isArray(status.conditions)) status.conditions = [];
  const existing = status.conditions.find((c) => c?.type === next.type);
  if (!existing) {
    status.conditions.push({ type: next.type, status: next.status, lastTransitionTime: now, reason: next.reason, message: next.message });
    return;
  }
  if (existing.status !== next.status || !existing.lastTransitionTime) existing.lastTransitionTime = now;
  existing.status = next.status;
  existing.reason = next.reason;
  existing.message = next.message;
}

/** kube's IsCRDConditionEquivalent: same type, status, reason and message */
export function equivalentCondition(a: Omit<Condition, 'lastTransitionTime'> | undefined, b: Condition | undefined): boolean {
  if (!a || !b) return a === undefined && b === undefined;
  return a.type === b.type && a.status === b.status && (a.reason ?? '') === (b.reason ?? '') && (a.message ?? '') === (b.message ?? '');
}
