/**
 * Which --node-labels the node agent may set on its own Node (kube 1.20's NodeRestriction rules,
 * checked by kubelet at start-up): labels in the kubernetes.io and k8s.io namespaces must be in the
 * allowed set or under kubelet.kubernetes.io / node.kubernetes.io.
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

const namespaceOf = (key: string): string => {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
};

const inDomain = (ns: string, domain: string): boolean => ns === domain || ns.endsWith(`.${domain}`);

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

/** kubelet's start-up error for disallowed labels (one line), or undefined */
export function nodeLabelsProblem(labels: Readonly<Record<string, string>>): string | undefined {
  const unknown = Object.keys(labels)
    .filter((k) => isKubernetesLabel(k) && !isKubeletLabel(k))
    .sort();
  if (unknown.length === 0) return undefined;
  return (
    `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(' ')}] ` +
    `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (${KUBELET_LABEL_NAMESPACES.join(', ')}) ` +
    `or be in the specifically allowed set (${KUBELET_LABELS.join(', ')})`
  );
}
