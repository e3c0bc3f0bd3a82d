/**
 * The ContainerConfig kubelet builds (kuberuntime_container.go generateContainerConfig and
 * security_context.go): metadata with the restart count as attempt, the pulled image's reference,
 * command and args with $(VAR) expanded (the spec's command overrides the image's entrypoint, its
 * args the image's cmd), envs and mounts from the helper, a fresh termination-message file mounted at
 * terminationMessagePath, the log path `<name>/<restartCount>.log`, kube's labels and annotations,
 * resources and the effective security context.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ContainerConfig } from '../cri/generated/runtime/v1/ContainerConfig';
import type { LinuxContainerSecurityContext } from '../cri/generated/runtime/v1/LinuxContainerSecurityContext';
import type { Mount } from '../cri/generated/runtime/v1/Mount';
import type { Pod, RunContainerOptions } from '../types';
import { containerAnnotations, containerLabels } from './labels';
import { containerResources } from './resources';
import { namespacesForPod } from './sandbox-config';

type Spec = Record<string, unknown>;

const DEFAULT_MASKED_PATHS = ['/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list', '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware'];
const DEFAULT_READONLY_PATHS = ['/proc/asound', '/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** kube's expansion.Expand: $(VAR) from the envs, $$ an escaped $, unknown references kept as written */
export function expandVariables(input: string, envs: Map<string, string>): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    if (input[i] !== '$' || i + 1 >= input.length) {
      out += input[i];
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close < 0) {
        out += input.slice(i);
        break;
      }
      const name = input.slice(i + 2, close);
      out += envs.has(name) ? envs.get(name) : `$(${name})`;
      i = close;
    } else {
      out += '$' + next;
      i++;
    }
  }
  return out;
}

/** the pod's and container's security contexts merged (the container's fields win), as kube's DetermineEffectiveSecurityContext */
export function effectiveSecurityContext(pod: Pod, container: Spec): Spec {
  const podSc = (pod.spec?.securityContext as Spec | undefined) ?? {};
  const sc: Spec = { ...((container.securityContext as Spec | undefined) ?? {}) };
  for (const field of ['seLinuxOptions', 'runAsUser', 'runAsGroup', 'runAsNonRoot']) {
    if (sc[field] === undefined && podSc[field] !== undefined) sc[field] = podSc[field];
  }
  return sc;
}

export function containerSecurityContext(pod: Pod, container: Spec, image: { uid?: number; username?: string }): LinuxContainerSecurityContext {
  const sc = effectiveSecurityContext(pod, container);
  const capabilities = sc.capabilities as { add?: string[]; drop?: string[] } | undefined;
  const unmasked = sc.procMount === 'Unmasked';
  const result: LinuxContainerSecurityContext = {
    privileged: sc.privileged === true,
    readonlyRootfs: sc.readOnlyRootFilesystem === true,
    namespaceOptions: namespacesForPod(pod),
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    maskedPaths: unmasked ? [] : DEFAULT_MASKED_PATHS,
    readonlyPaths: unmasked ? [] : DEFAULT_READONLY_PATHS,
    supplementalGroups: [],
  };
  if (capabilities) result.capabilities = { addCapabilities: capabilities.add ?? [], dropCapabilities: capabilities.drop ?? [] };
  if (typeof sc.runAsUser === 'number') result.runAsUser = { value: sc.runAsUser };
  else if (image.uid !== undefined) result.runAsUser = { value: image.uid };
  else if (image.username) result.runAsUsername = image.username;
  if (typeof sc.runAsGroup === 'number') result.runAsGroup = { value: sc.runAsGroup };
  if (sc.seLinuxOptions) result.selinuxOptions = sc.seLinuxOptions as Record<string, string>;
  const podSc = (pod.spec?.securityContext as Spec | undefined) ?? {};
  const groups: number[] = [];
  if (typeof podSc.fsGroup === 'number') groups.push(podSc.fsGroup);
  for (const group of (podSc.supplementalGroups as number[] | undefined) ?? []) groups.push(group);
  result.supplementalGroups = groups;
  return result;
}

/** kube's verifyRunAsNonRoot: the error text when the container would run as root against runAsNonRoot */
export function verifyRunAsNonRoot(pod: Pod, container: Spec, image: { uid?: number; username?: string }, formattedPod: string): string | undefined {
  const sc = effectiveSecurityContext(pod, container);
  if (sc.runAsNonRoot !== true) return undefined;
  const name = String(container.name ?? '');
  if (typeof sc.runAsUser === 'number') {
    return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy (pod: "${formattedPod}", container: ${name})` : undefined;
  }
  if (image.uid === 0) return `container has runAsNonRoot and image will run as root (pod: "${formattedPod}", container: ${name})`;
  if (image.uid === undefined && image.username) {
    return `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root (pod: "${formattedPod}", container: ${name})`;
  }
  return undefined;
}

const PROPAGATION = { None: 'PROPAGATION_PRIVATE', HostToContainer: 'PROPAGATION_HOST_TO_CONTAINER', Bidirectional: 'PROPAGATION_BIDIRECTIONAL' } as const;

/**
 * the helper's mounts, and the termination-message file: a fresh empty file (mode 0666) under
 * <podDir>/containers/<name>/, named at random so that each instance has its own
 */
export function makeMounts(options: RunContainerOptions, container: Spec, podDir: string): Mount[] {
  const mounts: Mount[] = options.mounts.map((m) => ({
    containerPath: m.containerPath,
    hostPath: m.hostPath,
    readonly: m.readOnly,
    propagation: PROPAGATION[m.propagation ?? 'None'],
  }));
  const terminationMessagePath = typeof container.terminationMessagePath === 'string' ? container.terminationMessagePath : '';
  if (terminationMessagePath !== '') {
    const dir = path.join(podDir, 'containers', String(container.name ?? ''));
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, crypto.randomBytes(4).toString('hex'));
    fs.writeFileSync(file, '');
    fs.chmodSync(file, 0o666);
    mounts.push({ containerPath: terminationMessagePath, hostPath: file, readonly: false });
  }
  return mounts;
}

export interface ContainerConfigInput {
  pod: Pod;
  container: Spec;
  restartCount: number;
  imageRef: string;
  options: RunContainerOptions;
  podDir: string;
  /** the sandbox's log directory, where <name>/ is created */
  podLogDirectory: string;
  image: { uid?: number; username?: string };
  cpuCFSQuota: boolean;
  memoryCapacityBytes: number;
}

export function generateContainerConfig(input: ContainerConfigInput): ContainerConfig {
  const { pod, container, restartCount, options } = input;
  const name = String(container.name ?? '');
  const envs = new Map(options.envs.map((e) => [e.name, e.value]));
  const command = ((container.command as string[] | undefined) ?? []).map((c) => expandVariables(c, envs));
  const args = ((container.args as string[] | undefined) ?? []).map((a) => expandVariables(a, envs));
  fs.mkdirSync(path.join(input.podLogDirectory, name), { recursive: true, mode: 0o755 });
  return {
    metadata: { name, attempt: restartCount },
    image: { image: input.imageRef },
    command,
    args,
    workingDir: typeof container.workingDir === 'string' ? container.workingDir : '',
    labels: containerLabels(pod, container),
    annotations: containerAnnotations(pod, container, restartCount),
    mounts: makeMounts(options, container, input.podDir),
    logPath: path.join(name, `${restartCount}.log`),
    stdin: container.stdin === true,
    stdinOnce: container.stdinOnce === true,
    tty: container.tty === true,
    envs: options.envs.map((e) => ({ key: e.name, value: e.value })),
    linux: {
      resources: containerResources(pod, container, { cpuCFSQuota: input.cpuCFSQuota, memoryCapacityBytes: input.memoryCapacityBytes }),
      securityContext: containerSecurityContext(pod, container, input.image),
    },
  };
}
