/**
 * DeleteOptions rules shared by delete and deletecollection: kube's ValidateDeleteOptions,
 * BeforeDelete's preconditions and grace period, and the garbage-collection finalizers
 * (deletionFinalizersForGarbageCollection).
 */
import { errors } from '../errors';
import type { StatusCause } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { DeleteOptions } from './types';
import { invalidOptions } from './resource-version';
import { kindOptions } from './context';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** kube's ValidateDeleteOptions (422 Invalid DeleteOptions.meta.k8s.io) */
export function validateDeleteOptions(o: DeleteOptions): void {
  const causes: StatusCause[] = [];
  const policy = o.propagationPolicy;
  if (o.orphanDependents !== undefined && policy !== undefined) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`, field: 'propagationPolicy' });
  }
  if (policy !== undefined && policy !== 'Foreground' && policy !== 'Background' && policy !== 'Orphan') {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
      field: 'propagationPolicy',
    });
  }
  if (causes.length) throw invalidOptions('DeleteOptions', causes);
}

/** BeforeDelete's early precondition check; kube names the Kind where a resource usually stands */
export function checkDeletePreconditions(kind: KindDefinition, obj: KubeObject, o: DeleteOptions): void {
  const pre = o.preconditions;
  if (!pre) return;
  const meta = obj.metadata ?? {};
  const qr = { group: kind.group, resource: kind.kind };
  if (pre.uid !== undefined && pre.uid !== meta.uid) {
    throw errors.conflict(
      qr,
      meta.name ?? '',
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw errors.conflict(
      qr,
      meta.name ?? '',
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion ?? ''}). The object might have been modified`,
    );
  }
}

function shouldOrphan(kind: KindDefinition, finalizers: string[], o: DeleteOptions): boolean {
  if (o.orphanDependents !== undefined) return o.orphanDependents;
  if (o.propagationPolicy === 'Orphan') return true;
  if (o.propagationPolicy === 'Background' || o.propagationPolicy === 'Foreground') return false;
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_FOREGROUND) return false;
  }
  return kind.defaultGarbageCollectionPolicy === 'Orphan';
}

function shouldForeground(finalizers: string[], o: DeleteOptions): boolean {
  if (o.orphanDependents !== undefined) return false;
  if (o.propagationPolicy === 'Foreground') return true;
  if (o.propagationPolicy === 'Background' || o.propagationPolicy === 'Orphan') return false;
  for (const f of finalizers) {
    if (f === FINALIZER_FOREGROUND) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/**
 * the finalizers the object should carry for the requested propagation: `orphan` for Orphan /
 * orphanDependents=true, `foregroundDeletion` for Foreground, the other one removed
 */
export function gcFinalizers(kind: KindDefinition, obj: KubeObject, o: DeleteOptions): { changed: boolean; finalizers: string[] } {
  const existing = obj.metadata?.finalizers ?? [];
  const next = existing.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphan(kind, existing, o)) next.push(FINALIZER_ORPHAN);
  if (shouldForeground(existing, o)) next.push(FINALIZER_FOREGROUND);
  const a = new Set(existing);
  const b = new Set(next);
  const changed = a.size !== b.size || [...a].some((f) => !b.has(f));
  return { changed, finalizers: changed ? next : existing };
}

/** kinds whose DELETE answers with the object (kube's ReturnDeletedObject), unless the kind says */
const RETURNS_DELETED_OBJECT = new Set(['/pods', '/namespaces', '/services', 'apiextensions.k8s.io/customresourcedefinitions']);

export function returnsDeletedObject(kind: KindDefinition): boolean {
  return kindOptions(kind).returnDeletedObject ?? RETURNS_DELETED_OBJECT.has(`${kind.storage.group}/${kind.storage.resource}`);
}
