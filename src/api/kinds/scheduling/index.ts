/** scheduling.k8s.io: PriorityClass in v1 (the storage version), v1beta1 and v1alpha1. */
import type { KindDefinition } from '../../kind';
import { priorityClassKind } from './priorityclass';

export function schedulingKinds(): KindDefinition[] {
  return [priorityClassKind('v1'), priorityClassKind('v1beta1'), priorityClassKind('v1alpha1')];
}

export { systemPriorityClassObjects } from './system-priority-classes';
