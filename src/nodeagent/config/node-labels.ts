/**
 * Which --node-labels the node agent may set on its own Node, checked by kubelet at start-up with
 * the NodeRestriction rules (src/api/kinds/core/kubelet-labels.ts).
 */
import { KUBELET_LABELS, KUBELET_LABEL_NAMESPACES, isKubeletLabel, isKubernetesLabel } from '../../api/kinds/core/kubelet-labels';

export { KUBELET_LABELS, KUBELET_LABEL_NAMESPACES, isKubeletLabel, isKubernetesLabel };

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
