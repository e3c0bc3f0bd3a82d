/** The statefulset controller (kube's name), with --concurrent-statefulset-syncs workers. */
import type { ControllerDefinition } from '../types';
import { StatefulSetController } from './statefulset-controller';

export const statefulSetController: ControllerDefinition = {
  name: 'statefulset',
  start(ctx) {
    return new StatefulSetController(ctx).run();
  },
};
