/**
 * policy/v1 and policy/v1beta1: PodDisruptionBudget and Eviction in both, and policy/v1beta1
 * PodSecurityPolicy as kube 1.20 served it (its list fields had no list-type markers then).
 */
import type { Definitions, SchemaNode } from '../types';
import {
  addKind, bool, core, int32, int64, intOrString, kind, list, map, meta, mergeList, obj, oneOf, ref, str, time, withPatchStrategy,
} from '../dsl';

const V1 = 'io.k8s.api.policy.v1.';
const V1BETA1 = 'io.k8s.api.policy.v1beta1.';
const beta = (name: string): string => V1BETA1 + name;

function pdbSpec(selector: SchemaNode): SchemaNode {
  return obj('Desired state of a PodDisruptionBudget.', {
    maxUnavailable: intOrString('Pods that may be unavailable after an eviction, as a number or percentage; exclusive with minAvailable.'),
    minAvailable: intOrString('Pods that must stay available after an eviction, as a number or percentage.'),
    selector,
    unhealthyPodEvictionPolicy: oneOf('When running but not ready pods may be evicted: IfHealthyBudget (default) or AlwaysAllow.', [
      'AlwaysAllow', 'IfHealthyBudget',
    ]),
  });
}

function pdbStatus(): SchemaNode {
  return obj(
    'Observed state of a PodDisruptionBudget.',
    {
      conditions: mergeList(ref(meta('Condition')), 'type', 'Current conditions, e.g. DisruptionAllowed.'),
      currentHealthy: int32('Healthy pods now.'),
      desiredHealthy: int32('Healthy pods needed.'),
      disruptedPods: map('Pods evicted but not yet seen gone by the controller, with the eviction time.', time('Eviction time.')),
      disruptionsAllowed: int32('Evictions allowed now.'),
      expectedPods: int32('Pods counted by this budget.'),
      observedGeneration: int64('The generation the status was computed from.'),
    },
    { required: ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] },
  );
}

function eviction(version: string): SchemaNode {
  return kind({ group: 'policy', version, kind: 'Eviction' }, 'A request to evict a pod, subject to its disruption budgets; POSTed to pods/<name>/eviction.', {
    deleteOptions: ref(meta('DeleteOptions'), 'How the pod is deleted.'),
  });
}

const idRanges = (): SchemaNode => list(ref(beta('IDRange')), 'Allowed ranges; required for MustRunAs.');

export const policyDefinitions: Definitions = {
  [`${V1}PodDisruptionBudgetSpec`]: pdbSpec(
    withPatchStrategy(ref(meta('LabelSelector'), 'Pods the budget counts; an empty selector selects every pod of the namespace.'), 'replace'),
  ),
  [`${V1}PodDisruptionBudgetStatus`]: pdbStatus(),
  [`${V1}Eviction`]: eviction('v1'),
  [beta('PodDisruptionBudgetSpec')]: pdbSpec(ref(meta('LabelSelector'), 'Pods the budget counts; an empty selector selects none.')),
  [beta('PodDisruptionBudgetStatus')]: pdbStatus(),
  [beta('Eviction')]: eviction('v1beta1'),

  [beta('PodSecurityPolicySpec')]: obj(
    'What a pod must look like to be admitted, and the defaults it gets.',
    {
      allowPrivilegeEscalation: bool('Whether a process may gain more privileges than its parent. Defaults to true.'),
      allowedCSIDrivers: list(ref(beta('AllowedCSIDriver')), 'CSI drivers allowed for inline volumes; empty allows all.'),
      allowedCapabilities: list(str(), 'Capabilities containers may add; * allows all.'),
      allowedFlexVolumes: list(ref(beta('AllowedFlexVolume')), 'FlexVolume drivers allowed; empty allows all.'),
      allowedHostPaths: list(ref(beta('AllowedHostPath')), 'Host path prefixes allowed; empty allows all.'),
      allowedProcMountTypes: list(str(), 'Proc mount types allowed; empty allows only Default.'),
      allowedUnsafeSysctls: list(str(), 'Unsafe sysctls allowed, by name or prefix*.'),
      defaultAddCapabilities: list(str(), 'Capabilities added to every container.'),
      defaultAllowPrivilegeEscalation: bool('Default of allowPrivilegeEscalation for containers.'),
      forbiddenSysctls: list(str(), 'Sysctls forbidden, by name or prefix*.'),
      fsGroup: ref(beta('FSGroupStrategyOptions'), 'How the pod fsGroup is chosen.'),
      hostIPC: bool('Whether pods may share the host IPC namespace.'),
      hostNetwork: bool('Whether pods may use the host network.'),
      hostPID: bool('Whether pods may share the host process namespace.'),
      hostPorts: list(ref(beta('HostPortRange')), 'Host ports allowed.'),
      privileged: bool('Whether privileged containers are allowed.'),
      readOnlyRootFilesystem: bool('Whether containers must run with a read-only root filesystem.'),
      requiredDropCapabilities: list(str(), 'Capabilities every container must drop.'),
      runAsGroup: ref(beta('RunAsGroupStrategyOptions'), 'How the container group is chosen.'),
      runAsUser: ref(beta('RunAsUserStrategyOptions'), 'How the container user is chosen.'),
      runtimeClass: ref(beta('RuntimeClassStrategyOptions'), 'RuntimeClasses pods may use.'),
      seLinux: ref(beta('SELinuxStrategyOptions'), 'How the SELinux context is chosen.'),
      supplementalGroups: ref(beta('SupplementalGroupsStrategyOptions'), 'How supplemental groups are chosen.'),
      volumes: list(str(), 'Volume types allowed; * allows all.'),
    },
    { required: ['seLinux', 'runAsUser', 'supplementalGroups', 'fsGroup'] },
  ),
  [beta('AllowedHostPath')]: obj('A host path prefix pods may mount.', {
    pathPrefix: str('The prefix, matched by path segment (/foo allows /foo and /foo/bar, not /food).'),
    readOnly: bool('Only read-only mounts are allowed.'),
  }),
  [beta('AllowedFlexVolume')]: obj('A FlexVolume driver pods may use.', { driver: str('Name of the driver.') }, { required: ['driver'] }),
  [beta('AllowedCSIDriver')]: obj('A CSI driver pods may use inline.', { name: str('Name of the driver.') }, { required: ['name'] }),
  [beta('HostPortRange')]: obj(
    'A range of host ports, both ends included.',
    { max: int32('Last port.'), min: int32('First port.') },
    { required: ['min', 'max'] },
  ),
  [beta('IDRange')]: obj('A range of ids, both ends included.', { max: int64('Last id.'), min: int64('First id.') }, { required: ['min', 'max'] }),
  [beta('SELinuxStrategyOptions')]: obj(
    'How the SELinux context of containers is chosen.',
    {
      rule: str('MustRunAs or RunAsAny.'),
      seLinuxOptions: ref(core('SELinuxOptions'), 'The context applied with MustRunAs.'),
    },
    { required: ['rule'] },
  ),
  [beta('RunAsUserStrategyOptions')]: obj(
    'How the user of containers is chosen.',
    { ranges: idRanges(), rule: str('MustRunAs, MustRunAsNonRoot or RunAsAny.') },
    { required: ['rule'] },
  ),
  [beta('RunAsGroupStrategyOptions')]: obj(
    'How the group of containers is chosen.',
    { ranges: idRanges(), rule: str('MustRunAs, MayRunAs or RunAsAny.') },
    { required: ['rule'] },
  ),
  [beta('FSGroupStrategyOptions')]: obj('How the fsGroup of pods is chosen.', {
    ranges: idRanges(),
    rule: str('MustRunAs, MayRunAs or RunAsAny.'),
  }),
  [beta('SupplementalGroupsStrategyOptions')]: obj('How the supplemental groups of pods are chosen.', {
    ranges: idRanges(),
    rule: str('MustRunAs, MayRunAs or RunAsAny.'),
  }),
  [beta('RuntimeClassStrategyOptions')]: obj(
    'RuntimeClasses pods may use.',
    {
      allowedRuntimeClassNames: list(str(), 'Allowed RuntimeClass names; * allows all, empty allows only pods without one.'),
      defaultRuntimeClassName: str('RuntimeClass set on pods that name none; must be allowed.'),
    },
    { required: ['allowedRuntimeClassNames'] },
  ),
};

for (const [prefix, version] of [[V1, 'v1'], [V1BETA1, 'v1beta1']]) {
  addKind(policyDefinitions, prefix, { group: 'policy', version, kind: 'PodDisruptionBudget' }, 'How many pods of a set may be down at once through voluntary disruptions.', {
    spec: ref(`${prefix}PodDisruptionBudgetSpec`, 'Desired state.'),
    status: ref(`${prefix}PodDisruptionBudgetStatus`, 'Observed state. Read-only.'),
  });
}

addKind(policyDefinitions, V1BETA1, { group: 'policy', version: 'v1beta1', kind: 'PodSecurityPolicy' }, 'Cluster-wide rules pods must follow to be admitted (removed in kube 1.25).', {
  spec: ref(beta('PodSecurityPolicySpec'), 'The rules.'),
});
