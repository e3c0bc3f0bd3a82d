/** kube 1.20's volume plugins, by name, for the scheduler's registry */
import type { PluginFactory } from '../../framework/types';
import { NODE_VOLUME_LIMITS, newNodeVolumeLimits } from './node-volume-limits';
import {
  AZURE_DISK_LIMITS, CINDER_LIMITS, EBS_LIMITS, GCE_PD_LIMITS, newAzureDiskLimits, newCinderLimits, newEBSLimits, newGCEPDLimits,
} from './non-csi-limits';
import { VOLUME_BINDING, newVolumeBinding } from './volume-binding';
import { VOLUME_RESTRICTIONS, newVolumeRestrictions } from './volume-restrictions';
import { VOLUME_ZONE, newVolumeZone } from './volume-zone';

export const VOLUME_PLUGINS: Record<string, PluginFactory> = {
  [VOLUME_BINDING]: newVolumeBinding,
  [VOLUME_RESTRICTIONS]: newVolumeRestrictions,
  [VOLUME_ZONE]: newVolumeZone,
  [NODE_VOLUME_LIMITS]: newNodeVolumeLimits,
  [EBS_LIMITS]: newEBSLimits,
  [GCE_PD_LIMITS]: newGCEPDLimits,
  [AZURE_DISK_LIMITS]: newAzureDiskLimits,
  [CINDER_LIMITS]: newCinderLimits,
};

export {
  AZURE_DISK_LIMITS, CINDER_LIMITS, EBS_LIMITS, GCE_PD_LIMITS, NODE_VOLUME_LIMITS, VOLUME_BINDING, VOLUME_RESTRICTIONS, VOLUME_ZONE,
};
