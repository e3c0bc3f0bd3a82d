/** The disruption controller (kube's `disruption`): PodDisruptionBudget status. */
import { EventRecorder } from '../../client/events';
import type { ControllerDefinition } from '../types';
import { DisruptionController } from './disruption-controller';

export const disruptionController: ControllerDefinition = {
  name: 'disruption',
  start(ctx) {
    // kube's disruption controller records its events as `controllermanager`
    const recorder = new EventRecorder(ctx.client, { component: 'controllermanager' }, ctx.logger);
    return new DisruptionController({ ...ctx, recorder }).run();
  },
};
