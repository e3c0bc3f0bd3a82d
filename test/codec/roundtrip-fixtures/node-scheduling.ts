/** round-trip fixtures of node.k8s.io and scheduling.k8s.io, every version */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';

const overhead = { podFixed: { cpu: '250m', memory: '120Mi' } };
const scheduling = {
  nodeSelector: { 'runtime.example.com/gvisor': 'true' },
  tolerations: [{ key: 'sandbox', operator: 'Equal', value: 'gvisor', effect: 'NoSchedule' }, { key: 'x', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 }],
};

const priorityClass = (version: string) => ({
  apiVersion: `scheduling.k8s.io/${version}`,
  kind: 'PriorityClass',
  metadata: fixtureMeta('high'),
  value: 1000000,
  description: 'For pods that must not wait.',
  preemptionPolicy: 'Never',
});

export const nodeSchedulingFixtures: Fixtures = {
  'node.k8s.io/v1/RuntimeClass': { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: fixtureMeta('gvisor'), handler: 'runsc', overhead, scheduling },
  'node.k8s.io/v1beta1/RuntimeClass': { apiVersion: 'node.k8s.io/v1beta1', kind: 'RuntimeClass', metadata: fixtureMeta('gvisor'), handler: 'runsc', overhead, scheduling },
  'node.k8s.io/v1alpha1/RuntimeClass': { apiVersion: 'node.k8s.io/v1alpha1', kind: 'RuntimeClass', metadata: fixtureMeta('gvisor'), spec: { runtimeHandler: 'runsc', overhead, scheduling } },
  'scheduling.k8s.io/v1/PriorityClass': priorityClass('v1'),
  'scheduling.k8s.io/v1beta1/PriorityClass': priorityClass('v1beta1'),
  'scheduling.k8s.io/v1alpha1/PriorityClass': priorityClass('v1alpha1'),
};
