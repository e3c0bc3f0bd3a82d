/** internal.apiserver.k8s.io: StorageVersion (alpha) */
import type { KindDefinition } from '../../kind';
import { storageVersionKind } from './storageversion';

export function apiserverInternalKinds(): KindDefinition[] {
  return [storageVersionKind()];
}
