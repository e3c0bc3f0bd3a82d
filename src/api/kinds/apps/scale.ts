/** the scale subresource shared by Deployment, ReplicaSet and StatefulSet */
import type { ScaleDefinition } from '../../kind';
import { selectorString } from '../label-selector';
import { ensureObj, objAt } from '../util';

export const replicasScale: ScaleDefinition = {
  getSpecReplicas(obj) {
    const r = objAt(obj, 'spec')?.replicas;
    return typeof r === 'number' ? r : 1;
  },
  setSpecReplicas(obj, replicas) {
    ensureObj(obj, 'spec').replicas = replicas;
  },
  getStatusReplicas(obj) {
    const r = objAt(obj, 'status')?.replicas;
    return typeof r === 'number' ? r : 0;
  },
  getSelector(obj) {
    return selectorString(objAt(obj, 'spec')?.selector);
  },
};
