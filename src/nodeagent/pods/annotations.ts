/**
 * kubelet's config annotations (pkg/kubelet/types/pod_update.go) and the small helpers around them.
 */
import type { Pod } from '../types';

export const CONFIG_SOURCE = 'kubernetes.io/config.source';
export const CONFIG_HASH = 'kubernetes.io/config.hash';
export const CONFIG_SEEN = 'kubernetes.io/config.seen';
export const CONFIG_MIRROR = 'kubernetes.io/config.mirror';

/** the pod sources kubelet knows */
export type PodSource = 'file' | 'http' | 'api';

/** `name_namespace`, kubecontainer.GetPodFullName: static and mirror pods are matched by it */
export function podFullName(pod: Pod): string {
  return `${pod.metadata?.name ?? ''}_${pod.metadata?.namespace ?? ''}`;
}

export function podUid(pod: Pod): string {
  return pod.metadata?.uid ?? '';
}

export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata?.annotations?.[CONFIG_MIRROR] !== undefined;
}

/** a pod from a file or a URL, not from the API (kubetypes.IsStaticPod) */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata?.annotations?.[CONFIG_SOURCE];
  return source !== undefined && source !== 'api';
}

/** the hash a static pod carries, which its mirror pod repeats in config.mirror */
export function staticPodHash(pod: Pod): string {
  return pod.metadata?.annotations?.[CONFIG_HASH] ?? '';
}
