/**
 * The kinds Ballast serves: one KindDefinition per group/version/kind, in the order discovery lists
 * them.
 */
import type { KindDefinition } from '../kind';
import { controllerRevisionKind } from './apps/controllerrevision';
import { daemonSetKind } from './apps/daemonset';
import { deploymentKind } from './apps/deployment';
import { replicaSetKind } from './apps/replicaset';
import { statefulSetKind } from './apps/statefulset';
import { cronJobKind } from './batch/cronjob';
import { jobKind } from './batch/job';
import { configMapKind } from './core/configmap';
import { namespaceKind } from './core/namespace';
import { podKind } from './core/pod';

export function builtinKinds(): KindDefinition[] {
  return [
    // core/v1
    namespaceKind(),
    podKind(),
    configMapKind(),
    // apps/v1
    deploymentKind(),
    daemonSetKind(),
    replicaSetKind(),
    statefulSetKind(),
    controllerRevisionKind(),
    // batch/v1 and batch/v1beta1
    jobKind(),
    cronJobKind('v1'),
    cronJobKind('v1beta1'),
  ];
}
