/**
 * The definition name kube's OpenAPI document uses for a group/version/kind:
 * ('apps', 'v1', 'Deployment') -> 'io.k8s.api.apps.v1.Deployment'.
 */

/** groups whose Go package is not simply the first label of the group name */
const PACKAGE_PREFIX: Record<string, string> = {
  'meta.k8s.io': 'io.k8s.apimachinery.pkg.apis.meta',
  'apiextensions.k8s.io': 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions',
  'apiregistration.k8s.io': 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
  'internal.apiserver.k8s.io': 'io.k8s.api.apiserverinternal',
};

export function definitionName(group: string, version: string, kind: string): string {
  if (group === '') return `io.k8s.api.core.${version}.${kind}`;
  const prefix = PACKAGE_PREFIX[group];
  if (prefix) return `${prefix}.${version}.${kind}`;
  // built-in groups: apps, batch, policy, autoscaling, and <name>[.<sub>].k8s.io -> io.k8s.api.<name>
  if (!group.includes('.') || group.endsWith('.k8s.io')) return `io.k8s.api.${group.split('.')[0]}.${version}.${kind}`;
  // other groups (custom resources) are named by the reversed domain, as kube does for CRDs
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}
