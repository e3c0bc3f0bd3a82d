/** The daemonset controller (kube's name). */
import type { ControllerDefinition } from '../types';
import { DaemonSetController } from './daemonset-controller';

export const daemonSetController: ControllerDefinition = {
  name: 'daemonset',
  start(ctx) {
    return new DaemonSetController(ctx).run();
  },
};
