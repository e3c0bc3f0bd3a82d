/** kube's endpointslicemirroring controller: slices for the Endpoints of Services without a selector. */
import type { ControllerDefinition } from '../types';
import { EndpointSliceMirroringController } from './mirroring-controller';

export const endpointSliceMirroringController: ControllerDefinition = {
  name: 'endpointslicemirroring',
  start(ctx) {
    return new EndpointSliceMirroringController({
      ctx,
      workers: ctx.settings.mirroringConcurrentServiceEndpointSyncs,
      batchPeriodMs: ctx.settings.mirroringEndpointSliceUpdatesBatchPeriodMs,
      maxEndpointsPerSubset: ctx.settings.mirroringMaxEndpointsPerSubset,
    }).run();
  },
};
