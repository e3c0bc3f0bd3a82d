/**
 * The labels and annotations kubelet puts on sandboxes and containers (kuberuntime/labels.go), and
 * reads back to know a container's pod, restart count, hash and termination-message settings.
 */
import crypto from 'node:crypto';
import type { Pod } from '../types';

export const LABELS = Object.freeze({
  podName: 'io.kubernetes.pod.name',
  podNamespace: 'io.kubernetes.pod.namespace',
  podUid: 'io.kubernetes.pod.uid',
  containerName: 'io.kubernetes.container.name',
});

export const ANNOTATIONS = Object.freeze({
  containerHash: 'io.kubernetes.container.hash',
  restartCount: 'io.kubernetes.container.restartCount',
  terminationMessagePath: 'io.kubernetes.container.terminationMessagePath',
  terminationMessagePolicy: 'io.kubernetes.container.terminationMessagePolicy',
  preStopHandler: 'io.kubernetes.container.preStopHandler',
  containerPorts: 'io.kubernetes.container.ports',
  podDeletionGracePeriod: 'io.kubernetes.pod.deletionGracePeriod',
  podTerminationGracePeriod: 'io.kubernetes.pod.terminationGracePeriod',
});

/** a JSON value with object keys sorted, so that equal specs serialize equally */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** a stable hash of the container's spec (kube's HashContainer): any change of the spec changes it */
export function hashContainer(container: Record<string, unknown>): string {
  return crypto.createHash('sha256').update(canonical(container)).digest('hex').slice(0, 8);
}

export function podLabels(pod: Pod): Record<string, string> {
  return {
    ...((pod.metadata?.labels as Record<string, string> | undefined) ?? {}),
    [LABELS.podName]: String(pod.metadata?.name ?? ''),
    [LABELS.podNamespace]: String(pod.metadata?.namespace ?? ''),
    [LABELS.podUid]: String(pod.metadata?.uid ?? ''),
  };
}

export function podAnnotations(pod: Pod): Record<string, string> {
  return { ...((pod.metadata?.annotations as Record<string, string> | undefined) ?? {}) };
}

export function containerLabels(pod: Pod, container: Record<string, unknown>): Record<string, string> {
  return {
    [LABELS.podName]: String(pod.metadata?.name ?? ''),
    [LABELS.podNamespace]: String(pod.metadata?.namespace ?? ''),
    [LABELS.podUid]: String(pod.metadata?.uid ?? ''),
    [LABELS.containerName]: String(container.name ?? ''),
  };
}

export function containerAnnotations(pod: Pod, container: Record<string, unknown>, restartCount: number): Record<string, string> {
  const annotations: Record<string, string> = {
    [ANNOTATIONS.containerHash]: hashContainer(container),
    [ANNOTATIONS.restartCount]: String(restartCount),
    [ANNOTATIONS.terminationMessagePath]: String(container.terminationMessagePath ?? ''),
    [ANNOTATIONS.terminationMessagePolicy]: String(container.terminationMessagePolicy ?? ''),
  };
  const deletionGrace = pod.metadata?.deletionGracePeriodSeconds;
  if (typeof deletionGrace === 'number') annotations[ANNOTATIONS.podDeletionGracePeriod] = String(deletionGrace);
  const terminationGrace = pod.spec?.terminationGracePeriodSeconds;
  if (typeof terminationGrace === 'number') annotations[ANNOTATIONS.podTerminationGracePeriod] = String(terminationGrace);
  const preStop = (container.lifecycle as Record<string, unknown> | undefined)?.preStop;
  if (preStop) annotations[ANNOTATIONS.preStopHandler] = JSON.stringify(preStop);
  const ports = container.ports as unknown[] | undefined;
  if (ports && ports.length > 0) annotations[ANNOTATIONS.containerPorts] = JSON.stringify(ports);
  return annotations;
}

/** `<name>_<namespace>(<uid>)`, kube's format.Pod */
export function formatPod(pod: { metadata?: { name?: unknown; namespace?: unknown; uid?: unknown } }): string {
  return `${String(pod.metadata?.name ?? '')}_${String(pod.metadata?.namespace ?? '')}(${String(pod.metadata?.uid ?? '')})`;
}
