/** The deployment controller, as kube's controller manager names it. */
import type { ControllerDefinition } from '../types';
import { DeploymentController } from './deployment-controller';

export const deploymentController: ControllerDefinition = {
  name: 'deployment',
  start(ctx) {
    return new DeploymentController(ctx).run();
  },
};
