/**
 * Which node labels a node may set on itself (kube's NodeRestriction getForbiddenLabels and the
 * kubelet's well-known labels, k8s.io/kubelet/pkg/apis): nothing under node-restriction.kubernetes.io/,
 * and under kubernetes.io/ and k8s.io/ only the labels a kubelet sets.
 */
const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';

const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

function labelNamespace(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

const inNamespace = (ns: string, parent: string): boolean => ns === parent || ns.endsWith(`.${parent}`);

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const ns = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(ns, allowed));
}

/** the keys whose value differs between the two label maps (added, removed or changed) */
export function modifiedLabels(a: Record<string, string>, b: Record<string, string>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => a[k] !== b[k]);
}

/** the modified labels a node may not set, sorted (kube lists them sorted) */
export function forbiddenNodeLabels(modified: string[]): string[] {
  return modified
    .filter((key) => {
      const ns = labelNamespace(key);
      if (inNamespace(ns, NODE_RESTRICTION_NAMESPACE)) return true;
      const kubernetes = inNamespace(ns, 'kubernetes.io') || inNamespace(ns, 'k8s.io');
      return kubernetes && !isKubeletLabel(key);
    })
    .sort();
}
