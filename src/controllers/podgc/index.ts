/** The `podgc` controller: terminated pods beyond the threshold, pods of deleted nodes, unscheduled terminating pods. */
import type { ControllerDefinition } from '../types';
import { PodGcController } from './pod-gc-controller';

export const podGcController: ControllerDefinition = {
  name: 'podgc',
  start(ctx) {
    return new PodGcController({ ctx }).run();
  },
};
