/** kube's `cronjob` controller: starts Jobs on CronJobs' schedules (pkg/controller/cronjob, v1). */
import type { ControllerDefinition } from '../types';
import { CronJobController } from './cronjob-controller';

export const cronJobController: ControllerDefinition = {
  name: 'cronjob',
  start(ctx) {
    return new CronJobController({ ctx }).run();
  },
};
