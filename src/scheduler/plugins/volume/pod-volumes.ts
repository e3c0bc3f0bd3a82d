/**
 * The volume sources the volume plugins read from pods and PersistentVolumes (core/v1 Volume and
 * PersistentVolumeSource), as plain objects.
 */
import type { KubeObject } from '../../../client/types';
import { podSpec } from '../../framework/resource';

export interface VolumeSource {
  name?: string;
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean } | null;
  gcePersistentDisk?: { pdName?: string; readOnly?: boolean } | null;
  awsElasticBlockStore?: { volumeID?: string; readOnly?: boolean } | null;
  rbd?: { monitors?: string[]; pool?: string; image?: string; readOnly?: boolean } | null;
  iscsi?: { iqn?: string; readOnly?: boolean } | null;
  azureDisk?: { diskName?: string } | null;
  cinder?: { volumeID?: string } | null;
  csi?: { driver?: string; volumeHandle?: string } | null;
}

const NO_VOLUMES: readonly VolumeSource[] = [];

export function podVolumes(pod: KubeObject): readonly VolumeSource[] {
  return ((podSpec(pod) as { volumes?: VolumeSource[] }).volumes ?? NO_VOLUMES);
}

/** a PersistentVolume's spec read as a volume source */
export function pvSource(pv: KubeObject): VolumeSource {
  return (pv.spec ?? {}) as VolumeSource;
}
