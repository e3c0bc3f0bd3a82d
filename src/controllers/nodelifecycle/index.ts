/**
 * The `nodelifecycle` controller: node health, condition and NoExecute taints, zone disruption,
 * and (with --enable-taint-manager, the default) the taint manager's evictions.
 */
import type { ControllerDefinition } from '../types';
import { NodeLifecycleController } from './node-lifecycle-controller';

export const nodeLifecycleController: ControllerDefinition = {
  name: 'nodelifecycle',
  start(ctx) {
    return new NodeLifecycleController({ ctx }).run();
  },
};
