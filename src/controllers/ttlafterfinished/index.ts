/**
 * kube's `ttl-after-finished` controller. kube 1.20 starts it only with the TTLAfterFinished
 * feature gate (alpha, off by default); the controller context carries no feature gates, so the
 * manager starts it whenever `--controllers` enables it.
 */
import type { ControllerDefinition } from '../types';
import { TtlAfterFinishedController } from './ttl-after-finished-controller';

export const ttlAfterFinishedController: ControllerDefinition = {
  name: 'ttl-after-finished',
  start(ctx) {
    return new TtlAfterFinishedController({ ctx }).run();
  },
};
