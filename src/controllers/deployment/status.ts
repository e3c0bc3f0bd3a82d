/**
 * The status a Deployment reports (kube's calculateStatus and syncRolloutStatus): sums over its
 * ReplicaSets, the Available condition, and during rollouts the Progressing condition (with the
 * progress deadline) and ReplicaFailure copied from a failing ReplicaSet.
 */
import type { KubeObject } from '../../client/types';
import {
  deploymentComplete, deploymentProgressing, deploymentTimedOut, getCondition, hasProgressDeadline, newCondition,
  removeCondition, setCondition,
} from './conditions';
import { maxUnavailable, replicasOf, rsStatus, specOf, statusOf, sumSpecReplicas, sumStatus, type DeploymentStatus } from './util';

const clone = <T>(o: T): T => structuredClone(o);

export function calculateStatus(d: KubeObject, all: readonly KubeObject[], newRS: KubeObject | undefined, now = Date.now()): DeploymentStatus {
  const available = sumStatus(all, 'availableReplicas');
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation,
    replicas: sumStatus(all, 'replicas'),
    updatedReplicas: newRS ? sumStatus([newRS], 'replicas') : 0,
    readyReplicas: sumStatus(all, 'readyReplicas'),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, sumSpecReplicas(all) - available),
    collisionCount: statusOf(d).collisionCount,
    conditions: clone(statusOf(d).conditions ?? []),
  };
  if (available >= replicasOf(d) - maxUnavailable(d)) {
    setCondition(status, newCondition('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.', now));
  } else {
    setCondition(status, newCondition('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.', now));
  }
  return status;
}

export function rolloutStatus(d: KubeObject, all: readonly KubeObject[], newRS: KubeObject | undefined, now = Date.now()): DeploymentStatus {
  const status = calculateStatus(d, all, newRS, now);
  if (!hasProgressDeadline(d)) removeCondition(status, 'Progressing');
  const current = getCondition(status, 'Progressing');
  const complete = status.replicas === status.updatedReplicas && current?.reason === 'NewReplicaSetAvailable';
  if (hasProgressDeadline(d) && !complete) {
    const name = newRS?.metadata?.name;
    if (deploymentComplete(d, status)) {
      setCondition(status, newCondition('Progressing', 'True', 'NewReplicaSetAvailable', name ? `ReplicaSet "${name}" has successfully progressed.` : '', now));
    } else if (deploymentProgressing(d, status)) {
      const c = newCondition('Progressing', 'True', 'ReplicaSetUpdated', name ? `ReplicaSet "${name}" is progressing.` : '', now);
      // progress refreshes lastUpdateTime (the deadline counts from it) but keeps the transition time
      if (current?.status === 'True') c.lastTransitionTime = current.lastTransitionTime;
      removeCondition(status, 'Progressing');
      setCondition(status, c);
    } else if (deploymentTimedOut(d, status, now)) {
      setCondition(status, newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', name ? `ReplicaSet "${name}" has timed out progressing.` : '', now));
    }
  }
  const failure = [newRS, ...all.filter((rs) => rs !== newRS)]
    .flatMap((rs) => (rs ? rsStatus(rs).conditions ?? [] : []))
    .find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  if (failure) {
    const c = newCondition('ReplicaFailure', failure.status, failure.reason ?? '', failure.message ?? '', now);
    c.lastTransitionTime = failure.lastTransitionTime;
    setCondition(status, c);
  } else {
    removeCondition(status, 'ReplicaFailure');
  }
  return status;
}

/** requeueStuckDeployment: when to look again so that the progress deadline is noticed (ms), if at all */
export function stuckRequeueMs(d: KubeObject, status: DeploymentStatus, now = Date.now()): number | undefined {
  const c = getCondition(status, 'Progressing');
  if (!hasProgressDeadline(d) || !c) return undefined;
  if (deploymentComplete(d, status) || c.reason === 'ProgressDeadlineExceeded') return undefined;
  const due = (Date.parse(c.lastUpdateTime ?? '') || 0) + (specOf(d).progressDeadlineSeconds ?? 0) * 1000 - now;
  return Math.max(due, 0) + 1000;
}

/** the fields of two statuses that matter, compared as kube's DeepEqual would */
export function sameStatus(a: DeploymentStatus, b: DeploymentStatus): boolean {
  const norm = (s: DeploymentStatus) =>
    JSON.stringify([
      s.observedGeneration ?? 0, s.replicas ?? 0, s.updatedReplicas ?? 0, s.readyReplicas ?? 0, s.availableReplicas ?? 0,
      s.unavailableReplicas ?? 0, s.collisionCount ?? null,
      (s.conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '', c.lastUpdateTime ?? '', c.lastTransitionTime ?? '']),
    ]);
  return norm(a) === norm(b);
}
