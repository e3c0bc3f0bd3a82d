/**
 * The kinds Ballast serves: one KindDefinition per group/version/kind, in the order discovery lists
 * them. Kinds served in several versions share a storage location (CronJob in batch/v1 and v1beta1,
 * Event in core/v1 and events.k8s.io/v1).
 */
import type { KindDefinition } from '../kind';
import { controllerRevisionKind } from './apps/controllerrevision';
import { daemonSetKind } from './apps/daemonset';
import { deploymentKind } from './apps/deployment';
import { replicaSetKind } from './apps/replicaset';
import { statefulSetKind } from './apps/statefulset';
import { cronJobKind } from './batch/cronjob';
import { jobKind } from './batch/job';
import { leaseKind } from './coordination/lease';
import { configMapKind } from './core/configmap';
import { endpointsKind } from './core/endpoints';
import { coreEventKind } from './core/event';
import { limitRangeKind } from './core/limitrange';
import { namespaceKind } from './core/namespace';
import { nodeKind } from './core/node';
import { podKind } from './core/pod';
import { resourceQuotaKind } from './core/resourcequota';
import { secretKind } from './core/secret';
import { serviceKind } from './core/service';
import { serviceAccountKind } from './core/serviceaccount';
import { eventsV1Kind } from './events/event';
import { apiregistrationKinds } from './apiregistration';

export function builtinKinds(): KindDefinition[] {
  return [
    // core/v1
    namespaceKind(),
    podKind(),
    nodeKind(),
    configMapKind(),
    secretKind(),
    serviceKind(),
    serviceAccountKind(),
    coreEventKind(),
    endpointsKind(),
    limitRangeKind(),
    resourceQuotaKind(),
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
    // coordination.k8s.io/v1
    leaseKind(),
    // events.k8s.io/v1
    eventsV1Kind(),
    ...apiregistrationKinds(),
  ];
}
