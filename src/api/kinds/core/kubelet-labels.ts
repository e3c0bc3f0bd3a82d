/**
 * The labels a node agent may set on its own Node (k8s.io/kubelet's well-known labels): in the
 * kubernetes.io and k8s.io namespaces only the allowed set and the kubelet.kubernetes.io /
 * node.kubernetes.io namespaces. The NodeRestriction admission plugin and the node agent's
 * --node-labels check both read these rules.
 */

/** the well-known labels a node agent may set */
export const KUBELET_LABELS: readonly string[] = Object.freeze([
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

/** label namespaces (and their subdomains) a node agent may use */
export const KUBELET_LABEL_NAMESPACES: readonly string[] = Object.freeze(['kubelet.kubernetes.io', 'node.kubernetes.io']);

/** a label key's namespace (the part before the slash; '' when none) */
export const namespaceOf = (key: string): string => {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
};

/** `ns` is `domain` or one of its subdomains */
export const inDomain = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

/** whether the label is in the kubernetes.io or k8s.io namespaces */
export function isKubernetesLabel(key: string): boolean {
  const ns = namespaceOf(key);
  return inDomain(ns, 'kubernetes.io') || inDomain(ns, 'k8s.io');
}

/** whether a node agent may set this label on its Node */
export function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.includes(key)) return true;
  const ns = namespaceOf(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inDomain(ns, allowed));
}
