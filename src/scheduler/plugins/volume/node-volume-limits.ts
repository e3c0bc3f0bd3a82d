/**
 * NodeVolumeLimits (kube 1.20's CSILimits): CSI volumes on a node may not outnumber what each
 * driver can attach. The limit of a driver is its CSINode allocatable count (else the node's
 * `attachable-volumes-csi-<driver>` allocatable); volumes count once per driver and handle however
 * many pods share them. A claim not yet bound counts against its class's provisioner. In-tree
 * volumes are left to the in-tree filters: Ballast does not migrate them to CSI.
 */
import type { KubeObject } from '../../../client/types';
import { claimClass } from '../../../controllers/volume/volume-util';
import type { NodeInfo } from '../../framework/node-info';
import { Code, Status, unschedulable, type Result } from '../../framework/status';
import type { CycleState, FrameworkHandle, Plugin, PluginFactory } from '../../framework/types';
import { volumeListers, type VolumeListers } from './claims';
import { podVolumes, type VolumeSource } from './pod-volumes';
import {
  cachedPodVolumes, csiAttachLimitKey, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, nodeVolumeLimits, PodVolumesState, randomVolumeIdPrefix,
} from './volume-limits';

export const NODE_VOLUME_LIMITS = 'NodeVolumeLimits';

/** the in-tree provisioners kube's CSI translation library knows (counted only once migrated, which Ballast never does) */
const MIGRATABLE_PROVISIONERS = new Set([
  'kubernetes.io/aws-ebs', 'kubernetes.io/gce-pd', 'kubernetes.io/cinder', 'kubernetes.io/azure-disk', 'kubernetes.io/azure-file', 'kubernetes.io/vsphere-volume',
]);

interface CSINodeShape {
  spec?: { drivers?: Array<{ name?: string; allocatable?: { count?: number | null } | null }> };
}

class CsiCounter {
  readonly #listers: VolumeListers;
  readonly #prefix = randomVolumeIdPrefix();

  constructor(listers: VolumeListers) {
    this.#listers = listers;
  }

  /** kube's getCSIDriverInfo: driver and volume handle of a claim, or undefined when it is not a CSI volume */
  #driverInfo(pvc: KubeObject): [string, string] | undefined {
    const pvName = (pvc.spec as { volumeName?: string } | undefined)?.volumeName ?? '';
    const pv = pvName ? this.#listers.volume(pvName) : undefined;
    if (!pv) return this.#driverInfoFromClass(pvc);
    const csi = (pv.spec as VolumeSource | undefined)?.csi;
    if (!csi?.driver || !csi.volumeHandle) return undefined;
    return [csi.driver, csi.volumeHandle];
  }

  /** an unbound claim: its class's provisioner and a stand-in handle */
  #driverInfoFromClass(pvc: KubeObject): [string, string] | undefined {
    const className = claimClass(pvc);
    if (className === '') return undefined;
    const cls = this.#listers.storageClass(className);
    const provisioner = cls?.provisioner ?? '';
    if (!cls || provisioner === '' || MIGRATABLE_PROVISIONERS.has(provisioner)) return undefined;
    return [provisioner, `${this.#prefix}-${pvc.metadata?.namespace ?? ''}/${pvc.metadata?.name ?? ''}`];
  }

  /** kube's filterAttachableVolumes: unique volume name -> limit key; a missing claim is not counted */
  add(pod: KubeObject, into: Map<string, string>): string | undefined {
    const namespace = pod.metadata?.namespace ?? '';
    for (const v of podVolumes(pod)) {
      if (!v.persistentVolumeClaim) continue;
      const claimName = v.persistentVolumeClaim.claimName ?? '';
      if (claimName === '') return 'PersistentVolumeClaim had no name';
      const pvc = this.#listers.claim(namespace, claimName);
      if (!pvc) continue;
      const info = this.#driverInfo(pvc);
      if (!info) continue;
      into.set(`${info[0]}/${info[1]}`, csiAttachLimitKey(info[0]));
    }
    return undefined;
  }
}

export const newNodeVolumeLimits: PluginFactory = (_args: unknown, handle: FrameworkHandle): Plugin => {
  const listers = volumeListers(handle);
  const counter = new CsiCounter(listers);
  const stateKey = `${NODE_VOLUME_LIMITS}/volumes`;
  return {
    name: NODE_VOLUME_LIMITS,
    filter(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result {
      if (podVolumes(pod).length === 0) return undefined;
      if (!nodeInfo.node) return new Status(Code.Error, ['node not found']);
      const mine = cachedPodVolumes(state, stateKey, () => {
        const volumes = new Map<string, string>();
        const error = counter.add(pod, volumes);
        return new PodVolumesState(volumes, error ? new Status(Code.Error, [error]) : undefined);
      });
      if (mine.error) return mine.error;
      if (mine.volumes.size === 0) return undefined;

      const attached = new Map<string, string>();
      for (const other of nodeInfo.pods) {
        const error = counter.add(other.pod, attached);
        if (error) return new Status(Code.Error, [error]);
      }
      const attachedCount = new Map<string, number>();
      for (const key of attached.values()) attachedCount.set(key, (attachedCount.get(key) ?? 0) + 1);
      const newCount = new Map<string, number>();
      for (const [name, key] of mine.volumes) if (!attached.has(name)) newCount.set(key, (newCount.get(key) ?? 0) + 1);

      const limits = nodeVolumeLimits(nodeInfo);
      const csiNode = listers.csiNode(nodeInfo.name) as CSINodeShape | undefined;
      for (const d of csiNode?.spec?.drivers ?? []) {
        const count = d.allocatable?.count;
        if (d.name && count !== undefined && count !== null) limits.set(csiAttachLimitKey(d.name), count);
      }
      for (const [key, count] of newCount) {
        const limit = limits.get(key);
        if (limit !== undefined && (attachedCount.get(key) ?? 0) + count > limit) return unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED);
      }
      return undefined;
    },
  };
};
