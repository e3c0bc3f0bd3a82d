/** round-trip fixtures of policy/v1 and policy/v1beta1 */
import { fixtureMeta } from './meta';
import type { Fixtures } from './meta';


const budget = (apiVersion: string, selector: Record<string, unknown>) => ({
  apiVersion,
  kind: 'PodDisruptionBudget',
  metadata: { ...fixtureMeta('web', 'default'), generation: 2 },
  spec: { maxUnavailable: '25%', selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
  status: {
    observedGeneration: 2,
    disruptedPods: { 'web-1': '2024-05-01T10:00:03Z' },
    disruptionsAllowed: 0,
    currentHealthy: 3,
    desiredHealthy: 3,
    expectedPods: 4,
    conditions: [{ type: 'DisruptionAllowed', status: 'False', observedGeneration: 2, lastTransitionTime: '2024-05-01T10:00:00Z', reason: 'InsufficientPods', message: '' }],
  },
});

export const policyFixtures: Fixtures = {
  'policy/v1/PodDisruptionBudget': budget('policy/v1', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }),
  'policy/v1beta1/PodDisruptionBudget': { ...budget('policy/v1beta1', {}), spec: { minAvailable: 0, selector: {} } },
  'policy/v1beta1/PodSecurityPolicy': {
    apiVersion: 'policy/v1beta1',
    kind: 'PodSecurityPolicy',
    metadata: fixtureMeta('restricted'),
    spec: {
      defaultAddCapabilities: ['CHOWN'],
      requiredDropCapabilities: ['ALL'],
      allowedCapabilities: ['NET_BIND_SERVICE'],
      volumes: ['configMap', 'secret', 'emptyDir'],
      hostPorts: [{ min: 8000, max: 8080 }],
      seLinux: { rule: 'MustRunAs', seLinuxOptions: { user: 'u', role: 'r', type: 't', level: 's0' } },
      runAsUser: { rule: 'MustRunAs', ranges: [{ min: 1000, max: 2000 }] },
      runAsGroup: { rule: 'MayRunAs', ranges: [{ min: 0, max: 10 }] },
      supplementalGroups: { rule: 'RunAsAny' },
      fsGroup: { rule: 'MustRunAs', ranges: [{ min: 1, max: 65535 }] },
      readOnlyRootFilesystem: true,
      defaultAllowPrivilegeEscalation: false,
      allowPrivilegeEscalation: true,
      allowedHostPaths: [{ pathPrefix: '/var/log', readOnly: true }],
      allowedFlexVolumes: [{ driver: 'example/lvm' }],
      allowedCSIDrivers: [{ name: 'ebs.csi.aws.com' }],
      allowedUnsafeSysctls: ['kernel.msg*'],
      forbiddenSysctls: ['kernel.shm_rmid_forced'],
      allowedProcMountTypes: ['Default'],
      runtimeClass: { allowedRuntimeClassNames: ['gvisor'], defaultRuntimeClassName: 'gvisor' },
    },
  },
  // bodies of pods/<name>/eviction
  'policy/v1/Eviction': {
    apiVersion: 'policy/v1',
    kind: 'Eviction',
    metadata: { name: 'web-1', namespace: 'default', creationTimestamp: null },
    deleteOptions: { gracePeriodSeconds: 0, preconditions: { uid: 'u1', resourceVersion: '9' }, propagationPolicy: 'Background', dryRun: ['All'] },
  },
  'policy/v1beta1/Eviction': { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'web-1', namespace: 'default', creationTimestamp: null } },
};
