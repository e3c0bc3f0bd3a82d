/** core/v1 PodSpec and its scheduling and security types, PodTemplateSpec and Pod itself. */
import type { Definitions } from '../types';
import {
  addKind, atomic, bool, core, int32, int64, map, mergeList, meta, obj, objectMeta, oneOf, ref, resourceList, str,
} from '../dsl';

const TAINT_EFFECTS = ['NoExecute', 'NoSchedule', 'PreferNoSchedule'];

export const corePodDefinitions: Definitions = {
  [core('PodSpec')]: obj(
    'Desired state of a pod: its containers, volumes and how it is scheduled and run.',
    {
      activeDeadlineSeconds: int64('Seconds the pod may run before the node agent fails it.'),
      affinity: ref(core('Affinity'), 'Scheduling constraints relative to nodes and other pods.'),
      automountServiceAccountToken: bool('Whether a service account token is mounted automatically.'),
      containers: mergeList(ref(core('Container')), 'name', 'The containers of the pod; at least one. Cannot be added or removed later.'),
      dnsConfig: ref(core('PodDNSConfig'), 'DNS settings merged into those chosen by dnsPolicy.'),
      dnsPolicy: oneOf('How the pod resolves names. Defaults to ClusterFirst.', [
        'ClusterFirst', 'ClusterFirstWithHostNet', 'Default', 'None',
      ]),
      enableServiceLinks: bool('Whether service addresses are injected as environment variables. Defaults to true.'),
      ephemeralContainers: mergeList(ref(core('EphemeralContainer')), 'name', 'Debugging containers added to the running pod.'),
      hostAliases: mergeList(ref(core('HostAlias')), 'ip', 'Extra /etc/hosts entries.'),
      hostIPC: bool("Share the host's IPC namespace."),
      hostNetwork: bool("Use the host's network namespace."),
      hostPID: bool("Share the host's process namespace."),
      hostUsers: bool("Use the host's user namespace; false isolates the pod in its own. Defaults to true."),
      hostname: str('Hostname of the pod; defaults to a system value.'),
      imagePullSecrets: mergeList(ref(core('LocalObjectReference')), 'name', 'Secrets in the namespace used to pull images.'),
      initContainers: mergeList(ref(core('Container')), 'name', 'Containers run in order, each to completion, before the main ones.'),
      nodeName: str('Node the pod is bound to; set by the scheduler, or directly to bypass it.'),
      nodeSelector: map('Labels a node must carry for the pod to be placed on it.', { type: 'string' }, { mapType: 'atomic' }),
      os: ref(core('PodOS'), 'Operating system the pod needs.'),
      overhead: resourceList('Resources the pod sandbox uses on top of its containers; set by admission.'),
      preemptionPolicy: oneOf('Whether the pod may preempt lower-priority pods. Defaults to PreemptLowerPriority.', [
        'Never', 'PreemptLowerPriority',
      ]),
      priority: int32('Priority value, filled in from priorityClassName by admission.'),
      priorityClassName: str('Name of the PriorityClass of the pod.'),
      readinessGates: atomic(ref(core('PodReadinessGate')), 'Extra conditions that must be true for the pod to be ready.'),
      resourceClaims: mergeList(ref(core('PodResourceClaim')), 'name', 'Dynamically allocated resources the pod needs.', {
        strategy: 'merge,retainKeys',
      }),
      resources: ref(core('ResourceRequirements'), 'Resources for the pod as a whole (cpu and memory only).'),
      restartPolicy: oneOf('When containers are restarted. Defaults to Always.', ['Always', 'Never', 'OnFailure']),
      runtimeClassName: str('RuntimeClass used to run the pod.'),
      schedulerName: str('Scheduler responsible for the pod; defaults to the default scheduler.'),
      schedulingGates: mergeList(ref(core('PodSchedulingGate')), 'name', 'The pod is not scheduled while any gate remains.'),
      securityContext: ref(core('PodSecurityContext'), 'Security settings for every container of the pod.'),
      serviceAccount: str('Deprecated alias of serviceAccountName.'),
      serviceAccountName: str('ServiceAccount the pod runs as.'),
      setHostnameAsFQDN: bool('Set the kernel hostname to the fully qualified name.'),
      shareProcessNamespace: bool('Put all containers in one process namespace.'),
      subdomain: str('Subdomain for the pod DNS name (hostname.subdomain.namespace.svc...).'),
      terminationGracePeriodSeconds: int64('Seconds between the stop signal and the kill. Defaults to 30.'),
      tolerations: atomic(ref(core('Toleration')), 'Taints the pod tolerates.'),
      topologySpreadConstraints: mergeList(ref(core('TopologySpreadConstraint')), 'topologyKey', 'How pods are spread across topology domains.', {
        keys: ['topologyKey', 'whenUnsatisfiable'],
      }),
      volumes: mergeList(ref(core('Volume')), 'name', 'Volumes the containers can mount.', { strategy: 'merge,retainKeys' }),
    },
    { required: ['containers'] },
  ),
  [core('PodSecurityContext')]: obj('Security settings applied to the whole pod.', {
    appArmorProfile: ref(core('AppArmorProfile'), 'AppArmor profile of the containers.'),
    fsGroup: int64('Supplementary group that owns volumes and is added to every process.'),
    fsGroupChangePolicy: oneOf('When volume ownership is changed to fsGroup.', ['Always', 'OnRootMismatch']),
    runAsGroup: int64('GID for container processes.'),
    runAsNonRoot: bool('Refuse to start containers that would run as UID 0.'),
    runAsUser: int64('UID for container processes.'),
    seLinuxChangePolicy: str('How SELinux labels are applied to volumes: Recursive or MountOption.'),
    seLinuxOptions: ref(core('SELinuxOptions'), 'SELinux context for all containers.'),
    seccompProfile: ref(core('SeccompProfile'), 'Seccomp profile of the containers.'),
    supplementalGroups: atomic(int64(), 'Extra groups for the first process of each container.'),
    supplementalGroupsPolicy: oneOf('How supplemental groups are computed.', ['Merge', 'Strict']),
    sysctls: atomic(ref(core('Sysctl')), 'Namespaced kernel parameters to set.'),
    windowsOptions: ref(core('WindowsSecurityContextOptions'), 'Windows-only settings.'),
  }),
  [core('Sysctl')]: obj(
    'One kernel parameter.',
    { name: str('Parameter name.'), value: str('Parameter value.') },
    { required: ['name', 'value'] },
  ),
  [core('Affinity')]: obj('Affinity and anti-affinity scheduling rules.', {
    nodeAffinity: ref(core('NodeAffinity'), 'Rules about the node.'),
    podAffinity: ref(core('PodAffinity'), 'Rules to run near other pods.'),
    podAntiAffinity: ref(core('PodAntiAffinity'), 'Rules to stay away from other pods.'),
  }),
  [core('NodeAffinity')]: obj('Node affinity rules.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomic(
      ref(core('PreferredSchedulingTerm')),
      'Weighted preferences; the node with the highest sum wins.',
    ),
    requiredDuringSchedulingIgnoredDuringExecution: ref(core('NodeSelector'), 'Hard requirement at scheduling time.'),
  }),
  [core('NodeSelector')]: obj(
    'Node selection: any one of the terms must match.',
    { nodeSelectorTerms: atomic(ref(core('NodeSelectorTerm')), 'The terms, ORed.') },
    { required: ['nodeSelectorTerms'], atomic: true },
  ),
  [core('NodeSelectorTerm')]: obj(
    'Node terms that must all match; an empty term matches nothing.',
    {
      matchExpressions: atomic(ref(core('NodeSelectorRequirement')), 'Requirements on node labels.'),
      matchFields: atomic(ref(core('NodeSelectorRequirement')), 'Requirements on node fields.'),
    },
    { atomic: true },
  ),
  [core('NodeSelectorRequirement')]: obj(
    'A requirement on one node label or field.',
    {
      key: str('The label key or field name.'),
      operator: oneOf('How key and values relate.', ['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn']),
      values: atomic(str(), 'Values; one integer for Gt and Lt, none for Exists and DoesNotExist.'),
    },
    { required: ['key', 'operator'] },
  ),
  [core('PreferredSchedulingTerm')]: obj(
    'A weighted node preference.',
    {
      preference: ref(core('NodeSelectorTerm'), 'The term.'),
      weight: int32('Weight, 1-100.'),
    },
    { required: ['weight', 'preference'] },
  ),
  [core('PodAffinity')]: obj('Rules to co-locate with other pods.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomic(ref(core('WeightedPodAffinityTerm')), 'Weighted preferences.'),
    requiredDuringSchedulingIgnoredDuringExecution: atomic(ref(core('PodAffinityTerm')), 'Hard requirements, all of which must hold.'),
  }),
  [core('PodAntiAffinity')]: obj('Rules to avoid other pods.', {
    preferredDuringSchedulingIgnoredDuringExecution: atomic(ref(core('WeightedPodAffinityTerm')), 'Weighted preferences.'),
    requiredDuringSchedulingIgnoredDuringExecution: atomic(ref(core('PodAffinityTerm')), 'Hard requirements, all of which must hold.'),
  }),
  [core('PodAffinityTerm')]: obj(
    'A set of pods, and the topology domain this pod must (or must not) share with them.',
    {
      labelSelector: ref(meta('LabelSelector'), 'Selects the pods.'),
      matchLabelKeys: atomic(str(), "Label keys whose values are taken from this pod and ANDed to the selector."),
      mismatchLabelKeys: atomic(str(), 'Label keys whose values from this pod must differ in the selected pods.'),
      namespaceSelector: ref(meta('LabelSelector'), 'Namespaces to look in, by label.'),
      namespaces: atomic(str(), 'Namespaces to look in; defaults to the pod namespace.'),
      topologyKey: str('Node label defining the topology domain.'),
    },
    { required: ['topologyKey'] },
  ),
  [core('WeightedPodAffinityTerm')]: obj(
    'A weighted pod affinity term.',
    {
      podAffinityTerm: ref(core('PodAffinityTerm'), 'The term.'),
      weight: int32('Weight, 1-100.'),
    },
    { required: ['weight', 'podAffinityTerm'] },
  ),
  [core('Toleration')]: obj('Lets the pod be scheduled onto (or stay on) nodes with a matching taint.', {
    effect: oneOf('Taint effect to match; empty matches all.', TAINT_EFFECTS),
    key: str('Taint key to match; empty with Exists matches every taint.'),
    operator: oneOf('Exists or Equal. Defaults to Equal.', ['Equal', 'Exists']),
    tolerationSeconds: int64('For NoExecute: how long the pod stays bound after the taint appears.'),
    value: str('Taint value to match with Equal.'),
  }),
  [core('TopologySpreadConstraint')]: obj(
    'How evenly matching pods are spread over a topology.',
    {
      labelSelector: ref(meta('LabelSelector'), 'Pods counted in each domain.'),
      matchLabelKeys: atomic(str(), 'Label keys whose values from this pod narrow the selector.'),
      maxSkew: int32('Largest allowed difference in matching pods between domains.'),
      minDomains: int32('Minimum number of eligible domains.'),
      nodeAffinityPolicy: oneOf('Whether node affinity limits the domains counted.', ['Honor', 'Ignore']),
      nodeTaintsPolicy: oneOf('Whether node taints limit the domains counted.', ['Honor', 'Ignore']),
      topologyKey: str('Node label defining the domains.'),
      whenUnsatisfiable: oneOf('What to do when the constraint cannot be met.', ['DoNotSchedule', 'ScheduleAnyway']),
    },
    { required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'] },
  ),
  [core('HostAlias')]: obj(
    'An /etc/hosts entry.',
    { hostnames: atomic(str(), 'Names for the address.'), ip: str('The address.') },
    { required: ['ip'] },
  ),
  [core('PodDNSConfig')]: obj('DNS settings of a pod.', {
    nameservers: atomic(str(), 'Extra name server addresses.'),
    options: atomic(ref(core('PodDNSConfigOption')), 'Resolver options.'),
    searches: atomic(str(), 'Extra search domains.'),
  }),
  [core('PodDNSConfigOption')]: obj('One resolver option.', {
    name: str('Option name.'),
    value: str('Option value.'),
  }),
  [core('PodReadinessGate')]: obj(
    'A pod condition that must be true for readiness.',
    { conditionType: str('Type of the condition in the pod status.') },
    { required: ['conditionType'] },
  ),
  [core('PodOS')]: obj('Operating system of a pod.', { name: str('linux or windows.') }, { required: ['name'] }),
  [core('PodSchedulingGate')]: obj('A gate holding back scheduling.', { name: str('Name of the gate.') }, { required: ['name'] }),
  [core('PodResourceClaim')]: obj(
    'A dynamically allocated resource the pod uses, by claim or claim template.',
    {
      name: str('Name of the entry, used by containers.'),
      resourceClaimName: str('An existing ResourceClaim.'),
      resourceClaimTemplateName: str('A ResourceClaimTemplate to create a claim from.'),
    },
    { required: ['name'] },
  ),
  [core('PodTemplateSpec')]: obj('The pods a controller creates: their metadata and spec.', {
    metadata: objectMeta('Metadata given to the pods.'),
    spec: ref(core('PodSpec'), 'Spec of the pods.'),
  }),
};

addKind(corePodDefinitions, core(''), { group: '', version: 'v1', kind: 'Pod' }, 'A group of containers run together on one node.', {
  spec: ref(core('PodSpec'), 'Desired state of the pod.'),
  status: ref(core('PodStatus'), 'Observed state of the pod. Read-only.'),
});
addKind(corePodDefinitions, core(''), { group: '', version: 'v1', kind: 'PodTemplate' }, 'A stored pod template.', {
  template: ref(core('PodTemplateSpec'), 'The template.'),
});
