/** The resourcequota controller (kube's `resourcequota`): quota status from the namespace's objects. */
import type { ControllerDefinition } from '../types';
import { ResourceQuotaController } from './resource-quota-controller';

export const resourceQuotaController: ControllerDefinition = {
  name: 'resourcequota',
  start(ctx) {
    return new ResourceQuotaController(ctx).run();
  },
};
