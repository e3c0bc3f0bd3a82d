/** kube's `persistentvolume-binder` controller: binding, provisioning and reclaiming volumes */
import type { ControllerDefinition } from '../../types';
import { PersistentVolumeController } from './pv-controller';

export const persistentVolumeBinderController: ControllerDefinition = {
  name: 'persistentvolume-binder',
  start(ctx) {
    return new PersistentVolumeController(ctx).run();
  },
};
