/**
 * One pass of kube's StatefulSet reconciliation (defaultStatefulSetControl.updateStatefulSet,
 * kube 1.20): count the pods into the status, then make at most the changes the pod management
 * policy allows. OrderedReady creates ordinals upwards, each after the previous is Running and
 * Ready, and removes from the highest ordinal down one at a time; Parallel does not wait. A
 * RollingUpdate replaces pods of an old revision from the highest ordinal down to the partition,
 * one at a time, each after the previous is healthy.
 */
import type { KubeObject } from '../../client/types';
import {
  identityMatches,
  isFailed,
  isHealthy,
  isRunningAndReady,
  isTerminating,
  newStatefulPod,
  ordinalOf,
  podRevision,
  setSpec,
  storageMatches,
} from './stateful-pods';

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas: number;
  readyReplicas: number;
  currentReplicas: number;
  updatedReplicas: number;
  currentRevision: string;
  updateRevision: string;
  collisionCount?: number;
}

/** the writes a pass may make; each throws on failure */
export interface StatefulPodOps {
  /** create the pod's claims (when missing), then the pod */
  create(pod: KubeObject): Promise<void>;
  delete(pod: KubeObject): Promise<void>;
  /** restore the pod's identity and storage */
  update(pod: KubeObject): Promise<void>;
}

export interface UpdateInput {
  /** the set as it is */
  set: KubeObject;
  /** the set with the current revision's template (equal to `set` when there is no older one) */
  currentSet: KubeObject;
  currentRevision: string;
  updateRevision: string;
  collisionCount?: number;
  /** the pods the set owns */
  pods: readonly KubeObject[];
}

/** newVersionedStatefulSetPod: ordinals below the partition keep the current revision */
function versionedPod(i: UpdateInput, ordinal: number, currentReplicas: number): KubeObject {
  const strategy = setSpec(i.currentSet).updateStrategy;
  if (strategy?.type === 'RollingUpdate') {
    const partition = strategy.rollingUpdate?.partition;
    const keepCurrent = strategy.rollingUpdate ? ordinal < (partition ?? 0) : ordinal < currentReplicas;
    if (keepCurrent) return newStatefulPod(i.currentSet, ordinal, i.currentRevision);
  }
  return newStatefulPod(i.set, ordinal, i.updateRevision);
}

export async function updateStatefulSet(i: UpdateInput, ops: StatefulPodOps): Promise<StatefulSetStatus> {
  const { set } = i;
  const spec = setSpec(set);
  const replicaCount = spec.replicas ?? 1;
  const status: StatefulSetStatus = {
    observedGeneration: set.metadata?.generation,
    replicas: 0,
    readyReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
    currentRevision: i.currentRevision,
    updateRevision: i.updateRevision,
  };
  if (i.collisionCount !== undefined) status.collisionCount = i.collisionCount;
  const countRevision = (pod: KubeObject, by: number) => {
    if (podRevision(pod) === i.currentRevision) status.currentReplicas += by;
    if (podRevision(pod) === i.updateRevision) status.updatedReplicas += by;
  };

  const replicas: (KubeObject | undefined)[] = new Array(replicaCount).fill(undefined);
  const existing = new Set<KubeObject>();
  const condemned: KubeObject[] = [];
  for (const pod of i.pods) {
    status.replicas += 1;
    if (isRunningAndReady(pod)) status.readyReplicas += 1;
    if (!isTerminating(pod)) countRevision(pod, 1);
    const ord = ordinalOf(pod);
    if (ord >= 0 && ord < replicaCount) {
      replicas[ord] = pod;
      existing.add(pod);
    } else if (ord >= replicaCount) {
      condemned.push(pod);
    }
  }
  const slots: KubeObject[] = replicas.map((p, ord) => p ?? versionedPod(i, ord, (set.status as { currentReplicas?: number } | undefined)?.currentReplicas ?? 0));
  condemned.sort((a, b) => ordinalOf(a) - ordinalOf(b));

  // the first unhealthy pod, in the order of processing, may be removed even in order
  const firstUnhealthy = [...slots.filter((p) => existing.has(p)), ...condemned].find((p) => !isHealthy(p));

  if (set.metadata?.deletionTimestamp) return status;
  const monotonic = spec.podManagementPolicy !== 'Parallel';

  for (let ord = 0; ord < slots.length; ord++) {
    let pod = slots[ord]!;
    if (existing.has(pod) && isFailed(pod)) {
      // a failed pod is deleted and replaced with a fresh one of its revision
      await ops.delete(pod);
      status.replicas -= 1;
      countRevision(pod, -1);
      existing.delete(pod);
      pod = versionedPod(i, ord, status.currentReplicas);
      slots[ord] = pod;
    }
    if (!existing.has(pod)) {
      await ops.create(pod);
      existing.add(pod);
      status.replicas += 1;
      countRevision(pod, 1);
      if (monotonic) return status;
      continue;
    }
    if (isTerminating(pod) && monotonic) return status;
    if (!isRunningAndReady(pod) && monotonic) return status;
    if (identityMatches(set, pod) && storageMatches(set, pod)) continue;
    await ops.update(structuredClone(pod));
  }

  for (let target = condemned.length - 1; target >= 0; target--) {
    const pod = condemned[target]!;
    if (isTerminating(pod)) {
      if (monotonic) return status;
      continue;
    }
    if (!isRunningAndReady(pod) && monotonic && pod !== firstUnhealthy) return status;
    await ops.delete(pod);
    countRevision(pod, -1);
    if (monotonic) return status;
  }

  if (spec.updateStrategy?.type === 'OnDelete') return status;

  const updateMin = spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  for (let target = slots.length - 1; target >= updateMin; target--) {
    const pod = slots[target]!;
    if (podRevision(pod) !== i.updateRevision && !isTerminating(pod)) {
      await ops.delete(pod);
      status.currentReplicas -= 1;
      return status;
    }
    if (!isHealthy(pod)) return status;
  }
  return status;
}

/** completeRollingUpdate: once every pod is updated and ready the update revision becomes current */
export function completeRollingUpdate(set: KubeObject, status: StatefulSetStatus): StatefulSetStatus {
  const spec = setSpec(set);
  if (spec.updateStrategy?.type === 'RollingUpdate' && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    return { ...status, currentReplicas: status.updatedReplicas, currentRevision: status.updateRevision };
  }
  return status;
}
