/**
 * Which node labels a node may set on itself (kube's NodeRestriction getForbiddenLabels and the
 * kubelet's well-known labels, k8s.io/kubelet/pkg/apis): nothing under node-restriction.kubernetes.io/,
 * and under kubernetes.io/ and k8s.io/ only the labels a kubelet sets.
 */
import { inDomain, isKubeletLabel, isKubernetesLabel, namespaceOf } from '../../api/kinds/core/kubelet-labels';

const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';

/** the keys whose value differs between the two label maps (added, removed or changed) */
export function modifiedLabels(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]);
}

/** the modified labels a node may not set, sorted (kube lists them sorted) */
export function forbiddenNodeLabels(modified: string[]): string[] {
  return modified
    .filter((key) => {
      if (inDomain(namespaceOf(key), NODE_RESTRICTION_NAMESPACE)) return true;
      return isKubernetesLabel(key) && !isKubeletLabel(key);
    })
    .sort();
}
