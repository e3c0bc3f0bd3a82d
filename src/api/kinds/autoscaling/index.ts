/** the autoscaling group's kinds, versions in kube's preference order (autoscaling/v1 Scale is a subresource elsewhere) */
import type { KindDefinition } from '../../kind';
import { horizontalPodAutoscalerKind } from './horizontalpodautoscaler';

export function autoscalingKinds(): KindDefinition[] {
  return [
    horizontalPodAutoscalerKind('v2'),
    horizontalPodAutoscalerKind('v1'),
    horizontalPodAutoscalerKind('v2beta2'),
    horizontalPodAutoscalerKind('v2beta1'),
  ];
}
