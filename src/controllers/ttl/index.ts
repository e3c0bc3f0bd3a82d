/** The `ttl` controller: the node.alpha.kubernetes.io/ttl annotation by cluster size. */
import type { ControllerDefinition } from '../types';
import { TtlController } from './ttl-controller';

export const ttlController: ControllerDefinition = {
  name: 'ttl',
  start(ctx) {
    return new TtlController(ctx).run();
  },
};
