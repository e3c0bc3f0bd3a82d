/**
 * VolumeRestrictions (kube 1.20): a pod may not mount a disk that a pod already on the node holds
 * in a way the disk cannot share: the same GCE PD or ISCSI target unless both mount it read-only,
 * the same AWS EBS volume ever, the same RBD image (overlapping monitors, same pool) unless both
 * are read-only.
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { unschedulable, type Result } from '../../framework/status';
import type { CycleState, Plugin, PluginFactory } from '../../framework/types';
import { podVolumes, type VolumeSource } from './pod-volumes';

export const VOLUME_RESTRICTIONS = 'VolumeRestrictions';
export const ERR_REASON_DISK_CONFLICT = 'node(s) had no available disk';

const restricted = (v: VolumeSource) => !!(v.gcePersistentDisk || v.awsElasticBlockStore || v.rbd || v.iscsi);

function conflicts(v: VolumeSource, existing: VolumeSource): boolean {
  if (v.gcePersistentDisk && existing.gcePersistentDisk) {
    const a = v.gcePersistentDisk;
    const b = existing.gcePersistentDisk;
    if (a.pdName === b.pdName && !(a.readOnly && b.readOnly)) return true;
  }
  if (v.awsElasticBlockStore && existing.awsElasticBlockStore) {
    if (v.awsElasticBlockStore.volumeID === existing.awsElasticBlockStore.volumeID) return true;
  }
  if (v.iscsi && existing.iscsi) {
    if (v.iscsi.iqn === existing.iscsi.iqn && !(v.iscsi.readOnly && existing.iscsi.readOnly)) return true;
  }
  if (v.rbd && existing.rbd) {
    const a = v.rbd;
    const b = existing.rbd;
    const shareMonitor = (a.monitors ?? []).some((m) => (b.monitors ?? []).includes(m));
    if (shareMonitor && (a.pool || 'rbd') === (b.pool || 'rbd') && a.image === b.image && !(a.readOnly && b.readOnly)) return true;
  }
  return false;
}

export const newVolumeRestrictions: PluginFactory = (): Plugin => ({
  name: VOLUME_RESTRICTIONS,
  filter(_state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result {
    for (const v of podVolumes(pod)) {
      if (!restricted(v)) continue;
      for (const other of nodeInfo.pods) {
        for (const existing of podVolumes(other.pod)) {
          if (conflicts(v, existing)) return unschedulable(ERR_REASON_DISK_CONFLICT);
        }
      }
    }
    return undefined;
  },
});
