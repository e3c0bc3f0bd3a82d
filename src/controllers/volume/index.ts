/** kube's volume controllers: the binder, the two protection controllers, the expander */
export { persistentVolumeBinderController } from './binder';
export { persistentVolumeExpanderController } from './expand-controller';
export { pvProtectionController, pvcProtectionController } from './protection';
