/** The disruption controller (kube's `disruption`): PodDisruptionBudget status. */
import type { ControllerDefinition } from '../types';
import { DisruptionController } from './disruption-controller';

export const disruptionController: ControllerDefinition = {
  name: 'disruption',
  start(ctx) {
    return new DisruptionController(ctx).run();
  },
};
