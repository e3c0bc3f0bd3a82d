/**
 * Choosing a volume for a claim, as kube 1.20's persistentvolume controller does (its volume index,
 * findBestMatchForClaim and checkVolumeSatisfyClaim): pure functions over the objects of the stores.
 */
import { labelSelectorFromObject, type LabelSelectorObject } from '../../../api/selectors/label-selector';
import type { KubeObject } from '../../../client/types';
import { claimClass, claimSpec, isVolumeBoundToClaim, requestedStorage, volumeCapacity, volumeClass, volumeSpec } from '../volume-util';

const modeOf = (mode: string | undefined) => mode || 'Filesystem';

/** the claim's and the volume's volumeMode differ (both default to Filesystem) */
export function volumeModeMismatch(pv: KubeObject, pvc: KubeObject): boolean {
  return modeOf(volumeSpec(pv).volumeMode) !== modeOf(claimSpec(pvc).volumeMode);
}

/** every access mode the claim asks for is one the volume offers */
export function accessModesContained(volumeModes: readonly string[], claimModes: readonly string[]): boolean {
  return claimModes.every((m) => volumeModes.includes(m));
}

function selectorMatches(pvc: KubeObject, pv: KubeObject): boolean {
  const selector = claimSpec(pvc).selector;
  if (!selector) return true;
  try {
    return labelSelectorFromObject(selector as LabelSelectorObject).matches(pv.metadata?.labels ?? {});
  } catch {
    return false;
  }
}

/**
 * The volume to bind a claim to, or undefined. A volume pre-bound to the claim (its claimRef names
 * it) wins if it is large enough and of the claim's class and mode. Otherwise only free volumes
 * count, and with delayed binding (WaitForFirstConsumer) none: the consumer's node decides. Kube
 * groups volumes by their access modes and tries the smallest sets that hold the claim's modes
 * first; inside a set, the smallest volume that is large enough wins.
 */
export function findBestMatch(volumes: readonly KubeObject[], pvc: KubeObject, delayBinding: boolean): KubeObject | undefined {
  const requested = requestedStorage(pvc);
  const wantedClass = claimClass(pvc);
  const wantedModes = claimSpec(pvc).accessModes ?? [];
  const candidates: KubeObject[] = [];
  for (const pv of volumes) {
    if (pv.metadata?.deletionTimestamp) continue;
    if (volumeModeMismatch(pv, pvc)) continue;
    const spec = volumeSpec(pv);
    if (isVolumeBoundToClaim(pv, pvc)) {
      // pre-bound by the user (or already ours): no other volume is considered
      if (volumeCapacity(pv) < requested || volumeClass(pv) !== wantedClass) continue;
      return pv;
    }
    if (delayBinding) continue;
    if (spec.claimRef) continue;
    if (!selectorMatches(pvc, pv)) continue;
    if (volumeClass(pv) !== wantedClass) continue;
    if (!accessModesContained(spec.accessModes ?? [], wantedModes)) continue;
    if (volumeCapacity(pv) < requested) continue;
    candidates.push(pv);
  }
  candidates.sort((a, b) => {
    const modes = (volumeSpec(a).accessModes ?? []).length - (volumeSpec(b).accessModes ?? []).length;
    return modes || volumeCapacity(a) - volumeCapacity(b) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
  });
  return candidates[0];
}

/** why a volume the claim names in spec.volumeName cannot be bound to it (kube's checkVolumeSatisfyClaim) */
export function volumeMismatch(pv: KubeObject, pvc: KubeObject): string | undefined {
  if (volumeCapacity(pv) < requestedStorage(pvc)) return 'requested PV is too small';
  if (volumeClass(pv) !== claimClass(pvc)) return 'storageClassName does not match';
  if (volumeModeMismatch(pv, pvc)) return 'incompatible volumeMode';
  return undefined;
}

/** kube's CalculateTimeoutForVolume: the recycler's deadline grows with the volume's size in whole GiB */
export function recyclerTimeoutSeconds(pv: KubeObject, minimum: number, increment: number): number {
  const timeout = Math.floor(volumeCapacity(pv) / 2 ** 30) * increment;
  return timeout < minimum ? minimum : timeout;
}
