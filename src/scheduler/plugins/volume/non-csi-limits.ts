/**
 * EBSLimits, GCEPDLimits, AzureDiskLimits and CinderLimits (kube 1.20's nonCSILimits): in-tree
 * volumes of one kind on a node may not outnumber its `attachable-volumes-<kind>` allocatable, or
 * kube's default for the kind (EBS: 25 on Nitro instance types, else 39; GCE PD and Azure Disk 16;
 * Cinder 256; KUBE_MAX_PD_VOLS overrides every default). A claim counts when its volume is of the
 * kind, when it is unbound in a class of the kind's provisioner, or when it cannot be looked up.
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { Code, Status, unschedulable, type Result } from '../../framework/status';
import type { CycleState, FrameworkHandle, Plugin, PluginFactory } from '../../framework/types';
import { volumeListers, type VolumeListers } from './claims';
import { podVolumes, type VolumeSource } from './pod-volumes';
import { cachedPodVolumes, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, nodeVolumeLimits, PodVolumesState, randomVolumeIdPrefix } from './volume-limits';

export const EBS_LIMITS = 'EBSLimits';
export const GCE_PD_LIMITS = 'GCEPDLimits';
export const AZURE_DISK_LIMITS = 'AzureDiskLimits';
export const CINDER_LIMITS = 'CinderLimits';

export const DEFAULT_MAX_EBS_VOLUMES = 39;
export const DEFAULT_MAX_EBS_NITRO_VOLUMES = 25;
export const DEFAULT_MAX_GCE_PD_VOLUMES = 16;
export const DEFAULT_MAX_AZURE_DISK_VOLUMES = 16;
export const DEFAULT_MAX_CINDER_VOLUMES = 256;
/** kube's EBSNitroLimitRegex, unanchored alternatives included */
const EBS_NITRO = /^[cmr]5.*|t3|z1d/;

/** what distinguishes one in-tree kind */
interface VolumeKind {
  name: string;
  limitKey: string;
  provisioner: string;
  /** the volume's id when the source is of this kind */
  id(source: VolumeSource): string | undefined;
  defaultLimit(node: KubeObject): number;
}

const constant = (n: number) => () => n;

export const VOLUME_KINDS: Record<string, VolumeKind> = {
  [EBS_LIMITS]: {
    name: EBS_LIMITS,
    limitKey: 'attachable-volumes-aws-ebs',
    provisioner: 'kubernetes.io/aws-ebs',
    id: (s) => s.awsElasticBlockStore?.volumeID,
    defaultLimit: (node) => {
      const labels = node.metadata?.labels ?? {};
      const instanceType = labels['node.kubernetes.io/instance-type'] ?? labels['beta.kubernetes.io/instance-type'] ?? '';
      if (instanceType === '') return DEFAULT_MAX_EBS_VOLUMES;
      return EBS_NITRO.test(instanceType) ? DEFAULT_MAX_EBS_NITRO_VOLUMES : DEFAULT_MAX_EBS_VOLUMES;
    },
  },
  [GCE_PD_LIMITS]: {
    name: GCE_PD_LIMITS,
    limitKey: 'attachable-volumes-gce-pd',
    provisioner: 'kubernetes.io/gce-pd',
    id: (s) => s.gcePersistentDisk?.pdName,
    defaultLimit: constant(DEFAULT_MAX_GCE_PD_VOLUMES),
  },
  [AZURE_DISK_LIMITS]: {
    name: AZURE_DISK_LIMITS,
    limitKey: 'attachable-volumes-azure-disk',
    provisioner: 'kubernetes.io/azure-disk',
    id: (s) => s.azureDisk?.diskName,
    defaultLimit: constant(DEFAULT_MAX_AZURE_DISK_VOLUMES),
  },
  [CINDER_LIMITS]: {
    name: CINDER_LIMITS,
    limitKey: 'attachable-volumes-cinder',
    provisioner: 'kubernetes.io/cinder',
    id: (s) => s.cinder?.volumeID,
    defaultLimit: constant(DEFAULT_MAX_CINDER_VOLUMES),
  },
};

/** kube's getMaxVolLimitFromEnv: a positive KUBE_MAX_PD_VOLS, else undefined */
export function maxVolumesFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.KUBE_MAX_PD_VOLS;
  if (!raw || !/^[+-]?\d+$/.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return n > 0 ? n : undefined;
}

class KindCounter {
  readonly #prefix = randomVolumeIdPrefix();
  constructor(readonly kind: VolumeKind, readonly listers: VolumeListers) {}

  /** kube's filterVolumes: the ids of this kind the pod mounts (a claim it cannot resolve counts) */
  add(pod: KubeObject, into: Set<string>): string | undefined {
    const namespace = pod.metadata?.namespace ?? '';
    for (const v of podVolumes(pod)) {
      const direct = this.kind.id(v);
      if (direct !== undefined) {
        into.add(direct);
        continue;
      }
      if (!v.persistentVolumeClaim) continue;
      const claimName = v.persistentVolumeClaim.claimName ?? '';
      if (claimName === '') return 'PersistentVolumeClaim had no name';
      // a stand-in id until the claim's volume is known
      const standIn = `${this.#prefix}-${namespace}/${claimName}`;
      const pvc = this.listers.claim(namespace, claimName);
      if (!pvc) {
        into.add(standIn);
        continue;
      }
      const pvName = (pvc.spec as { volumeName?: string } | undefined)?.volumeName ?? '';
      if (pvName === '') {
        if (this.#matchesProvisioner(pvc)) into.add(standIn);
        continue;
      }
      const pv = this.listers.volume(pvName);
      if (!pv) {
        into.add(standIn);
        continue;
      }
      const id = this.kind.id((pv.spec ?? {}) as VolumeSource);
      if (id !== undefined) into.add(id);
    }
    return undefined;
  }

  /** kube reads only spec.storageClassName here, not the beta annotation */
  #matchesProvisioner(pvc: KubeObject): boolean {
    const className = (pvc.spec as { storageClassName?: string | null } | undefined)?.storageClassName;
    if (className === undefined || className === null) return false;
    return this.listers.storageClass(className)?.provisioner === this.kind.provisioner;
  }
}

function newLimitsPlugin(kindName: string): PluginFactory {
  return (_args: unknown, handle: FrameworkHandle): Plugin => {
    const kind = VOLUME_KINDS[kindName];
    const counter = new KindCounter(kind, volumeListers(handle));
    const envLimit = maxVolumesFromEnv();
    const stateKey = `${kind.name}/volumes`;
    return {
      name: kind.name,
      filter(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result {
        if (podVolumes(pod).length === 0) return undefined;
        const mine = cachedPodVolumes(state, stateKey, () => {
          const ids = new Set<string>();
          const error = counter.add(pod, ids);
          return new PodVolumesState(new Map([...ids].map((id) => [id, kind.limitKey])), error ? new Status(Code.Error, [error]) : undefined);
        });
        if (mine.error) return mine.error;
        if (mine.volumes.size === 0) return undefined;
        const node = nodeInfo.node;
        if (!node) return new Status(Code.Error, ['node not found']);

        const existing = new Set<string>();
        for (const other of nodeInfo.pods) {
          const error = counter.add(other.pod, existing);
          if (error) return new Status(Code.Error, [error]);
        }
        let added = 0;
        for (const id of mine.volumes.keys()) if (!existing.has(id)) added++;
        const limit = nodeVolumeLimits(nodeInfo).get(kind.limitKey) ?? envLimit ?? kind.defaultLimit(node);
        if (existing.size + added > limit) return unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED);
        return undefined;
      },
    };
  };
}

export const newEBSLimits = newLimitsPlugin(EBS_LIMITS);
export const newGCEPDLimits = newLimitsPlugin(GCE_PD_LIMITS);
export const newAzureDiskLimits = newLimitsPlugin(AZURE_DISK_LIMITS);
export const newCinderLimits = newLimitsPlugin(CINDER_LIMITS);
