/** kube's endpointslice controller: the EndpointSlices of Services with a selector. */
import type { ControllerDefinition } from '../types';
import { EndpointSliceController } from './endpointslice-controller';

export const endpointSliceController: ControllerDefinition = {
  name: 'endpointslice',
  start(ctx) {
    return new EndpointSliceController({
      ctx,
      workers: ctx.settings.concurrentServiceEndpointSyncs,
      batchPeriodMs: ctx.settings.endpointSliceUpdatesBatchPeriodMs,
      maxEndpointsPerSlice: ctx.settings.maxEndpointsPerSlice,
    }).run();
  },
};
