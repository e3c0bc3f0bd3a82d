/**
 * Deployment conditions (kube's deployment util: SetDeploymentCondition and friends) and the
 * predicates of progress: complete, progressing, timed out against progressDeadlineSeconds.
 */
import type { KubeObject } from '../../client/types';
import { replicasOf, specOf, statusOf, type Condition, type DeploymentStatus } from './util';

const MAX_INT32 = 2147483647;

export function stamp(now = Date.now()): string {
  return new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function newCondition(type: string, status: string, reason: string, message: string, now = Date.now()): Condition {
  return { type, status, lastUpdateTime: stamp(now), lastTransitionTime: stamp(now), reason, message };
}

export const getCondition = (s: DeploymentStatus, type: string) => s.conditions?.find((c) => c.type === type);

/** SetDeploymentCondition: same status and reason is no change; same status keeps the transition time */
export function setCondition(s: DeploymentStatus, c: Condition): void {
  const current = getCondition(s, c.type);
  if (current && current.status === c.status && current.reason === c.reason) return;
  if (current && current.status === c.status) c.lastTransitionTime = current.lastTransitionTime;
  s.conditions = [...(s.conditions ?? []).filter((x) => x.type !== c.type), c];
}

export function removeCondition(s: DeploymentStatus, type: string): void {
  if (s.conditions) s.conditions = s.conditions.filter((c) => c.type !== type);
}

export function hasProgressDeadline(d: KubeObject): boolean {
  const p = specOf(d).progressDeadlineSeconds;
  return p !== undefined && p !== null && p !== MAX_INT32;
}

/** DeploymentComplete */
export function deploymentComplete(d: KubeObject, s: DeploymentStatus): boolean {
  const r = replicasOf(d);
  return (s.updatedReplicas ?? 0) === r && (s.replicas ?? 0) === r && (s.availableReplicas ?? 0) === r && (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available than before */
export function deploymentProgressing(d: KubeObject, s: DeploymentStatus): boolean {
  const old = statusOf(d);
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: no progress for progressDeadlineSeconds since the Progressing condition's last update */
export function deploymentTimedOut(d: KubeObject, s: DeploymentStatus, now = Date.now()): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getCondition(s, 'Progressing');
  if (!c || c.reason === 'NewReplicaSetAvailable') return false;
  if (c.reason === 'ProgressDeadlineExceeded') return true;
  const from = Date.parse(c.lastUpdateTime ?? '') || 0;
  return from + (specOf(d).progressDeadlineSeconds ?? 0) * 1000 < now;
}
