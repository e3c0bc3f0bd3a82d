/**
 * kube 1.20's pvc-protection and pv-protection controllers (pkg/controller/volume/pvcprotection,
 * pvprotection). The StorageObjectInUseProtection admission plugin puts a finalizer on every new
 * claim and volume (these controllers add it to older ones too); they take it off an object being
 * deleted once nothing uses it: no scheduled pod that has not ended mounts the claim (asked of the
 * informer, then of the API, which the informer may trail), the volume is not Bound.
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../client/errors';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { KubeObject, ResourceRef } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext, ControllerDefinition } from '../types';
import { POD_CLAIM_INDEX, PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER, claimKey, phaseOf, podClaimKeys, podIsTerminated, podNodeName } from './volume-util';

/** kube checks pods only once scheduled: the node agent refuses to start one whose claim is being deleted */
export function podUsesClaim(pod: KubeObject, namespace: string, name: string): boolean {
  return !!podNodeName(pod) && !podIsTerminated(pod) && podClaimKeys(pod).includes(claimKey(namespace, name));
}

interface ProtectionOptions {
  ctx: ControllerContext;
  ref: ResourceRef;
  finalizer: string;
  /** whether the object being deleted is still in use */
  inUse(obj: KubeObject): Promise<boolean>;
}

/** the part both controllers share: a queue of objects, finalizers added and removed */
class ProtectionController {
  readonly #o: ProtectionOptions;
  readonly #log: Logger;
  readonly queue: WorkQueue<string>;
  readonly informer: SharedInformer;

  constructor(o: ProtectionOptions) {
    this.#o = o;
    this.#log = o.ctx.logger;
    this.queue = new WorkQueue<string>({ name: o.ref.resource === 'persistentvolumes' ? 'pvprotection' : 'pvcprotection' });
    this.informer = o.ctx.informers.informerFor(o.ref);
    const enqueue = (obj: KubeObject) => this.queue.add(claimKey(obj.metadata?.namespace, obj.metadata?.name));
    this.informer.addEventHandler({ add: enqueue, update: (_old, obj) => enqueue(obj) });
  }

  async run(): Promise<void> {
    const { signal } = this.#o.ctx;
    signal.addEventListener('abort', () => this.queue.shutDown(), { once: true });
    if (!(await this.#o.ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.queue, 1, (key) => this.#sync(key), (key, err) => this.#log.error({ err, key }, `error protecting ${this.#o.ref.kind}`));
  }

  async #sync(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const obj = this.informer.store.getObject(key.slice(0, slash) || undefined, key.slice(slash + 1));
    if (!obj) return;
    const finalizers = obj.metadata?.finalizers ?? [];
    const has = finalizers.includes(this.#o.finalizer);
    if (!obj.metadata?.deletionTimestamp) {
      if (!has) await this.#setFinalizers(obj, [...finalizers, this.#o.finalizer]);
      return;
    }
    if (!has || (await this.#o.inUse(obj))) return;
    await this.#setFinalizers(obj, finalizers.filter((f) => f !== this.#o.finalizer));
  }

  async #setFinalizers(obj: KubeObject, finalizers: string[]): Promise<void> {
    try {
      await this.#o.ctx.client.update(this.#o.ref, { ...obj, metadata: { ...obj.metadata, finalizers } });
    } catch (err) {
      // gone: nothing to protect; a conflict: the newer object is queued by its own event
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }
}

export const pvcProtectionController: ControllerDefinition = {
  name: 'pvc-protection',
  start(ctx) {
    const pods = ctx.informers.informerFor(RESOURCES.pods);
    pods.addIndexer(POD_CLAIM_INDEX, podClaimKeys);
    const inUse = async (pvc: KubeObject): Promise<boolean> => {
      const ns = pvc.metadata?.namespace ?? '';
      const name = pvc.metadata?.name ?? '';
      if (pods.store.byIndex(POD_CLAIM_INDEX, claimKey(ns, name)).some((p) => podUsesClaim(p, ns, name))) return true;
      // the informer may not have seen a pod created a moment ago: ask the API before letting go
      const live = await ctx.client.list(RESOURCES.pods, ns);
      return live.items.some((p) => podUsesClaim(p, ns, name));
    };
    const c = new ProtectionController({ ctx, ref: RESOURCES.persistentVolumeClaims, finalizer: PVC_PROTECTION_FINALIZER, inUse });
    // a pod that stops using a claim (deleted, ended, or changed) may free it
    const podChanged = (pod: KubeObject) => {
      for (const key of podClaimKeys(pod)) c.queue.add(key);
    };
    pods.addEventHandler({
      add: podChanged,
      update: (old, pod) => {
        podChanged(old);
        podChanged(pod);
      },
      delete: podChanged,
    });
    return c.run();
  },
};

export const pvProtectionController: ControllerDefinition = {
  name: 'pv-protection',
  start(ctx) {
    return new ProtectionController({
      ctx,
      ref: RESOURCES.persistentVolumes,
      finalizer: PV_PROTECTION_FINALIZER,
      inUse: async (pv) => phaseOf(pv) === 'Bound',
    }).run();
  },
};
