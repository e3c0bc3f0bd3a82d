/**
 * The kinds Ballast serves: one KindDefinition per group/version/kind, in the order discovery lists
 * them. Kinds served in several versions share a storage location (CronJob in batch/v1 and v1beta1,
 * Event in core/v1 and events.k8s.io/v1).
 */
import type { ServiceAllocator } from './core/service-allocation';
import type { KindDefinition } from '../kind';
import { controllerRevisionKind } from './apps/controllerrevision';
import { daemonSetKind } from './apps/daemonset';
import { deploymentKind } from './apps/deployment';
import { replicaSetKind } from './apps/replicaset';
import { statefulSetKind } from './apps/statefulset';
import { autoscalingKinds } from './autoscaling/index';
import { cronJobKind } from './batch/cronjob';
import { jobKind } from './batch/job';
import { leaseKind } from './coordination/lease';
import { configMapKind } from './core/configmap';
import { endpointsKind } from './core/endpoints';
import { coreEventKind } from './core/event';
import { bindingKind } from './core/binding';
import { componentStatusKind } from './core/componentstatus';
import { persistentVolumeKind } from './core/persistentvolume';
import { persistentVolumeClaimKind } from './core/persistentvolumeclaim';
import { podTemplateKind } from './core/podtemplate';
import { replicationControllerKind } from './core/replicationcontroller';
import { limitRangeKind } from './core/limitrange';
import { namespaceKind } from './core/namespace';
import { nodeKind } from './core/node';
import { podKind } from './core/pod';
import { resourceQuotaKind } from './core/resourcequota';
import { secretKind } from './core/secret';
import { serviceKind } from './core/service';
import { serviceAccountKind } from './core/serviceaccount';
import { eventsV1Kind } from './events/event';
import { rbacKinds } from './rbac/index';
import { admissionRegistrationKinds } from './admissionregistration/index';
import { certificatesKinds } from './certificates/index';
import { policyKinds } from './policy';
import { discoveryKinds } from './discovery';
import { extensionsKinds, networkingKinds } from './networking';
import { nodeKinds } from './node';
import { schedulingKinds } from './scheduling';
import { storageKinds } from './storage';
import { eventsV1beta1Kind } from './events/event-v1beta1';
import { flowcontrolKinds } from './flowcontrol/index';
import { apiserverInternalKinds } from './apiserverinternal/index';
import { apiextensionsKinds } from '../crd/crd-kinds';
import { apiregistrationKinds } from './apiregistration';
import { disallowPrivileged } from './core/privileged';

export interface BuiltinKindOptions {
  /** where Services get cluster IPs and node ports (default: derived from a hash of their name) */
  serviceAllocator?: ServiceAllocator;
  /** --allow-privileged; false refuses privileged containers in pods and pod templates (default: allowed) */
  allowPrivileged?: boolean;
}

export function builtinKinds(opts: BuiltinKindOptions = {}): KindDefinition[] {
  const kinds = [
    // core/v1
    namespaceKind(),
    podKind(),
    nodeKind(),
    configMapKind(),
    secretKind(),
    serviceKind(opts.serviceAllocator),
    serviceAccountKind(),
    coreEventKind(),
    endpointsKind(),
    limitRangeKind(),
    resourceQuotaKind(),
    persistentVolumeKind(),
    persistentVolumeClaimKind(),
    replicationControllerKind(),
    podTemplateKind(),
    componentStatusKind(),
    bindingKind(),
    // apiregistration.k8s.io/v1 and v1beta1: first of the named groups, as kube lists them
    ...apiregistrationKinds(),
    // extensions/v1beta1 (Ingress only): second in kube's group order, as kube keeps it for kubectl
    ...extensionsKinds(),
    // apps/v1
    deploymentKind(),
    daemonSetKind(),
    replicaSetKind(),
    statefulSetKind(),
    controllerRevisionKind(),
    // autoscaling/v2, v1, v2beta2, v2beta1
    ...autoscalingKinds(),
    // batch/v1, batch/v1beta1 and batch/v2alpha1
    jobKind(),
    cronJobKind('v1'),
    cronJobKind('v1beta1'),
    cronJobKind('v2alpha1'),
    // policy/v1 and policy/v1beta1
    ...policyKinds(),
    ...networkingKinds(),
    ...storageKinds(),
    ...schedulingKinds(),
    // coordination.k8s.io/v1 and v1beta1
    leaseKind(),
    leaseKind('v1beta1'),
    ...nodeKinds(),
    ...discoveryKinds(),
    // events.k8s.io/v1 and v1beta1
    eventsV1Kind(),
    eventsV1beta1Kind(),
    ...rbacKinds(),
    ...admissionRegistrationKinds(),
    ...certificatesKinds(),
    // apiextensions.k8s.io/v1 and v1beta1
    ...apiextensionsKinds(),
    // flowcontrol.apiserver.k8s.io/v1, v1beta3, v1beta2, v1beta1, v1alpha1
    ...flowcontrolKinds(),
    // internal.apiserver.k8s.io/v1alpha1
    ...apiserverInternalKinds(),
  ];
  return opts.allowPrivileged === false ? disallowPrivileged(kinds) : kinds;
}
