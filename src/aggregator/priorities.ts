/**
 * The discovery priorities kube-apiserver gives its own group/versions when it registers their
 * local APIServices (kube's apiVersionPriorities table, cmd/kube-apiserver/app/aggregator.go, as of
 * 1.20 and 1.32: the union, so versions served only by one of them keep their place), and the
 * fixed ones of custom resources (kube's crdregistration controller) and of apiregistration itself.
 */

export interface Priority {
  /** APIServiceSpec.groupPriorityMinimum */
  group: number;
  /** APIServiceSpec.versionPriority */
  version: number;
}

/** kube's priority of every custom resource group/version: low, below every built-in group */
export const CUSTOM_RESOURCE_PRIORITY: Priority = Object.freeze({ group: 1000, version: 100 });

/**
 * apiregistration.k8s.io has no APIService of its own: kube's aggregator lists it first in /apis,
 * and aggregated discovery gives it 20001, above the largest priority an APIService may have
 */
export const APIREGISTRATION_PRIORITY: Priority = Object.freeze({ group: 20001, version: 0 });

const TABLE: Record<string, [number, number]> = {
  'v1': [18000, 1],
  'extensions/v1beta1': [17900, 1],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'events.k8s.io/v1beta1': [17750, 5],
  'authentication.k8s.io/v1': [17700, 15],
  'authentication.k8s.io/v1beta1': [17700, 9],
  'authentication.k8s.io/v1alpha1': [17700, 1],
  'authorization.k8s.io/v1': [17600, 15],
  'authorization.k8s.io/v1beta1': [17600, 9],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'autoscaling/v2beta1': [17500, 9],
  'autoscaling/v2beta2': [17500, 1],
  'batch/v1': [17400, 15],
  'batch/v1beta1': [17400, 9],
  'batch/v2alpha1': [17400, 9],
  'certificates.k8s.io/v1': [17300, 15],
  'certificates.k8s.io/v1beta1': [17300, 9],
  'certificates.k8s.io/v1alpha1': [17300, 1],
  'networking.k8s.io/v1': [17200, 15],
  'networking.k8s.io/v1beta1': [17200, 9],
  'networking.k8s.io/v1alpha1': [17200, 1],
  'policy/v1': [17100, 15],
  'policy/v1beta1': [17100, 9],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'rbac.authorization.k8s.io/v1beta1': [17000, 12],
  'rbac.authorization.k8s.io/v1alpha1': [17000, 9],
  'settings.k8s.io/v1alpha1': [16900, 9],
  'storage.k8s.io/v1': [16800, 15],
  'storage.k8s.io/v1beta1': [16800, 9],
  'storage.k8s.io/v1alpha1': [16800, 1],
  'apiextensions.k8s.io/v1': [16700, 15],
  'apiextensions.k8s.io/v1beta1': [16700, 9],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'admissionregistration.k8s.io/v1beta1': [16700, 12],
  'admissionregistration.k8s.io/v1alpha1': [16700, 9],
  'scheduling.k8s.io/v1': [16600, 15],
  'scheduling.k8s.io/v1beta1': [16600, 12],
  'scheduling.k8s.io/v1alpha1': [16600, 9],
  'coordination.k8s.io/v1': [16500, 15],
  'coordination.k8s.io/v1beta1': [16500, 13],
  'coordination.k8s.io/v1alpha2': [16500, 12],
  'node.k8s.io/v1': [16300, 15],
  'node.k8s.io/v1beta1': [16300, 9],
  'node.k8s.io/v1alpha1': [16300, 1],
  'discovery.k8s.io/v1': [16200, 15],
  'discovery.k8s.io/v1beta1': [16200, 12],
  'discovery.k8s.io/v1alpha1': [16200, 9],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  'flowcontrol.apiserver.k8s.io/v1beta3': [16100, 18],
  'flowcontrol.apiserver.k8s.io/v1beta2': [16100, 15],
  'flowcontrol.apiserver.k8s.io/v1beta1': [16100, 12],
  'flowcontrol.apiserver.k8s.io/v1alpha1': [16100, 9],
  'internal.apiserver.k8s.io/v1alpha1': [16000, 9],
  'resource.k8s.io/v1alpha3': [15900, 9],
  'storagemigration.k8s.io/v1alpha1': [15800, 9],
};

/** kube's priority of a built-in group/version; undefined for one kube's table lacks (kube then registers no APIService) */
export function builtinPriority(group: string, version: string): Priority | undefined {
  const entry = TABLE[group ? `${group}/${version}` : version];
  return entry && { group: entry[0], version: entry[1] };
}
