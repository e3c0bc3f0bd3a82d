/**
 * node.k8s.io v1, v1beta1 and v1alpha1 RuntimeClass (v1alpha1 keeps its fields under `spec`, with
 * the handler named `runtimeHandler`), and scheduling.k8s.io v1, v1beta1 and v1alpha1 PriorityClass.
 */
import type { Definitions } from '../types';
import {
  addKind, atomic, bool, core, int32, map, obj, oneOf, ref, resourceList, str,
} from '../dsl';

const NODE = 'io.k8s.api.node.';
const SCHEDULING = 'io.k8s.api.scheduling.';

export const nodeSchedulingDefinitions: Definitions = {};

const HANDLER_DESC = 'Name of the handler in the node runtime (CRI) that runs the pods; a DNS label. Immutable.';

for (const version of ['v1', 'v1beta1', 'v1alpha1'] as const) {
  const p = `${NODE}${version}.`;
  const overhead = ref(`${p}Overhead`, 'Resources used by a pod of this class beyond its containers.');
  const scheduling = ref(`${p}Scheduling`, 'Constraints that put the pods on nodes supporting the class.');
  Object.assign(nodeSchedulingDefinitions, {
    [`${p}Overhead`]: obj('Fixed resource overhead of a pod.', {
      podFixed: resourceList('Resources added to every pod of the class.'),
    }),
    [`${p}Scheduling`]: obj('Scheduling constraints of a runtime class.', {
      nodeSelector: map('Labels the node must have; merged into the pod node selector.', { type: 'string' }, { mapType: 'atomic' }),
      tolerations: atomic(ref(core('Toleration')), 'Tolerations added to the pods.'),
    }),
  });
  if (version === 'v1alpha1') {
    nodeSchedulingDefinitions[`${p}RuntimeClassSpec`] = obj(
      'The runtime class: handler, overhead and scheduling.',
      { overhead, runtimeHandler: str(HANDLER_DESC), scheduling },
      { required: ['runtimeHandler'] },
    );
    addKind(nodeSchedulingDefinitions, p, { group: 'node.k8s.io', version, kind: 'RuntimeClass' }, 'A container runtime configuration that pods may select.', {
      spec: ref(`${p}RuntimeClassSpec`, 'The runtime class.'),
    }, ['spec']);
  } else {
    addKind(nodeSchedulingDefinitions, p, { group: 'node.k8s.io', version, kind: 'RuntimeClass' }, 'A container runtime configuration that pods may select.', {
      handler: str(HANDLER_DESC),
      overhead,
      scheduling,
    }, ['handler']);
  }
}

for (const version of ['v1', 'v1beta1', 'v1alpha1'] as const) {
  const p = `${SCHEDULING}${version}.`;
  addKind(nodeSchedulingDefinitions, p, { group: 'scheduling.k8s.io', version, kind: 'PriorityClass' }, 'A named pod priority.', {
    description: str('What the class is for.'),
    globalDefault: bool('Pods without a priority class get this one; at most one class may say so.'),
    preemptionPolicy: oneOf('Never or PreemptLowerPriority (the default).', ['Never', 'PreemptLowerPriority']),
    value: int32('Priority of the pods; user classes are at most 1000000000. Immutable.'),
  }, ['value']);
}
