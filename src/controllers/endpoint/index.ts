/** kube's endpoint controller: the Endpoints of Services with a selector. */
import type { ControllerDefinition } from '../types';
import { EndpointsController } from './endpoints-controller';

export const endpointController: ControllerDefinition = {
  name: 'endpoint',
  start(ctx) {
    return new EndpointsController({ ctx, workers: ctx.settings.concurrentEndpointSyncs, batchPeriodMs: ctx.settings.endpointUpdatesBatchPeriodMs }).run();
  },
};
