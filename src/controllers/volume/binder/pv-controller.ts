/**
 * kube 1.20's persistentvolume controller (pkg/controller/volume/persistentvolume, the
 * `persistentvolume-binder`): two queues, one of claims and one of volumes, each synced against the
 * other's store. Claims are bound to the best free volume (two-sided: the volume's claimRef first,
 * then the claim's volumeName), provisioned for through their class, and marked Lost when their
 * volume goes; volumes whose claim is gone are Released and reclaimed by their policy. Every object
 * is synced again each --pvclaimbinder-sync-period.
 *
 * A WaitForFirstConsumer claim waits for the scheduler: its VolumeBinding plugin either binds a
 * chosen volume (the volume's claimRef, which this controller completes) or selects a node for
 * provisioning (volume.kubernetes.io/selected-node on the claim).
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../../client/errors';
import { EventRecorder, type EventType } from '../../../client/events';
import type { SharedInformer } from '../../../client/informer';
import { RESOURCES } from '../../../client/resources';
import type { KubeObject } from '../../../client/types';
import { runWorkers, WorkQueue } from '../../../client/workqueue';
import type { ControllerContext } from '../../types';
import {
  ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_DYNAMICALLY_PROVISIONED, ANN_SELECTED_NODE,
  POD_CLAIM_INDEX, claimClass, claimKey, claimRefKey, claimSpec, copyOf, hasAnnotation, isVolumeBoundToClaim,
  phaseOf, podClaimKeys, podNodeName, volumeSpec, withAnnotation,
} from '../volume-util';
import { findBestMatch, volumeMismatch } from './matching';
import { Reclaimer } from './reclaim';
import { ClaimProvisioner, claimRefOf } from './provisioner';

const WAIT_FOR_FIRST_CONSUMER = 'WaitForFirstConsumer';

export class PersistentVolumeController {
  readonly #ctx: ControllerContext;
  readonly #log: Logger;
  readonly #recorder: EventRecorder;
  readonly #volumes: SharedInformer;
  readonly #claims: SharedInformer;
  readonly #classes: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #volumeQueue = new WorkQueue<string>({ name: 'volumes' });
  readonly #claimQueue = new WorkQueue<string>({ name: 'claims' });
  readonly #reclaimer: Reclaimer;
  readonly #provisioner: ClaimProvisioner;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    // kube's binder records its events as `persistentvolume-controller`
    this.#recorder = new EventRecorder(ctx.client, { component: 'persistentvolume-controller' }, ctx.logger);
    this.#volumes = ctx.informers.informerFor(RESOURCES.persistentVolumes);
    this.#claims = ctx.informers.informerFor(RESOURCES.persistentVolumeClaims);
    this.#classes = ctx.informers.informerFor(RESOURCES.storageClasses);
    this.#pods = ctx.informers.informerFor(RESOURCES.pods);
    this.#pods.addIndexer(POD_CLAIM_INDEX, podClaimKeys);
    this.#provisioner = new ClaimProvisioner({ ctx, recorder: this.#recorder, classes: this.#classes, volumes: this.#volumes });
    this.#reclaimer = new Reclaimer({
      ctx,
      recorder: this.#recorder,
      pods: this.#pods,
      updateVolumePhase: (pv, phase, message, event) => this.#updateVolumePhase(pv, phase, message, event),
      unbindVolume: (pv) => this.#unbindVolume(pv),
    });
    this.#volumes.addEventHandler({
      add: (pv) => this.#volumeQueue.add(pv.metadata?.name ?? ''),
      update: (_old, pv) => this.#volumeQueue.add(pv.metadata?.name ?? ''),
      delete: (pv) => {
        // the claim bound to a deleted volume becomes Lost
        const key = claimRefKey(pv);
        if (key) this.#claimQueue.add(key);
      },
    });
    this.#claims.addEventHandler({
      add: (pvc) => this.#claimQueue.add(claimKey(pvc.metadata?.namespace, pvc.metadata?.name)),
      update: (_old, pvc) => this.#claimQueue.add(claimKey(pvc.metadata?.namespace, pvc.metadata?.name)),
      delete: (pvc) => {
        // its volume is released
        const name = claimSpec(pvc).volumeName;
        if (name) this.#volumeQueue.add(name);
      },
    });
    // a scheduled pod may be the first consumer of a waiting claim; a recycler pod that ended
    // finishes its volume's recycling (its deletion does not: the next resync retries a failed one)
    const podChanged = (pod: KubeObject) => {
      if (podNodeName(pod)) for (const key of podClaimKeys(pod)) this.#claimQueue.add(key);
      const pv = this.#reclaimer.volumeOfRecyclerPod(pod);
      if (pv) this.#volumeQueue.add(pv);
    };
    this.#pods.addEventHandler({ add: podChanged, update: (_old, pod) => podChanged(pod) });
  }

  async run(): Promise<void> {
    const { signal, settings } = this.#ctx;
    signal.addEventListener('abort', () => {
      this.#volumeQueue.shutDown();
      this.#claimQueue.shutDown();
    }, { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await this.#reclaimer.init();
    const resync = setInterval(() => this.#resync(), Math.max(1000, settings.pvClaimBinderSyncPeriodMs));
    try {
      await Promise.all([
        runWorkers(this.#volumeQueue, 1, (name) => this.#syncVolume(name), (key, err) => this.#log.error({ err, key }, 'error syncing volume')),
        runWorkers(this.#claimQueue, 1, (key) => this.#syncClaim(key), (key, err) => this.#log.error({ err, key }, 'error syncing claim')),
      ]);
    } finally {
      clearInterval(resync);
      await this.#recorder.flush();
    }
  }

  /** kube's resync: every volume and claim again, each sync period */
  #resync(): void {
    for (const pv of this.#volumes.store.list()) this.#volumeQueue.add(pv.metadata?.name ?? '');
    for (const pvc of this.#claims.store.list()) this.#claimQueue.add(claimKey(pvc.metadata?.namespace, pvc.metadata?.name));
  }

  #event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    this.#recorder.event(obj, type, reason, message);
  }

  // ---- claims --------------------------------------------------------------------------------

  async #syncClaim(key: string): Promise<void> {
    const slash = key.indexOf('/');
    const claim = this.#claims.store.getObject(key.slice(0, slash), key.slice(slash + 1));
    if (!claim) return;
    if (!hasAnnotation(claim, ANN_BIND_COMPLETED)) await this.#syncUnboundClaim(claim);
    else await this.#syncBoundClaim(claim);
  }

  async #syncUnboundClaim(claim: KubeObject): Promise<void> {
    const volumeName = claimSpec(claim).volumeName;
    if (!volumeName) {
      const delay = await this.#shouldDelayBinding(claim);
      if (delay === 'claim changed') return;
      const volume = findBestMatch(this.#volumes.store.list(), claim, delay);
      if (volume) {
        await this.#bind(volume, claim);
        return;
      }
      if (delay) {
        this.#event(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
      } else if (claimClass(claim) !== '') {
        claim = await this.#provisioner.provision(claim);
      } else {
        this.#event(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      }
      await this.#updateClaimStatus(claim, 'Pending');
      return;
    }
    // the user asked for a particular volume
    const volume = this.#volumes.store.getObject(undefined, volumeName);
    if (!volume) {
      await this.#updateClaimStatus(claim, 'Pending');
      return;
    }
    if (!volumeSpec(volume).claimRef) {
      const why = volumeMismatch(volume, claim);
      if (why) {
        this.#event(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume "${volumeName}": ${why}`);
        await this.#updateClaimStatus(claim, 'Pending');
        return;
      }
      await this.#bind(volume, claim);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      await this.#bind(volume, claim);
      return;
    }
    if (!hasAnnotation(claim, ANN_BOUND_BY_CONTROLLER)) {
      // the volume the user asked for is claimed by someone else: wait
      await this.#updateClaimStatus(claim, 'Pending');
      return;
    }
    await this.#updateClaimStatus(claim, 'Lost', undefined, ['Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!']);
    throw new Error(`invalid binding of claim ${claimKey(claim.metadata?.namespace, claim.metadata?.name)} to volume ${volumeName}: volume already claimed by ${claimRefKey(volume)}`);
  }

  async #syncBoundClaim(claim: KubeObject): Promise<void> {
    const volumeName = claimSpec(claim).volumeName;
    if (!volumeName) {
      await this.#updateClaimStatus(claim, 'Lost', undefined, ['Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!']);
      return;
    }
    const volume = this.#volumes.store.getObject(undefined, volumeName);
    if (!volume) {
      await this.#updateClaimStatus(claim, 'Lost', undefined, ['Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!']);
      return;
    }
    const ref = volumeSpec(volume).claimRef;
    if (!ref || ref.uid === claim.metadata?.uid) {
      // unbound volume (finish the binding), or already bound: make the status agree
      await this.#bind(volume, claim);
      return;
    }
    await this.#updateClaimStatus(claim, 'Lost', undefined, ['Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly']);
  }

  /** kube's shouldDelayBinding: a claim of a WaitForFirstConsumer class waits until the scheduler selects a node */
  async #shouldDelayBinding(claim: KubeObject): Promise<boolean | 'claim changed'> {
    if (hasAnnotation(claim, ANN_SELECTED_NODE)) return false;
    const cls = this.#classes.store.getObject(undefined, claimClass(claim));
    return (cls as { volumeBindingMode?: string } | undefined)?.volumeBindingMode === WAIT_FOR_FIRST_CONSUMER;
  }

  // ---- binding -------------------------------------------------------------------------------

  /** kube's bind: the volume's claimRef, its phase, the claim's volumeName, its status, in that order */
  async #bind(volume: KubeObject, claim: KubeObject): Promise<void> {
    volume = await this.#bindVolumeToClaim(volume, claim);
    volume = await this.#updateVolumePhase(volume, 'Bound');
    claim = await this.#bindClaimToVolume(claim, volume);
    await this.#updateClaimStatus(claim, 'Bound', volume);
  }

  async #bindVolumeToClaim(volume: KubeObject, claim: KubeObject): Promise<KubeObject> {
    const ref = volumeSpec(volume).claimRef;
    const m = claim.metadata ?? {};
    if (ref && ref.name === m.name && ref.namespace === m.namespace && ref.uid === m.uid) return volume;
    const byController = !isVolumeBoundToClaim(volume, claim);
    const next = copyOf(volume);
    (next.spec as Record<string, unknown>).claimRef = claimRefOf(claim);
    if (byController && !hasAnnotation(next, ANN_BOUND_BY_CONTROLLER)) withAnnotation(next, ANN_BOUND_BY_CONTROLLER, 'yes');
    return this.#ctx.client.update(RESOURCES.persistentVolumes, next);
  }

  async #bindClaimToVolume(claim: KubeObject, volume: KubeObject): Promise<KubeObject> {
    const name = volume.metadata?.name ?? '';
    const rebind = claimSpec(claim).volumeName !== name;
    if (!rebind && hasAnnotation(claim, ANN_BIND_COMPLETED)) return claim;
    const next = copyOf(claim);
    if (rebind) {
      (next.spec as Record<string, unknown>).volumeName = name;
      if (!hasAnnotation(next, ANN_BOUND_BY_CONTROLLER)) withAnnotation(next, ANN_BOUND_BY_CONTROLLER, 'yes');
    }
    withAnnotation(next, ANN_BIND_COMPLETED, 'yes');
    return this.#ctx.client.update(RESOURCES.persistentVolumeClaims, next);
  }

  /** a volume bound to a claim that went elsewhere or away goes back to the pool (kube's unbindVolume) */
  async #unbindVolume(volume: KubeObject): Promise<KubeObject> {
    const next = copyOf(volume);
    const spec = next.spec as Record<string, unknown> & { claimRef?: Record<string, unknown> };
    if (hasAnnotation(next, ANN_BOUND_BY_CONTROLLER)) {
      // the controller bound it: it becomes free for any claim
      delete spec.claimRef;
      delete next.metadata!.annotations![ANN_BOUND_BY_CONTROLLER];
    } else if (spec.claimRef) {
      // the user pre-bound it: it stays reserved for a claim of that name
      const { uid: _boundUid, ...reserved } = spec.claimRef;
      spec.claimRef = reserved;
    }
    const updated = await this.#ctx.client.update(RESOURCES.persistentVolumes, next);
    return this.#updateVolumePhase(updated, 'Available');
  }

  async #updateClaimStatus(claim: KubeObject, phase: string, volume?: KubeObject, event?: [EventType, string, string]): Promise<KubeObject> {
    const status = (claim.status ?? {}) as Record<string, unknown>;
    const next: Record<string, unknown> = { ...status, phase };
    if (volume) {
      next.accessModes = volumeSpec(volume).accessModes;
      next.capacity = volumeSpec(volume).capacity;
    } else {
      delete next.accessModes;
      delete next.capacity;
    }
    if (JSON.stringify(next) === JSON.stringify(status)) return claim;
    const updated = await this.#ctx.client.update(RESOURCES.persistentVolumeClaims, { ...copyOf(claim), status: next }, 'status');
    if (event && phaseOf(claim) !== phase) this.#event(updated, ...event);
    return updated;
  }

  async #updateVolumePhase(volume: KubeObject, phase: string, message = '', event?: [EventType, string, string]): Promise<KubeObject> {
    const status = (volume.status ?? {}) as { phase?: string; message?: string };
    if (status.phase === phase && (status.message ?? '') === message) return volume;
    const next: Record<string, unknown> = { ...status, phase };
    if (message) next.message = message;
    else delete next.message;
    const updated = await this.#ctx.client.update(RESOURCES.persistentVolumes, { ...copyOf(volume), status: next }, 'status');
    if (event) this.#event(updated, ...event);
    return updated;
  }

  // ---- volumes -------------------------------------------------------------------------------

  async #syncVolume(name: string): Promise<void> {
    const volume = this.#volumes.store.getObject(undefined, name);
    if (!volume) return;
    const ref = volumeSpec(volume).claimRef;
    if (!ref || !ref.uid) {
      // free, or pre-bound by the user to a claim that has not come yet
      await this.#updateVolumePhase(volume, 'Available');
      return;
    }
    let claim = this.#claims.store.getObject(ref.namespace, ref.name ?? '');
    if (!claim && phaseOf(volume) !== 'Released' && phaseOf(volume) !== 'Failed') {
      // the informer may lag a claim just created: ask the API before releasing the volume
      claim = await this.#ctx.client.get(RESOURCES.persistentVolumeClaims, ref.namespace, ref.name ?? '').catch((err: unknown) => {
        if (isNotFound(err)) return undefined;
        throw err;
      });
    }
    if (claim && claim.metadata?.uid !== ref.uid) claim = undefined; // deleted and made again: not ours
    if (!claim) {
      await this.#release(volume);
      return;
    }
    const claimVolume = claimSpec(claim).volumeName;
    if (!claimVolume) {
      // bound on our side only: the claim's sync finishes the binding
      this.#claimQueue.add(claimKey(claim.metadata?.namespace, claim.metadata?.name));
      return;
    }
    if (claimVolume === name) {
      await this.#updateVolumePhase(volume, 'Bound');
      return;
    }
    // the claim is bound to another volume
    if (hasAnnotation(volume, ANN_DYNAMICALLY_PROVISIONED) && volumeSpec(volume).persistentVolumeReclaimPolicy === 'Delete') {
      await this.#release(volume);
      return;
    }
    await this.#unbindVolume(volume);
  }

  async #release(volume: KubeObject): Promise<void> {
    const phase = phaseOf(volume);
    if (phase !== 'Released' && phase !== 'Failed') volume = await this.#updateVolumePhase(volume, 'Released');
    await this.#reclaimer.reclaim(volume);
  }
}
