/**
 * kube's ReplicaSet controller (pkg/controller/replicaset), which also runs ReplicationControllers
 * (kube converts them and shares the code; here the code reads either kind directly).
 *
 * Each sync claims the active pods of the owner's namespace that its selector matches (adopting
 * orphans, releasing pods that stopped matching), creates or deletes pods to reach spec.replicas
 * once the expectations of the previous sync are met, and writes the status.
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, OWNER_UID_INDEX, byNamespace, byOwnerUid } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject, type ResourceRef } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { claimObjects, controllerOf, recheckOwner } from '../util/controller-ref';
import { ControllerExpectations } from '../util/expectations';
import { errorMessage } from '../util/errors';
import { createPodFor, deletePodOf, slowStartBatch } from '../util/pod-control';
import { isPodActive, isPodReady, rankForDeletion } from '../util/pods';
import { selectorOf } from '../util/selectors';
import { calculateStatus, statusChanged, type ManageError } from './status';

/** kube's BurstReplicas: at most this many creates or deletes per sync */
export const BURST_REPLICAS = 500;

export interface ReplicaSetControllerOptions {
  ctx: ControllerContext;
  /** RESOURCES.replicaSets or RESOURCES.replicationControllers */
  ref: ResourceRef;
  workers: number;
}

export class ReplicaSetController {
  readonly #ctx: ControllerContext;
  readonly #ref: ResourceRef;
  readonly #workers: number;
  readonly #queue: WorkQueue<string>;
  readonly #expectations = new ControllerExpectations();
  readonly #owners: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #log: Logger;

  constructor(o: ReplicaSetControllerOptions) {
    this.#ctx = o.ctx;
    this.#ref = o.ref;
    this.#workers = o.workers;
    // kube's queue names: one controller code, two queues
    this.#queue = new WorkQueue<string>({ name: o.ref.resource === 'replicasets' ? 'replicaset' : 'replicationmanager' });
    this.#log = o.ctx.logger;
    this.#owners = o.ctx.informers.informerFor(o.ref);
    this.#pods = o.ctx.informers.informerFor(RESOURCES.pods);
    this.#owners.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#pods.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#pods.addIndexer(OWNER_UID_INDEX, byOwnerUid);
    this.#owners.addEventHandler({
      add: (rs) => this.#queue.add(objectKey(rs)),
      update: (_old, rs) => this.#queue.add(objectKey(rs)),
      delete: (rs) => {
        this.#expectations.forget(objectKey(rs));
        this.#queue.add(objectKey(rs));
      },
    });
    this.#pods.addEventHandler({
      add: (pod) => this.#podAdded(pod),
      update: (old, pod) => this.#podUpdated(old, pod),
      delete: (pod) => this.#podDeleted(pod),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, this.#workers, (key) => this.#sync(key), (key, err) => {
      this.#log.error({ err, key }, `error syncing ${this.#ref.kind}`);
    });
  }

  // ---- event handlers ------------------------------------------------------------------------

  /** the owner named by a pod's controller reference, if it is one of ours and still the same object */
  #ownerOf(pod: KubeObject): KubeObject | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== this.#ref.kind) return undefined;
    const owner = this.#owners.store.getObject(pod.metadata?.namespace, ref.name);
    return owner && owner.metadata?.uid === ref.uid ? owner : undefined;
  }

  /** the owners whose selector matches an orphan pod */
  #ownersSelecting(pod: KubeObject): KubeObject[] {
    if (!pod.metadata?.labels) return [];
    return this.#owners.store
      .byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? '')
      .filter((rs) => selectorOf(this.#withKind(rs)).matches(pod.metadata?.labels));
  }

  #podAdded(pod: KubeObject): void {
    if (pod.metadata?.deletionTimestamp) {
      // seen for the first time already being deleted (after a relist): count it as a deletion
      this.#podDeleted(pod);
      return;
    }
    if (controllerOf(pod)) {
      const owner = this.#ownerOf(pod);
      if (!owner) return;
      const key = objectKey(owner);
      this.#expectations.creationObserved(key);
      this.#queue.add(key);
      return;
    }
    for (const rs of this.#ownersSelecting(pod)) this.#queue.add(objectKey(rs));
  }

  #podUpdated(old: KubeObject, pod: KubeObject): void {
    if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
    const labelsChanged = JSON.stringify(old.metadata?.labels ?? {}) !== JSON.stringify(pod.metadata?.labels ?? {});
    if (pod.metadata?.deletionTimestamp) {
      // a graceful delete: the pod stops counting now, not when it finally goes
      this.#podDeleted(pod);
      if (labelsChanged) this.#podDeleted(old);
      return;
    }
    const oldRef = controllerOf(old);
    const newRef = controllerOf(pod);
    if (oldRef && oldRef.uid !== newRef?.uid) {
      const oldOwner = this.#ownerOf(old);
      if (oldOwner) this.#queue.add(objectKey(oldOwner));
    }
    if (newRef) {
      const owner = this.#ownerOf(pod);
      if (!owner) return;
      const key = objectKey(owner);
      this.#queue.add(key);
      // became ready: check availability again once minReadySeconds have passed
      const minReady = ((owner.spec ?? {}) as { minReadySeconds?: number }).minReadySeconds ?? 0;
      if (minReady > 0 && !isPodReady(old) && isPodReady(pod)) this.#queue.addAfter(key, minReady * 1000 + 1000);
      return;
    }
    if (labelsChanged || oldRef) for (const rs of this.#ownersSelecting(pod)) this.#queue.add(objectKey(rs));
  }

  #podDeleted(pod: KubeObject): void {
    const owner = this.#ownerOf(pod);
    if (!owner) return;
    const key = objectKey(owner);
    this.#expectations.deletionObserved(key, pod.metadata?.uid);
    this.#queue.add(key);
  }

  // ---- sync ----------------------------------------------------------------------------------

  /** informer objects from protobuf lists may lack TypeMeta; events and owner references need it */
  #withKind<T extends KubeObject>(obj: T): T {
    const apiVersion = this.#ref.group ? `${this.#ref.group}/${this.#ref.version}` : this.#ref.version;
    return obj.kind && obj.apiVersion ? obj : { ...obj, kind: this.#ref.kind, apiVersion };
  }

  async #sync(key: string): Promise<void> {
    const cached = this.#owners.store.get(key);
    if (!cached) {
      this.#expectations.forget(key);
      return;
    }
    const rs = this.#withKind(cached);
    const needsSync = this.#expectations.satisfied(key);
    const selector = selectorOf(rs);
    const candidates = this.#pods.store.byIndex(NAMESPACE_INDEX, rs.metadata?.namespace ?? '').filter(isPodActive);
    const pods = await claimObjects(
      { client: this.#ctx.client, owner: rs, selector, ref: RESOURCES.pods, canAdopt: recheckOwner(this.#ctx.client, this.#ref, rs) },
      candidates,
    );
    let manageError: ManageError | undefined;
    let thrown: unknown;
    if (needsSync && !rs.metadata?.deletionTimestamp) {
      try {
        await this.#manageReplicas(key, rs, pods);
      } catch (err) {
        thrown = err;
        manageError = (err as { manageError?: ManageError }).manageError ?? { reason: 'FailedCreate', message: errorMessage(err) };
      }
    }
    const status = calculateStatus(rs, pods, manageError);
    const updated = await this.#writeStatus(rs, status);
    if (thrown) throw thrown;
    // pods are ready but not yet available: look again when minReadySeconds have passed
    const minReady = ((rs.spec ?? {}) as { minReadySeconds?: number }).minReadySeconds ?? 0;
    const s = (updated?.status ?? status) as typeof status;
    const replicas = ((rs.spec ?? {}) as { replicas?: number }).replicas ?? 1;
    if (minReady > 0 && s.readyReplicas === replicas && s.availableReplicas !== replicas) {
      this.#queue.addAfter(key, minReady * 1000);
    }
  }

  async #manageReplicas(key: string, rs: KubeObject, pods: KubeObject[]): Promise<void> {
    const wanted = ((rs.spec ?? {}) as { replicas?: number }).replicas ?? 1;
    const diff = pods.length - wanted;
    if (diff < 0) {
      const n = Math.min(-diff, BURST_REPLICAS);
      this.#expectations.expectCreations(key, n);
      const template = ((rs.spec ?? {}) as { template?: KubeObject }).template;
      const { successes, error } = await slowStartBatch(n, 1, () => this.#createPod(rs, template));
      const skipped = n - successes;
      if (skipped > 0) this.#expectations.lowerCreations(key, skipped);
      if (error) throw Object.assign(new Error(errorMessage(error)), { manageError: { reason: 'FailedCreate', message: errorMessage(error) } });
      return;
    }
    if (diff > 0) {
      const n = Math.min(diff, BURST_REPLICAS);
      const victims = podsToDelete(pods, n);
      this.#expectations.expectDeletions(key, victims.map((p) => p.metadata?.uid ?? ''));
      const results = await Promise.allSettled(victims.map((p) => this.#deletePod(rs, p)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      results.forEach((r, i) => {
        if (r.status === 'rejected') this.#expectations.deletionObserved(key, victims[i]!.metadata?.uid);
      });
      if (failed) throw Object.assign(new Error(errorMessage(failed.reason)), { manageError: { reason: 'FailedDelete', message: errorMessage(failed.reason) } });
    }
  }

  async #createPod(rs: KubeObject, template: KubeObject | undefined): Promise<void> {
    await createPodFor(this.#ctx, rs, template);
  }

  async #deletePod(rs: KubeObject, pod: KubeObject): Promise<void> {
    await deletePodOf(this.#ctx, rs, pod);
  }

  /** write status through the status subresource, from the newest object when the cached one is stale */
  async #writeStatus(rs: KubeObject, status: ReturnType<typeof calculateStatus>): Promise<KubeObject | undefined> {
    let current = rs;
    for (let attempt = 0; ; attempt++) {
      const next = { ...status, observedGeneration: current.metadata?.generation };
      if (!statusChanged(current, next)) return current;
      try {
        return await this.#ctx.client.update(this.#ref, { ...current, status: next }, 'status');
      } catch (err) {
        if (!isConflict(err) || attempt >= 1) throw err;
        try {
          current = this.#withKind(await this.#ctx.client.get(this.#ref, rs.metadata?.namespace, rs.metadata?.name ?? ''));
        } catch (getErr) {
          if (isNotFound(getErr)) return undefined;
          throw getErr;
        }
      }
    }
  }
}

/** kube's getPodsToDelete: rank by the pods' state and how many of them share a node, take the first n */
export function podsToDelete(pods: readonly KubeObject[], n: number): KubeObject[] {
  if (n >= pods.length) return [...pods];
  const perNode = new Map<string, number>();
  const nodeOf = (p: KubeObject) => ((p.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
  for (const p of pods) if (nodeOf(p) && isPodActive(p)) perNode.set(nodeOf(p), (perNode.get(nodeOf(p)) ?? 0) + 1);
  return rankForDeletion(pods, (p) => perNode.get(nodeOf(p)) ?? 0).slice(0, n);
}
