/** node.k8s.io: RuntimeClass in v1 (the storage version), v1beta1 and v1alpha1. */
import type { KindDefinition } from '../../kind';
import { runtimeClassKind } from './runtimeclass';

export function nodeKinds(): KindDefinition[] {
  return [runtimeClassKind('v1'), runtimeClassKind('v1beta1'), runtimeClassKind('v1alpha1')];
}
