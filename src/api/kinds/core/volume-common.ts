/**
 * Rules PersistentVolume and PersistentVolumeClaim share: access modes, volume modes, the storage
 * class (field or beta annotation) and kube's short access-mode text (RWO,ROX,RWX,RWOP).
 */
import type { StatusCause } from '../../errors';
import type { KubeObject } from '../../kind';
import { forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';
import { arrAt, objAt, str } from '../util';

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'] as const;
export const VOLUME_MODES = ['Block', 'Filesystem'] as const;
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** kube's access mode checks: at least one (with `requiredDetail`), each known, ReadWriteOncePod alone */
export function validateAccessModes(modes: unknown, field: string, requiredDetail: string): StatusCause[] {
  const list = Array.isArray(modes) ? modes : [];
  const causes: StatusCause[] = [];
  if (list.length === 0) causes.push(required(field, requiredDetail));
  let once = false;
  let other = false;
  for (const mode of list) {
    if (!(ACCESS_MODES as readonly unknown[]).includes(mode)) causes.push(notSupported(field, mode, ACCESS_MODES));
    else if (mode === 'ReadWriteOncePod') once = true;
    else other = true;
  }
  if (once && other) causes.push(forbidden(field, 'may not use ReadWriteOncePod with other access modes'));
  return causes;
}

export function validateVolumeMode(mode: unknown, field: string): StatusCause[] {
  if (mode === undefined || mode === null) return [];
  return (VOLUME_MODES as readonly unknown[]).includes(mode) ? [] : [notSupported(field, mode, VOLUME_MODES)];
}

/** kube's ValidateClassName for a non-empty class name */
export function validateClassName(name: unknown, field: string): StatusCause[] {
  if (typeof name !== 'string' || name === '') return [];
  return isDNS1123Subdomain(name).map((msg) => invalid(field, name, msg));
}

/** kube's GetAccessModesAsString: each mode once, in a fixed order */
export function accessModesText(modes: unknown): string {
  const list = arrAt({ m: modes }, 'm');
  const out: string[] = [];
  for (const [mode, short] of [['ReadWriteOnce', 'RWO'], ['ReadOnlyMany', 'ROX'], ['ReadWriteMany', 'RWX'], ['ReadWriteOncePod', 'RWOP']]) {
    if (list.includes(mode)) out.push(short);
  }
  return out.join(',');
}

/** kube's GetPersistentVolume(Claim)Class: the beta annotation wins over spec.storageClassName */
export function storageClassOf(obj: KubeObject): string {
  const annotations = obj.metadata?.annotations;
  if (annotations && Object.hasOwn(annotations, BETA_STORAGE_CLASS_ANNOTATION)) return annotations[BETA_STORAGE_CLASS_ANNOTATION];
  return str(objAt(obj, 'spec')?.storageClassName);
}
