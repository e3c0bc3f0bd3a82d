/**
 * What the volume controllers share: kube's annotation and finalizer names, and reading claims,
 * volumes and pods as plain objects (pkg/controller/volume/persistentvolume/util and
 * pkg/volume/util in kube 1.20).
 */
import { parseQuantity } from '../../api/kinds/core/quantity';
import type { KubeObject } from '../../client/types';

export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';
export const ANN_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';
export const ANN_BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

/** the pods index the volume controllers share: `namespace/claimName` for each claim a pod mounts */
export const POD_CLAIM_INDEX = 'volumeClaim';

export interface ClaimRef {
  kind?: string;
  apiVersion?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface VolumeSpec {
  capacity?: Record<string, unknown>;
  accessModes?: string[];
  claimRef?: ClaimRef | null;
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  volumeMode?: string;
  hostPath?: { path?: string; type?: string };
  csi?: { driver?: string };
  mountOptions?: string[];
  [field: string]: unknown;
}

export interface ClaimSpec {
  accessModes?: string[];
  resources?: { requests?: Record<string, unknown> };
  storageClassName?: string | null;
  volumeMode?: string;
  volumeName?: string;
  selector?: { matchLabels?: Record<string, string>; matchExpressions?: unknown[] } | null;
}

export const volumeSpec = (pv: KubeObject): VolumeSpec => (pv.spec ?? {}) as VolumeSpec;
export const claimSpec = (pvc: KubeObject): ClaimSpec => (pvc.spec ?? {}) as ClaimSpec;
export const phaseOf = (obj: KubeObject): string | undefined => (obj.status as { phase?: string } | undefined)?.phase;
export const annotation = (obj: KubeObject, name: string): string | undefined => obj.metadata?.annotations?.[name];
export const hasAnnotation = (obj: KubeObject, name: string): boolean => annotation(obj, name) !== undefined;

/** `namespace/name` of a claim, the key of the claim queue */
export const claimKey = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;

/** the claim's class: the beta annotation wins over spec.storageClassName (kube's GetPersistentVolumeClaimClass) */
export function claimClass(pvc: KubeObject): string {
  return annotation(pvc, ANN_BETA_STORAGE_CLASS) ?? claimSpec(pvc).storageClassName ?? '';
}

/** the volume's class, read the same way (kube's GetPersistentVolumeClass) */
export function volumeClass(pv: KubeObject): string {
  return annotation(pv, ANN_BETA_STORAGE_CLASS) ?? volumeSpec(pv).storageClassName ?? '';
}

/** bytes of a quantity in a resource list; 0 when absent */
export function storageOf(list: Record<string, unknown> | undefined): number {
  return parseQuantity(list?.storage) ?? 0;
}

export const requestedStorage = (pvc: KubeObject): number => storageOf(claimSpec(pvc).resources?.requests);
export const volumeCapacity = (pv: KubeObject): number => storageOf(volumeSpec(pv).capacity);

/** the claim a volume's claimRef names, `namespace/name` */
export function claimRefKey(pv: KubeObject): string | undefined {
  const ref = volumeSpec(pv).claimRef;
  return ref ? claimKey(ref.namespace, ref.name) : undefined;
}

/** kube's IsVolumeBoundToClaim: the claimRef names the claim, and its uid (when set) is the claim's */
export function isVolumeBoundToClaim(pv: KubeObject, pvc: KubeObject): boolean {
  const ref = volumeSpec(pv).claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata?.name || ref.namespace !== pvc.metadata?.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata?.uid;
}

/** the claims a pod mounts, as `namespace/name` (kube's pvc index of pods) */
export function podClaimKeys(pod: KubeObject): string[] {
  const volumes = ((pod.spec as { volumes?: { persistentVolumeClaim?: { claimName?: string } }[] } | undefined)?.volumes ?? []);
  return volumes.flatMap((v) => (v.persistentVolumeClaim?.claimName ? [claimKey(pod.metadata?.namespace, v.persistentVolumeClaim.claimName)] : []));
}

export const podNodeName = (pod: KubeObject): string => (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? '';

/** a pod that ended (Succeeded or Failed) no longer uses its volumes */
export function podIsTerminated(pod: KubeObject): boolean {
  const phase = phaseOf(pod);
  return phase === 'Succeeded' || phase === 'Failed';
}

/** a deep copy, to change an object read from an informer's store */
export const copyOf = <T>(obj: T): T => structuredClone(obj);

export function withAnnotation<T extends KubeObject>(obj: T, name: string, value: string): T {
  obj.metadata = { ...obj.metadata, annotations: { ...obj.metadata?.annotations, [name]: value } };
  return obj;
}
