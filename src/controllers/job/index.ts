/** kube's `job` controller: runs Jobs' pods to completion (pkg/controller/job). */
import type { ControllerDefinition } from '../types';
import { JobController } from './job-controller';

export const jobController: ControllerDefinition = {
  name: 'job',
  start(ctx) {
    return new JobController({ ctx }).run();
  },
};
