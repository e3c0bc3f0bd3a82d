/**
 * The PodSandboxConfig kubelet builds for a pod (kuberuntime_sandbox.go generatePodSandboxConfig):
 * metadata with the attempt, hostname (not for host-network pods), the log directory
 * <podLogsDir>/<ns>_<name>_<uid>, DNS from the helper, the containers' ports as port mappings,
 * kube's labels, the pod's annotations, and the Linux part: cgroup parent, sysctls, the pod's
 * security context and its namespaces (hostNetwork, hostPID, hostIPC, shareProcessNamespace).
 */
import path from 'node:path';
import type { NamespaceOption } from '../cri/generated/runtime/v1/NamespaceOption';
import type { PodSandboxConfig } from '../cri/generated/runtime/v1/PodSandboxConfig';
import type { PortMapping } from '../cri/generated/runtime/v1/PortMapping';
import type { Pod, RuntimeHelper } from '../types';
import { podAnnotations, podLabels } from './labels';

export const DEFAULT_POD_LOGS_DIR = '/var/log/pods';

type Spec = Record<string, unknown>;

export function containersOf(pod: Pod, field: 'containers' | 'initContainers' = 'containers'): Spec[] {
  return ((pod.spec?.[field] as Spec[] | undefined) ?? []).filter((c) => c && typeof c === 'object');
}

export function isHostNetworkPod(pod: Pod): boolean {
  return pod.spec?.hostNetwork === true;
}

/** <podLogsDir>/<namespace>_<name>_<uid> */
export function podLogsDirectory(podLogsDir: string, namespace: string, name: string, uid: string): string {
  return path.join(podLogsDir, `${namespace}_${name}_${uid}`);
}

/** kube's namespacesForPod */
export function namespacesForPod(pod: Pod): NamespaceOption {
  const spec = pod.spec ?? {};
  return {
    network: spec.hostNetwork === true ? 'NODE' : 'POD',
    pid: spec.hostPID === true ? 'NODE' : spec.shareProcessNamespace === true ? 'POD' : 'CONTAINER',
    ipc: spec.hostIPC === true ? 'NODE' : 'POD',
  };
}

export function hasPrivilegedContainer(pod: Pod): boolean {
  return [...containersOf(pod, 'initContainers'), ...containersOf(pod)].some((c) => (c.securityContext as Spec | undefined)?.privileged === true);
}

/** the pod's hostname as kube gives the sandbox: spec.hostname or the pod's name, at most 63 characters */
export function podHostname(pod: Pod): string {
  const hostname = typeof pod.spec?.hostname === 'string' && pod.spec.hostname !== '' ? pod.spec.hostname : String(pod.metadata?.name ?? '');
  return hostname.length > 63 ? hostname.slice(0, 63).replace(/[-.]+$/, '') : hostname;
}

function portMappings(pod: Pod): PortMapping[] {
  const mappings: PortMapping[] = [];
  for (const container of containersOf(pod)) {
    for (const port of (container.ports as Spec[] | undefined) ?? []) {
      const protocol = port.protocol === 'UDP' ? 'UDP' : port.protocol === 'SCTP' ? 'SCTP' : 'TCP';
      mappings.push({ protocol, containerPort: Number(port.containerPort ?? 0), hostPort: Number(port.hostPort ?? 0), hostIp: String(port.hostIP ?? '') });
    }
  }
  return mappings;
}

export function generatePodSandboxConfig(pod: Pod, attempt: number, helper: RuntimeHelper, podLogsDir: string): PodSandboxConfig {
  const name = String(pod.metadata?.name ?? '');
  const namespace = String(pod.metadata?.namespace ?? '');
  const uid = String(pod.metadata?.uid ?? '');
  const dns = helper.getPodDNS(pod);
  const podSc = (pod.spec?.securityContext as Spec | undefined) ?? {};
  const sysctls: Record<string, string> = {};
  for (const sysctl of (podSc.sysctls as { name: string; value: string }[] | undefined) ?? []) sysctls[sysctl.name] = sysctl.value;
  const supplementalGroups: number[] = [];
  if (typeof podSc.fsGroup === 'number') supplementalGroups.push(podSc.fsGroup);
  for (const group of (podSc.supplementalGroups as number[] | undefined) ?? []) supplementalGroups.push(group);
  const config: PodSandboxConfig = {
    metadata: { name, namespace, uid, attempt },
    logDirectory: podLogsDirectory(podLogsDir, namespace, name, uid),
    dnsConfig: { servers: dns.servers, searches: dns.searches, options: dns.options },
    labels: podLabels(pod),
    annotations: podAnnotations(pod),
    linux: {
      cgroupParent: helper.getPodCgroupParent(pod),
      sysctls,
      securityContext: {
        privileged: hasPrivilegedContainer(pod),
        namespaceOptions: namespacesForPod(pod),
        supplementalGroups,
        ...(typeof podSc.runAsUser === 'number' ? { runAsUser: { value: podSc.runAsUser } } : {}),
        ...(typeof podSc.runAsGroup === 'number' ? { runAsGroup: { value: podSc.runAsGroup } } : {}),
        ...(podSc.seLinuxOptions ? { selinuxOptions: podSc.seLinuxOptions as Record<string, string> } : {}),
      },
    },
  };
  if (!isHostNetworkPod(pod)) config.hostname = podHostname(pod);
  const ports = portMappings(pod);
  if (ports.length > 0) config.portMappings = ports;
  return config;
}
