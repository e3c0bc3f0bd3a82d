/**
 * The status a ReplicaSet (or ReplicationController) reports (kube's calculateStatus): counts of
 * the pods it owns, and the ReplicaFailure condition while creating or deleting pods fails.
 */
import type { KubeObject } from '../../client/types';
import { isPodAvailable, isPodReady } from '../util/pods';

export interface ReplicaCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface ReplicaStatus {
  replicas: number;
  fullyLabeledReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  conditions?: ReplicaCondition[];
}

export const REPLICA_FAILURE = 'ReplicaFailure';

export interface ManageError {
  /** FailedCreate or FailedDelete */
  reason: string;
  message: string;
}

function templateLabels(rs: KubeObject): Record<string, string> {
  const template = ((rs.spec ?? {}) as { template?: KubeObject }).template;
  return template?.metadata?.labels ?? {};
}

export function calculateStatus(rs: KubeObject, pods: readonly KubeObject[], manageError: ManageError | undefined, now = Date.now()): ReplicaStatus {
  const spec = (rs.spec ?? {}) as { minReadySeconds?: number };
  const old = (rs.status ?? {}) as Partial<ReplicaStatus>;
  const wanted = templateLabels(rs);
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    const labels = pod.metadata?.labels ?? {};
    if (Object.entries(wanted).every(([k, v]) => labels[k] === v)) fullyLabeled += 1;
    if (isPodReady(pod)) {
      ready += 1;
      if (isPodAvailable(pod, spec.minReadySeconds ?? 0, now)) available += 1;
    }
  }
  let conditions = [...(old.conditions ?? [])];
  const failure = conditions.find((c) => c.type === REPLICA_FAILURE);
  if (manageError && !failure) {
    conditions.push({
      type: REPLICA_FAILURE,
      status: 'True',
      lastTransitionTime: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      reason: manageError.reason,
      message: manageError.message,
    });
  } else if (!manageError && failure) {
    conditions = conditions.filter((c) => c.type !== REPLICA_FAILURE);
  }
  const status: ReplicaStatus = {
    replicas: pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: old.observedGeneration,
  };
  if (conditions.length) status.conditions = conditions;
  return status;
}

/** whether two statuses differ in a field the controller writes (kube compares the same fields) */
export function statusChanged(rs: KubeObject, next: ReplicaStatus): boolean {
  const old = (rs.status ?? {}) as Partial<ReplicaStatus>;
  return (
    (old.replicas ?? 0) !== next.replicas ||
    (old.fullyLabeledReplicas ?? 0) !== (next.fullyLabeledReplicas ?? 0) ||
    (old.readyReplicas ?? 0) !== (next.readyReplicas ?? 0) ||
    (old.availableReplicas ?? 0) !== (next.availableReplicas ?? 0) ||
    (old.observedGeneration ?? 0) !== (rs.metadata?.generation ?? 0) ||
    JSON.stringify(old.conditions ?? []) !== JSON.stringify(next.conditions ?? [])
  );
}
