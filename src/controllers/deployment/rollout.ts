/**
 * One sync of one Deployment (kube's syncDeployment and the files it calls: sync.go, rolling.go,
 * recreate.go, progress.go): find or create the new ReplicaSet, scale the new one up and the old
 * ones down within the strategy's bounds, clean up old revisions, and write the status.
 */
import type { Logger } from 'pino';
import { isAlreadyExists } from '../../client/errors';
import type { EventRecorder } from '../../client/events';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import { controllerOf, newControllerRef } from '../util/controller-ref';
import { computeHash } from '../util/hash';
import { deploymentComplete, getCondition, hasProgressDeadline, newCondition, setCondition } from './conditions';
import { calculateStatus, rolloutStatus, sameStatus, stuckRequeueMs } from './status';
import {
  activeReplicaSets, byCreation, byRevision, bySize, equalIgnoreHash, findActiveOrLatest, findNewReplicaSet,
  isRollingUpdate, isSaturated, maxRevision, maxSurge, maxUnavailable, newRSNewReplicas, POD_TEMPLATE_HASH, proportion,
  replicasOf, REVISION, rsReplicas, rsSpec, rsStatus, setNewReplicaSetAnnotations, setReplicasAnnotations, specOf, statusOf,
  sumSpecReplicas, sumStatus, DESIRED_REPLICAS, type DeploymentStatus,
} from './util';

export interface RolloutDeps {
  client: RestClient;
  recorder: EventRecorder;
  logger: Logger;
  /** the ReplicaSet by name, as the informer has it (after an AlreadyExists) */
  cachedReplicaSet(namespace: string, name: string): KubeObject | undefined;
  /** look at this deployment again after `ms` */
  requeueAfter(ms: number): void;
}

const clone = <T>(o: T): T => structuredClone(o);

export class Rollout {
  readonly #deps: RolloutDeps;
  /** the deployment as this sync sees it; status and annotation writes update it */
  d: KubeObject;

  constructor(deps: RolloutDeps, d: KubeObject) {
    this.#deps = deps;
    this.d = clone(d);
  }

  // ---- entry points (syncDeployment's branches) ------------------------------------------------

  /** checkPausedConditions: Progressing Unknown with DeploymentPaused / DeploymentResumed */
  async checkPausedConditions(): Promise<void> {
    if (!hasProgressDeadline(this.d)) return;
    const status = clone(statusOf(this.d));
    const cond = getCondition(status, 'Progressing');
    const paused = specOf(this.d).paused === true;
    if (cond?.reason === 'ProgressDeadlineExceeded') return;
    let changed = false;
    if (paused && cond?.reason !== 'DeploymentPaused') {
      setCondition(status, newCondition('Progressing', 'Unknown', 'DeploymentPaused', 'Deployment is paused'));
      changed = true;
    } else if (!paused && cond?.reason === 'DeploymentPaused') {
      setCondition(status, newCondition('Progressing', 'Unknown', 'DeploymentResumed', 'Deployment is resumed'));
      changed = true;
    }
    if (changed) await this.#writeStatus(status);
  }

  /** sync: scale (when paused or on a scaling event), clean up when paused, write status */
  async syncScaleOnly(rss: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSetsAndRevision(rss, false);
    await this.#scale(newRS, oldRSs);
    if (specOf(this.d).paused) await this.#cleanup(oldRSs);
    await this.#syncStatus(newRS ? [...oldRSs, newRS] : oldRSs, newRS);
  }

  async syncStatusOnly(rss: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSetsAndRevision(rss, false);
    await this.#syncStatus(newRS ? [...oldRSs, newRS] : oldRSs, newRS);
  }

  /** isScalingEvent: an active ReplicaSet was sized for another replica count */
  async isScalingEvent(rss: KubeObject[]): Promise<boolean> {
    const { newRS, oldRSs } = await this.replicaSetsAndRevision(rss, false);
    for (const rs of activeReplicaSets(newRS ? [...oldRSs, newRS] : oldRSs)) {
      const desired = rs.metadata?.annotations?.[DESIRED_REPLICAS];
      if (desired === undefined || Number.isNaN(Number.parseInt(desired, 10))) continue;
      if (Number.parseInt(desired, 10) !== replicasOf(this.d)) return true;
    }
    return false;
  }

  /** rolloutRolling */
  async rolling(rss: KubeObject[]): Promise<void> {
    const { newRS, oldRSs } = await this.replicaSetsAndRevision(rss, true);
    const all = newRS ? [...oldRSs, newRS] : oldRSs;
    if (newRS && (await this.#reconcileNew(all, newRS))) return this.#syncRolloutStatus(all, newRS);
    if (await this.#reconcileOld(all, activeReplicaSets(oldRSs), newRS)) return this.#syncRolloutStatus(all, newRS);
    if (deploymentComplete(this.d, statusOf(this.d))) await this.#cleanup(oldRSs);
    await this.#syncRolloutStatus(all, newRS);
  }

  /** rolloutRecreate: all old pods gone before the new ReplicaSet grows */
  async recreate(rss: KubeObject[], podsByRs: (uid: string) => KubeObject[]): Promise<void> {
    let { newRS, oldRSs } = await this.replicaSetsAndRevision(rss, false);
    let all = newRS ? [...oldRSs, newRS] : oldRSs;
    let scaledDown = false;
    for (const rs of activeReplicaSets(oldRSs)) {
      if (await this.#scaleAndRecord(rs, 0)) scaledDown = true;
    }
    if (scaledDown) return this.#syncRolloutStatus(all, newRS);
    if (oldPodsRunning(oldRSs, podsByRs)) return this.#syncRolloutStatus(all, newRS);
    if (!newRS) {
      ({ newRS, oldRSs } = await this.replicaSetsAndRevision(rss, true));
      all = newRS ? [...oldRSs, newRS] : oldRSs;
    }
    if (newRS) await this.#scaleAndRecord(newRS, replicasOf(this.d));
    if (deploymentComplete(this.d, statusOf(this.d))) await this.#cleanup(oldRSs);
    await this.#syncRolloutStatus(all, newRS);
  }

  // ---- the new ReplicaSet and revisions ------------------------------------------------------

  /** getAllReplicaSetsAndSyncRevision: the new ReplicaSet (made when asked) and the old ones */
  async replicaSetsAndRevision(rss: KubeObject[], create: boolean): Promise<{ newRS?: KubeObject; oldRSs: KubeObject[] }> {
    const existing = findNewReplicaSet(this.d, rss);
    const oldRSs = rss.filter((rs) => rs !== existing);
    const newRS = await this.#newReplicaSet(existing, oldRSs, create);
    return { newRS, oldRSs };
  }

  async #newReplicaSet(existing: KubeObject | undefined, oldRSs: KubeObject[], create: boolean): Promise<KubeObject | undefined> {
    const d = this.d;
    const newRevision = String(maxRevision(oldRSs) + 1);
    if (existing) {
      let rs = clone(existing);
      const annotationsChanged = setNewReplicaSetAnnotations(d, rs, newRevision, true);
      const minReadyChanged = (rsSpec(rs).minReadySeconds ?? 0) !== (specOf(d).minReadySeconds ?? 0);
      if (annotationsChanged || minReadyChanged) {
        (rs.spec as Record<string, unknown>).minReadySeconds = specOf(d).minReadySeconds ?? 0;
        rs = await this.#deps.client.update(RESOURCES.replicaSets, rs);
        // later steps of this sync see the written object
        Object.assign(existing, { metadata: rs.metadata, spec: rs.spec });
      }
      const status = clone(statusOf(d));
      let needsUpdate = this.#setRevision(rs.metadata?.annotations?.[REVISION] ?? '');
      if (hasProgressDeadline(d) && !getCondition(status, 'Progressing')) {
        setCondition(status, newCondition('Progressing', 'True', 'FoundNewReplicaSet', `Found new replica set "${rs.metadata?.name}"`));
        needsUpdate = true;
      }
      if (needsUpdate) await this.#writeStatus(status);
      return rs;
    }
    if (!create) return undefined;

    const template = clone(specOf(d).template ?? {}) as KubeObject;
    const collisionCount = statusOf(d).collisionCount;
    const hash = computeHash(specOf(d).template ?? {}, collisionCount);
    template.metadata ??= {};
    template.metadata.labels = { ...(template.metadata.labels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const selector = clone((specOf(d).selector ?? {}) as { matchLabels?: Record<string, string> });
    selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
    const fresh: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata?.name}-${hash}`,
        namespace: d.metadata?.namespace,
        ownerReferences: [newControllerRef(d)],
        labels: template.metadata.labels,
      },
      spec: { replicas: 0, minReadySeconds: specOf(d).minReadySeconds ?? 0, selector, template },
    };
    const replicas = newRSNewReplicas(d, [...oldRSs, fresh], fresh);
    (fresh.spec as Record<string, unknown>).replicas = replicas;
    setNewReplicaSetAnnotations(d, fresh, newRevision, false);

    let created: KubeObject;
    let alreadyExists = false;
    try {
      created = await this.#deps.client.create(RESOURCES.replicaSets, d.metadata?.namespace, fresh);
    } catch (err) {
      if (isAlreadyExists(err)) {
        const other = this.#deps.cachedReplicaSet(d.metadata?.namespace ?? '', fresh.metadata!.name!);
        if (other && controllerOf(other)?.uid === d.metadata?.uid && equalIgnoreHash(rsSpec(other).template, specOf(d).template)) {
          // ours, made by a sync whose result the cache had not shown yet
          created = other;
          alreadyExists = true;
        } else {
          // a hash collision: try the next name (kube's collisionCount)
          const status = clone(statusOf(d));
          status.collisionCount = (status.collisionCount ?? 0) + 1;
          await this.#writeStatus(status);
          throw err;
        }
      } else {
        if (hasProgressDeadline(d)) {
          const status = clone(statusOf(d));
          setCondition(status, newCondition('Progressing', 'False', 'ReplicaSetCreateError', `Failed to create new replica set "${fresh.metadata!.name}": ${(err as Error).message}`));
          await this.#writeStatus(status).catch(() => undefined);
        }
        throw err;
      }
    }
    if (!alreadyExists && replicas > 0) {
      this.#deps.recorder.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata?.name} to ${replicas}`);
    }
    const status = clone(statusOf(d));
    let needsUpdate = this.#setRevision(newRevision);
    if (!alreadyExists && hasProgressDeadline(d)) {
      setCondition(status, newCondition('Progressing', 'True', 'NewReplicaSetCreated', `Created new replica set "${created.metadata?.name}"`));
      needsUpdate = true;
    }
    if (needsUpdate) await this.#writeStatus(status);
    return created;
  }

  /** SetDeploymentRevision on our copy; written with the next status write */
  #setRevision(revision: string): boolean {
    const a = (this.d.metadata!.annotations ??= {});
    if (a[REVISION] === revision) return false;
    a[REVISION] = revision;
    return true;
  }

  // ---- scaling -------------------------------------------------------------------------------

  async #scaleAndRecord(rs: KubeObject, size: number): Promise<boolean> {
    if (rsReplicas(rs) === size) return false;
    await this.#scaleReplicaSet(rs, size, rsReplicas(rs) < size ? 'up' : 'down');
    return true;
  }

  async #scaleReplicaSet(rs: KubeObject, size: number, operation: 'up' | 'down'): Promise<KubeObject> {
    const copy = clone(rs);
    const sizeChanged = rsReplicas(rs) !== size;
    const annotationsChanged = setReplicasAnnotations(copy, replicasOf(this.d), replicasOf(this.d) + maxSurge(this.d));
    if (!sizeChanged && !annotationsChanged) return rs;
    (copy.spec as Record<string, unknown>).replicas = size;
    const updated = await this.#deps.client.update(RESOURCES.replicaSets, copy);
    // later steps of this sync see the new size
    Object.assign(rs, { metadata: updated.metadata, spec: updated.spec });
    if (sizeChanged) {
      this.#deps.recorder.event(this.d, 'Normal', 'ScalingReplicaSet', `Scaled ${operation} replica set ${rs.metadata?.name} to ${size}`);
    }
    return updated;
  }

  /** scale: a resize of the deployment spread over its ReplicaSets (proportionally mid-rollout) */
  async #scale(newRS: KubeObject | undefined, oldRSs: KubeObject[]): Promise<void> {
    const d = this.d;
    const only = findActiveOrLatest(newRS, oldRSs);
    if (only) {
      if (rsReplicas(only) !== replicasOf(d)) await this.#scaleAndRecord(only, replicasOf(d));
      return;
    }
    if (isSaturated(d, newRS)) {
      for (const old of activeReplicaSets(oldRSs)) await this.#scaleAndRecord(old, 0);
      return;
    }
    if (!isRollingUpdate(d)) return;
    let all = activeReplicaSets(newRS ? [...oldRSs, newRS] : oldRSs);
    const allowed = replicasOf(d) > 0 ? replicasOf(d) + maxSurge(d) : 0;
    const toAdd = allowed - sumSpecReplicas(all);
    let operation: 'up' | 'down' = 'up';
    if (toAdd > 0) all = [...all].sort(bySize(true));
    else if (toAdd < 0) {
      all = [...all].sort(bySize(false));
      operation = 'down';
    }
    let added = 0;
    const sizes = new Map<KubeObject, number>();
    for (const rs of all) {
      if (toAdd !== 0) {
        const p = proportion(rs, d, toAdd, added);
        sizes.set(rs, rsReplicas(rs) + p);
        added += p;
      } else {
        sizes.set(rs, rsReplicas(rs));
      }
    }
    if (toAdd !== added && all.length > 0) {
      const first = all[0]!;
      sizes.set(first, Math.max(0, sizes.get(first)! + toAdd - added));
    }
    for (const rs of all) await this.#scaleReplicaSet(rs, sizes.get(rs)!, operation);
  }

  /** reconcileNewReplicaSet */
  async #reconcileNew(all: KubeObject[], newRS: KubeObject): Promise<boolean> {
    const want = replicasOf(this.d);
    if (rsReplicas(newRS) === want) return false;
    if (rsReplicas(newRS) > want) return this.#scaleAndRecord(newRS, want);
    return this.#scaleAndRecord(newRS, newRSNewReplicas(this.d, all, newRS));
  }

  /** reconcileOldReplicaSets: unhealthy old replicas first, then healthy ones within maxUnavailable */
  async #reconcileOld(all: KubeObject[], oldRSs: KubeObject[], newRS: KubeObject | undefined): Promise<boolean> {
    if (sumSpecReplicas(oldRSs) === 0) return false;
    const minAvailable = replicasOf(this.d) - maxUnavailable(this.d);
    const newUnavailable = newRS ? rsReplicas(newRS) - (rsStatus(newRS).availableReplicas ?? 0) : 0;
    const maxScaledDown = sumSpecReplicas(all) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;

    // cleanupUnhealthyReplicas
    let cleaned = 0;
    for (const rs of [...oldRSs].sort(byCreation)) {
      if (cleaned >= maxScaledDown) break;
      if (rsReplicas(rs) === 0) continue;
      const unhealthy = rsReplicas(rs) - (rsStatus(rs).availableReplicas ?? 0);
      if (unhealthy <= 0) continue;
      const n = Math.min(maxScaledDown - cleaned, unhealthy);
      await this.#scaleAndRecord(rs, rsReplicas(rs) - n);
      cleaned += n;
    }

    // scaleDownOldReplicaSetsForRollingUpdate
    let scaled = 0;
    const available = sumStatus(newRS ? [...oldRSs, newRS] : oldRSs, 'availableReplicas');
    if (available > minAvailable) {
      const total = available - minAvailable;
      for (const rs of [...oldRSs].sort(byCreation)) {
        if (scaled >= total) break;
        if (rsReplicas(rs) === 0) continue;
        const n = Math.min(rsReplicas(rs), total - scaled);
        await this.#scaleAndRecord(rs, rsReplicas(rs) - n);
        scaled += n;
      }
    }
    return cleaned + scaled > 0;
  }

  /** cleanupDeployment: delete the oldest scaled-down ReplicaSets beyond revisionHistoryLimit */
  async #cleanup(oldRSs: KubeObject[]): Promise<void> {
    const limit = specOf(this.d).revisionHistoryLimit;
    if (limit === undefined || limit === null) return;
    const cleanable = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp).sort(byRevision);
    const diff = cleanable.length - limit;
    for (let i = 0; i < diff; i++) {
      const rs = cleanable[i]!;
      if ((rsStatus(rs).replicas ?? 0) !== 0 || rsReplicas(rs) !== 0 || (rs.metadata?.generation ?? 0) > (rsStatus(rs).observedGeneration ?? 0)) continue;
      this.#deps.logger.debug({ replicaSet: rs.metadata?.name }, 'trying to clean up replica set for deployment');
      try {
        await this.#deps.client.delete(RESOURCES.replicaSets, rs.metadata?.namespace, rs.metadata?.name ?? '');
      } catch (err) {
        if ((err as { code?: number }).code !== 404) throw err;
      }
    }
  }

  // ---- status --------------------------------------------------------------------------------

  /** syncDeploymentStatus: no progress accounting (scaling, paused) */
  async #syncStatus(all: KubeObject[], newRS: KubeObject | undefined): Promise<void> {
    const status = calculateStatus(this.d, all, newRS);
    if (!sameStatus(statusOf(this.d), status)) await this.#writeStatus(status);
  }

  /** syncRolloutStatus: with the Progressing condition and ReplicaFailure from the ReplicaSets */
  async #syncRolloutStatus(all: KubeObject[], newRS: KubeObject | undefined): Promise<void> {
    const status = rolloutStatus(this.d, all, newRS);
    if (sameStatus(statusOf(this.d), status)) {
      const ms = stuckRequeueMs(this.d, status);
      if (ms !== undefined) this.#deps.requeueAfter(ms);
      return;
    }
    await this.#writeStatus(status);
  }

  /**
   * UpdateStatus, carrying the revision annotation too. kube's status strategy keeps annotation
   * changes; if this server's does not, the annotation is patched separately.
   */
  async #writeStatus(status: DeploymentStatus): Promise<void> {
    const revision = this.d.metadata?.annotations?.[REVISION];
    const updated = await this.#deps.client.update(RESOURCES.deployments, { ...this.d, status }, 'status');
    if (revision !== undefined && updated.metadata?.annotations?.[REVISION] !== revision) {
      const patched = await this.#deps.client.patch(RESOURCES.deployments, this.d.metadata?.namespace, this.d.metadata?.name ?? '', 'merge', {
        metadata: { annotations: { [REVISION]: revision }, resourceVersion: updated.metadata?.resourceVersion },
      });
      this.d = { ...patched, kind: 'Deployment', apiVersion: 'apps/v1' };
      return;
    }
    this.d = { ...updated, kind: 'Deployment', apiVersion: 'apps/v1' };
  }
}

/** oldPodsRunning: an old ReplicaSet still reports replicas, or has a pod that has not finished */
function oldPodsRunning(oldRSs: readonly KubeObject[], podsByRs: (uid: string) => KubeObject[]): boolean {
  if (sumStatus(oldRSs, 'replicas') > 0) return true;
  return oldRSs.some((rs) =>
    podsByRs(rs.metadata?.uid ?? '').some((pod) => {
      const phase = ((pod.status ?? {}) as { phase?: string }).phase;
      return phase !== 'Failed' && phase !== 'Succeeded';
    }),
  );
}
