/**
 * What happens to a Released volume (kube's reclaimVolume): Retain keeps it, Delete removes it
 * through its plugin (host-path here; an externally provisioned volume waits for its provisioner),
 * Recycle scrubs it with a recycler pod and makes it Available again.
 *
 * Kube's recycler blocks a goroutine watching the pod; here the pod's existence is the state: a
 * sync creates `recycler-for-<pv>` when there is none, and a later sync (the pod's informer events
 * queue the volume) finishes when it has Succeeded or Failed, and deletes it. Until a node agent
 * runs pods, something else must move the pod to Succeeded.
 */
import { isAlreadyExists, isNotFound } from '../../../client/errors';
import type { EventRecorder, EventType } from '../../../client/events';
import type { SharedInformer } from '../../../client/informer';
import { RESOURCES } from '../../../client/resources';
import type { KubeObject } from '../../../client/types';
import type { ControllerContext } from '../../types';
import { ANN_DYNAMICALLY_PROVISIONED, POD_CLAIM_INDEX, annotation, claimRefKey, phaseOf, podIsTerminated, volumeSpec } from '../volume-util';
import { deleteHostPath, loadRecyclerPodTemplate, recyclerPod, recyclerPodName } from './host-path';
import { recyclerTimeoutSeconds } from './matching';

const RECYCLER_PREFIX = 'recycler-for-';

export interface ReclaimerOptions {
  ctx: ControllerContext;
  recorder: EventRecorder;
  pods: SharedInformer;
  updateVolumePhase(pv: KubeObject, phase: string, message?: string, event?: [EventType, string, string]): Promise<KubeObject>;
  unbindVolume(pv: KubeObject): Promise<KubeObject>;
}

export class Reclaimer {
  readonly #o: ReclaimerOptions;
  #template?: KubeObject;

  constructor(o: ReclaimerOptions) {
    this.#o = o;
  }

  async init(): Promise<void> {
    this.#template = await loadRecyclerPodTemplate(this.#o.ctx.settings.pvRecycler.podTemplateFileHostPath);
  }

  /** the volume a recycler pod works for, if the pod is one */
  volumeOfRecyclerPod(pod: KubeObject): string | undefined {
    const name = pod.metadata?.name ?? '';
    const namespace = this.#template?.metadata?.namespace || 'default';
    return pod.metadata?.namespace === namespace && name.startsWith(RECYCLER_PREFIX) ? name.slice(RECYCLER_PREFIX.length) : undefined;
  }

  async reclaim(volume: KubeObject): Promise<void> {
    const policy = volumeSpec(volume).persistentVolumeReclaimPolicy;
    if (policy === 'Retain') return;
    // as kube, act on the newest copy only: a store that lags (a volume unbound a moment ago)
    // must not start a second recycler or delete a volume bound again
    const fresh = await this.#o.ctx.client.get(RESOURCES.persistentVolumes, undefined, volume.metadata?.name ?? '').catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (!fresh || fresh.metadata?.resourceVersion !== volume.metadata?.resourceVersion) return;
    switch (policy) {
      case 'Recycle':
        return this.#recycle(volume);
      case 'Delete':
        return this.#delete(volume);
      default:
        await this.#o.updateVolumePhase(volume, 'Failed', 'Volume has unrecognized PersistentVolumeReclaimPolicy', [
          'Warning', 'VolumeUnknownReclaimPolicy', 'Volume has unrecognized PersistentVolumeReclaimPolicy',
        ]);
    }
  }

  /** the running pods that still mount the released claim */
  #podsUsing(volume: KubeObject): string[] {
    const key = claimRefKey(volume);
    if (!key) return [];
    return this.#o.pods.store.byIndex(POD_CLAIM_INDEX, key).filter((p) => !podIsTerminated(p)).map((p) => p.metadata?.name ?? '').sort();
  }

  async #delete(volume: KubeObject): Promise<void> {
    if (volumeSpec(volume).hostPath) {
      try {
        await deleteHostPath(volume);
      } catch (err) {
        await this.#failed(volume, 'VolumeFailedDelete', (err as Error).message);
        return;
      }
    } else {
      const provisioner = annotation(volume, ANN_DYNAMICALLY_PROVISIONED);
      // an external provisioner deletes what it provisioned
      if (provisioner && !provisioner.startsWith('kubernetes.io/')) return;
      await this.#failed(volume, 'VolumeFailedDelete', `error getting deleter volume plugin for volume "${volume.metadata?.name}": no deletable volume plugin matched`);
      return;
    }
    await this.#o.ctx.client.delete(RESOURCES.persistentVolumes, undefined, volume.metadata?.name ?? '').catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }

  async #recycle(volume: KubeObject): Promise<void> {
    const users = this.#podsUsing(volume);
    if (users.length) {
      this.#o.recorder.event(volume, 'Normal', 'VolumeFailedRecycle', `Volume is used by pods: ${users.join(',')}`);
      return;
    }
    if (!volumeSpec(volume).hostPath) {
      await this.#failed(volume, 'VolumeFailedRecycle', 'No recycler plugin found for the volume!');
      return;
    }
    const name = volume.metadata?.name ?? '';
    const template = this.#template ?? (await loadRecyclerPodTemplate(undefined));
    const namespace = template.metadata?.namespace || 'default';
    const pod = this.#o.pods.store.getObject(namespace, recyclerPodName(name));
    if (!pod) {
      const { minimumTimeoutHostPathSeconds: min, timeoutIncrementHostPathSeconds: inc } = this.#o.ctx.settings.pvRecycler;
      await this.#o.ctx.client.create(RESOURCES.pods, namespace, recyclerPod(template, volume, recyclerTimeoutSeconds(volume, min, inc))).catch((err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
      });
      return;
    }
    const phase = phaseOf(pod);
    if (phase !== 'Succeeded' && phase !== 'Failed') return; // the pod's next change brings us back
    await this.#o.ctx.client.delete(RESOURCES.pods, namespace, pod.metadata?.name ?? '').catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
    if (phase === 'Failed') {
      const message = (pod.status as { message?: string } | undefined)?.message || 'pod failed, pod.Status.Message unknown.';
      await this.#failed(volume, 'VolumeFailedRecycle', `Recycle failed: ${message}`);
      return;
    }
    this.#o.recorder.event(volume, 'Normal', 'VolumeRecycled', 'Volume recycled');
    await this.#o.unbindVolume(volume);
  }

  async #failed(volume: KubeObject, reason: string, message: string): Promise<void> {
    // kube writes the Failed phase and its event once; later syncs retry the reclaim quietly
    if (phaseOf(volume) === 'Failed' && (volume.status as { message?: string }).message === message) return;
    await this.#o.updateVolumePhase(volume, 'Failed', message, ['Warning', reason, message]);
  }
}
