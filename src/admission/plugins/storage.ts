/**
 * The storage plugins: DefaultStorageClass (a claim that names no class gets the default one),
 * StorageObjectInUseProtection (new claims and volumes carry their protection finalizer) and
 * PersistentVolumeClaimResize (a claim may grow only when its class allows volume expansion), as
 * kube's plugin/pkg/admission/storage/*. Several default classes: the newest wins (kube 1.26+).
 */
import type { KubeObject } from '../../api/kind';
import type { Admission } from '../types';
import type { AdmissionPluginContext, ResourceRef } from '../context';
import { admissionForbidden, isResource } from '../forbidden';
import { mutating, validating } from '../chain';
import { parseQuantity } from '../quantity';

const STORAGE_CLASSES: ResourceRef = { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses' };
const BETA_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** the newest of the objects marked default by `annotation` (or its beta twin) */
export function newestDefault(objects: KubeObject[], annotations: string[]): KubeObject | undefined {
  const defaults = objects.filter((o) => annotations.some((k) => o.metadata?.annotations?.[k] === 'true'));
  return defaults.sort((a, b) => {
    const ta = a.metadata?.creationTimestamp ?? '';
    const tb = b.metadata?.creationTimestamp ?? '';
    if (ta !== tb) return ta < tb ? 1 : -1;
    return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1;
  })[0];
}

export function defaultStorageClass(ctx: AdmissionPluginContext): Admission {
  return mutating(async (a) => {
    if (a.operation !== 'CREATE' || !isResource(a, '', 'persistentvolumeclaims') || !a.object) return;
    const spec = (a.object.spec ?? (a.object.spec = {})) as { storageClassName?: string | null };
    if ((spec.storageClassName !== undefined && spec.storageClassName !== null) || a.object.metadata?.annotations?.[BETA_CLASS_ANNOTATION] !== undefined) return;
    const found = newestDefault(await ctx.objects.list(STORAGE_CLASSES), ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class']);
    if (found) spec.storageClassName = found.metadata?.name;
  });
}

export function storageObjectInUseProtection(): Admission {
  return mutating((a) => {
    if (a.operation !== 'CREATE' || !a.object) return;
    const finalizer = isResource(a, '', 'persistentvolumeclaims') ? 'kubernetes.io/pvc-protection' : isResource(a, '', 'persistentvolumes') ? 'kubernetes.io/pv-protection' : undefined;
    if (!finalizer) return;
    const meta = (a.object.metadata ??= {});
    const finalizers = Array.isArray(meta.finalizers) ? meta.finalizers : [];
    if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
  });
}

function requestedStorage(pvc: KubeObject | undefined): number {
  return parseQuantity((pvc?.spec as { resources?: { requests?: Record<string, unknown> } } | undefined)?.resources?.requests?.storage) ?? 0;
}

export function persistentVolumeClaimResize(ctx: AdmissionPluginContext): Admission {
  return validating(async (a) => {
    if (a.operation !== 'UPDATE' || !isResource(a, '', 'persistentvolumeclaims') || !a.object || !a.oldObject) return;
    if (requestedStorage(a.object) <= requestedStorage(a.oldObject)) return;
    const cls = (a.oldObject.spec as { storageClassName?: string } | undefined)?.storageClassName || a.oldObject.metadata?.annotations?.[BETA_CLASS_ANNOTATION] || '';
    const sc = cls ? await ctx.objects.get(STORAGE_CLASSES, '', cls) : undefined;
    if ((sc as { allowVolumeExpansion?: boolean } | undefined)?.allowVolumeExpansion === true) return;
    throw admissionForbidden(a, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  });
}
