/** The horizontalpodautoscaling controller (kube's `horizontalpodautoscaling`). */
import type { ControllerDefinition } from '../types';
import { HorizontalController } from './horizontal-controller';

export const horizontalPodAutoscalerController: ControllerDefinition = {
  name: 'horizontalpodautoscaling',
  start(ctx) {
    return new HorizontalController(ctx).run();
  },
};
