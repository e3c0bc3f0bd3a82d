/**
 * kubelet 1.20's computePodActions (kuberuntime_manager.go): what a sync must do to bring the
 * runtime to the pod's spec. A sandbox that is missing, not ready, duplicated, in the wrong
 * network namespace or without an IP means kill everything and start over with attempt + 1; init
 * containers run one at a time, in order; regular containers start when they are not running and
 * the restart policy allows it, and running ones are restarted when their spec changed or their
 * liveness or startup probe failed.
 */
import type { ContainerRuntimeStatus, Pod, PodRuntimeStatus, ProbeResults } from '../types';
import { hashContainer } from './labels';
import { containersOf, isHostNetworkPod, namespacesForPod } from './sandbox-config';

type Spec = Record<string, unknown>;

export interface ContainerToKill {
  name: string;
  container: Spec;
  /** the Killing event's message; empty for kube's default */
  message: string;
}

export interface PodActions {
  killPod: boolean;
  createSandbox: boolean;
  /** the sandbox to keep using, or the changed one (for the SandboxChanged event) */
  sandboxId: string;
  attempt: number;
  nextInitContainerToStart?: Spec;
  /** indexes into spec.containers */
  containersToStart: number[];
  /** by container id (`<type>://<id>`) */
  containersToKill: Map<string, ContainerToKill>;
}

/** the newest instance of a container by name */
export function findContainerStatus(status: PodRuntimeStatus, name: string): ContainerRuntimeStatus | undefined {
  return status.containerStatuses.find((c) => c.name === name);
}

function restartPolicy(pod: Pod): string {
  return typeof pod.spec?.restartPolicy === 'string' ? pod.spec.restartPolicy : 'Always';
}

export function shouldRestartOnFailure(pod: Pod): boolean {
  return restartPolicy(pod) !== 'Never';
}

function containerSucceeded(container: Spec, status: PodRuntimeStatus): boolean {
  const c = findContainerStatus(status, String(container.name));
  return c !== undefined && c.state === 'exited' && c.exitCode === 0;
}

/** kube's ShouldContainerBeRestarted */
export function shouldContainerBeRestarted(container: Spec, pod: Pod, status: PodRuntimeStatus): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  const c = findContainerStatus(status, String(container.name));
  if (!c) return true;
  if (c.state === 'running') return false;
  if (c.state === 'unknown' || c.state === 'created') return true;
  const policy = restartPolicy(pod);
  if (policy === 'Never') return false;
  if (policy === 'OnFailure' && c.exitCode === 0) return false;
  return true;
}

export function isInitContainerFailed(status: ContainerRuntimeStatus): boolean {
  return (status.state === 'exited' && status.exitCode !== 0) || status.state === 'unknown';
}

/** kube's findNextInitContainerToRun: the last failed one's status, the next to run, and whether all are done */
export function findNextInitContainerToRun(pod: Pod, status: PodRuntimeStatus): { lastStatus?: ContainerRuntimeStatus; next?: Spec; done: boolean } {
  const inits = containersOf(pod, 'initContainers');
  if (inits.length === 0) return { done: true };
  for (let i = inits.length - 1; i >= 0; i--) {
    const c = findContainerStatus(status, String(inits[i].name));
    if (c && isInitContainerFailed(c)) return { lastStatus: c, next: inits[i], done: false };
  }
  for (let i = inits.length - 1; i >= 0; i--) {
    const c = findContainerStatus(status, String(inits[i].name));
    if (!c) continue;
    if (c.state === 'running') return { done: false };
    if (c.state === 'exited') return i === inits.length - 1 ? { done: true } : { next: inits[i + 1], done: false };
  }
  return { next: inits[0], done: false };
}

/** kube's podSandboxChanged: whether to create a new sandbox, its attempt, and the current one's id */
export function podSandboxChanged(pod: Pod, status: PodRuntimeStatus): { changed: boolean; attempt: number; sandboxId: string } {
  if (status.sandboxStatuses.length === 0) return { changed: true, attempt: 0, sandboxId: '' };
  const ready = status.sandboxStatuses.filter((s) => s.state === 'SANDBOX_READY').length;
  const latest = status.sandboxStatuses[0];
  const attempt = latest.metadata?.attempt ?? 0;
  if (ready > 1) return { changed: true, attempt: attempt + 1, sandboxId: latest.id };
  if (latest.state !== 'SANDBOX_READY') return { changed: true, attempt: attempt + 1, sandboxId: latest.id };
  const network = latest.linux?.namespaces?.options?.network ?? 'POD';
  if (network !== namespacesForPod(pod).network) return { changed: true, attempt: attempt + 1, sandboxId: '' };
  if (!isHostNetworkPod(pod) && !latest.network?.ip) return { changed: true, attempt: attempt + 1, sandboxId: latest.id };
  return { changed: false, attempt, sandboxId: latest.id };
}

export function computePodActions(pod: Pod, status: PodRuntimeStatus, probes: { liveness?: ProbeResults; startup?: ProbeResults }): PodActions {
  const sandbox = podSandboxChanged(pod, status);
  const actions: PodActions = {
    killPod: sandbox.changed,
    createSandbox: sandbox.changed,
    sandboxId: sandbox.sandboxId,
    attempt: sandbox.attempt,
    containersToStart: [],
    containersToKill: new Map(),
  };
  const containers = containersOf(pod);
  if (sandbox.changed) {
    // a Never pod whose sandbox died after its containers ran stays down
    if (!shouldRestartOnFailure(pod) && sandbox.attempt !== 0 && status.containerStatuses.length !== 0) {
      actions.createSandbox = false;
      return actions;
    }
    const inits = containersOf(pod, 'initContainers');
    if (inits.length > 0) {
      actions.nextInitContainerToStart = inits[0];
      return actions;
    }
    containers.forEach((container, index) => {
      if (containerSucceeded(container, status) && restartPolicy(pod) === 'OnFailure') return;
      actions.containersToStart.push(index);
    });
    return actions;
  }

  const init = findNextInitContainerToRun(pod, status);
  if (!init.done) {
    if (init.next) {
      const failed = init.lastStatus !== undefined && isInitContainerFailed(init.lastStatus);
      if (failed && !shouldRestartOnFailure(pod)) {
        actions.killPod = true;
      } else {
        if (init.lastStatus?.state === 'unknown') {
          actions.containersToKill.set(init.lastStatus.id, { name: init.lastStatus.name, container: init.next, message: 'Init container is in unknown state, try killing it before restart' });
        }
        actions.nextInitContainerToStart = init.next;
      }
    }
    return actions;
  }

  let keep = 0;
  containers.forEach((container, index) => {
    const name = String(container.name);
    const c = findContainerStatus(status, name);
    if (!c || c.state !== 'running') {
      if (shouldContainerBeRestarted(container, pod, status)) {
        actions.containersToStart.push(index);
        if (c && c.state === 'unknown') {
          actions.containersToKill.set(c.id, { name, container, message: 'Container is in unknown state, try killing it before restart' });
        }
      }
      return;
    }
    let message: string;
    let restart = shouldRestartOnFailure(pod);
    if (c.hash !== hashContainer(container)) {
      message = `Container ${name} definition changed`;
      restart = true;
    } else if (probes.liveness?.get(c.id) === 'failure') {
      message = `Container ${name} failed liveness probe`;
    } else if (probes.startup?.get(c.id) === 'failure') {
      message = `Container ${name} failed startup probe`;
    } else {
      keep++;
      return;
    }
    if (restart) {
      message = `${message}, will be restarted`;
      actions.containersToStart.push(index);
    }
    actions.containersToKill.set(c.id, { name, container, message });
  });
  if (keep === 0 && actions.containersToStart.length === 0) actions.killPod = true;
  return actions;
}
