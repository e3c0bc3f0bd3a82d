/**
 * What the volume-count filters share (kube 1.20's nodevolumelimits/utils.go): the failure reason,
 * the node's attach limits from its allocatable `attachable-volumes-*` resources, and a per-cycle
 * cache of the new pod's volumes (they do not depend on the node).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { NodeInfo } from '../../framework/node-info';
import type { Status } from '../../framework/status';
import type { CycleState, StateData } from '../../framework/types';

export const ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED = 'node(s) exceed max volume count';

export const CSI_ATTACH_LIMIT_PREFIX = 'attachable-volumes-csi-';
const RESOURCE_NAME_LENGTH_LIMIT = 63;

/** kube's GetCSIAttachLimitKey: long driver names are cut to 23 characters plus 16 hex of their SHA-1 */
export function csiAttachLimitKey(driverName: string): string {
  if (CSI_ATTACH_LIMIT_PREFIX.length + driverName.length >= RESOURCE_NAME_LENGTH_LIMIT) {
    const hashed = createHash('sha1').update(driverName).digest('hex').slice(0, 16);
    return CSI_ATTACH_LIMIT_PREFIX + driverName.slice(0, 23) + hashed;
  }
  return CSI_ATTACH_LIMIT_PREFIX + driverName;
}

/** kube's volumeLimits: the node's allocatable attachable-volumes-* resources */
export function nodeVolumeLimits(nodeInfo: NodeInfo): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, value] of nodeInfo.allocatable.scalar) if (name.startsWith('attachable-volumes-')) out.set(name, value);
  return out;
}

/** kube's random prefix that keeps a claim's stand-in volume id apart from real ids (rand.String(32)) */
export function randomVolumeIdPrefix(): string {
  return randomBytes(16).toString('hex');
}

/** the new pod's volumes for one cycle: unique id -> limit key, or the error reading them gave */
export class PodVolumesState implements StateData {
  constructor(readonly volumes: ReadonlyMap<string, string>, readonly error?: Status) {}
  clone(): StateData {
    return this;
  }
}

export function cachedPodVolumes(state: CycleState, key: string, compute: () => PodVolumesState): PodVolumesState {
  let s = state.read<PodVolumesState>(key);
  if (!s) state.write(key, (s = compute()));
  return s;
}
