/**
 * storage.k8s.io: CSIDriver, CSINode, CSIStorageCapacity, StorageClass and VolumeAttachment in v1
 * (the storage version of each) and v1beta1; CSIStorageCapacity and VolumeAttachment in v1alpha1.
 * Per version in kube's discovery order (alphabetical by resource).
 */
import type { KindDefinition } from '../../kind';
import { csiDriverKind } from './csidriver';
import { csiNodeKind } from './csinode';
import { csiStorageCapacityKind } from './csistoragecapacity';
import { storageClassKind } from './storageclass';
import { volumeAttachmentKind } from './volumeattachment';

export function storageKinds(): KindDefinition[] {
  const out: KindDefinition[] = [];
  for (const version of ['v1', 'v1beta1'] as const) {
    out.push(csiDriverKind(version), csiNodeKind(version), csiStorageCapacityKind(version), storageClassKind(version), volumeAttachmentKind(version));
  }
  out.push(csiStorageCapacityKind('v1alpha1'), volumeAttachmentKind('v1alpha1'));
  return out;
}
