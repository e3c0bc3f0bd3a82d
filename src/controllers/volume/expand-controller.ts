/**
 * kube 1.20's persistentvolume-expander (pkg/controller/volume/expand): a bound claim whose
 * requested storage grew past its status capacity is expanded by the in-tree plugin of its volume.
 * The expander's plugins are kube's ProbeExpandableVolumePlugins, the cloud and network volumes
 * (EBS, GCE PD, Cinder, Ceph RBD, Gluster...): neither host-path nor CSI is among them, so for the
 * volumes Ballast can have kube finds no plugin and writes a Warning ExternalExpanding event,
 * leaving the claim to an external resizer (CSI's). (The API server's PersistentVolumeClaimResize
 * admission already refuses to grow claims whose class does not allow expansion.)
 */
import { EventRecorder } from '../../client/events';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerDefinition } from '../types';
import { claimKey, claimSpec, phaseOf, requestedStorage, storageOf, volumeSpec } from './volume-util';

export const EXTERNAL_EXPANDING_MESSAGE = 'Ignoring the PVC: didn\'t find a plugin capable of expanding the volume; waiting for an external controller to process this PVC.';

const statusCapacity = (pvc: KubeObject): number => storageOf((pvc.status as { capacity?: Record<string, unknown> } | undefined)?.capacity);

/** what the expander does with a claim: nothing, or the ExternalExpanding event of the given type */
export function expansionDecision(pvc: KubeObject, pv: KubeObject | undefined): 'none' | 'Warning' | 'not bound' {
  if (!pv) return 'not bound';
  const ref = volumeSpec(pv).claimRef;
  if (!ref || ref.namespace !== pvc.metadata?.namespace || ref.uid !== pvc.metadata?.uid) return 'not bound';
  if (requestedStorage(pvc) <= statusCapacity(pvc)) return 'none';
  // no expandable plugin matches (kube's FindExpandablePluginBySpec fails): an external resizer's job
  return 'Warning';
}

export const persistentVolumeExpanderController: ControllerDefinition = {
  name: 'persistentvolume-expander',
  async start(ctx) {
    const recorder = new EventRecorder(ctx.client, { component: 'volume_expand' }, ctx.logger);
    const claims: SharedInformer = ctx.informers.informerFor(RESOURCES.persistentVolumeClaims);
    const volumes: SharedInformer = ctx.informers.informerFor(RESOURCES.persistentVolumes);
    const queue = new WorkQueue<string>({ name: 'volume_expand' });
    const enqueue = (pvc: KubeObject) => {
      if (phaseOf(pvc) === 'Bound') queue.add(claimKey(pvc.metadata?.namespace, pvc.metadata?.name));
    };
    claims.addEventHandler({
      add: enqueue,
      update: (old, pvc) => {
        // a request or a status capacity that changed (kube's two cases)
        if (requestedStorage(pvc) !== requestedStorage(old) || statusCapacity(pvc) !== statusCapacity(old)) enqueue(pvc);
      },
    });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
    const sync = async (key: string) => {
      const slash = key.indexOf('/');
      const pvc = claims.store.getObject(key.slice(0, slash), key.slice(slash + 1));
      const name = pvc && claimSpec(pvc).volumeName;
      if (!pvc || !name) return;
      const decision = expansionDecision(pvc, volumes.store.getObject(undefined, name));
      if (decision === 'not bound') throw new Error(`persistent Volume is not bound to PVC being updated : ${key}`);
      if (decision !== 'none') recorder.event(pvc, decision, 'ExternalExpanding', EXTERNAL_EXPANDING_MESSAGE);
    };
    try {
      await runWorkers(queue, 1, sync, (key, err) => ctx.logger.error({ err, key }, 'error expanding claim'));
    } finally {
      await recorder.flush();
    }
  },
};
