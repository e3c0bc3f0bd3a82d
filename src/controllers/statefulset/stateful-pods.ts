/**
 * The identity and storage of a StatefulSet's pods (kube's stateful_set_utils.go): pod `<set>-<n>`
 * with hostname and subdomain, the pod-name and controller-revision-hash labels, and one
 * PersistentVolumeClaim `<template>-<set>-<n>` per claim template mounted as the template's volume.
 */
import type { KubeObject } from '../../client/types';
import { podFromTemplate } from '../util/pod-template';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const REVISION_LABEL = 'controller-revision-hash';

interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  [k: string]: unknown;
}

interface SetSpec {
  replicas?: number;
  serviceName?: string;
  template?: KubeObject;
  selector?: { matchLabels?: Record<string, string> };
  volumeClaimTemplates?: KubeObject[];
  podManagementPolicy?: string;
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } };
  revisionHistoryLimit?: number;
}

export function setSpec(set: KubeObject): SetSpec {
  return (set.spec ?? {}) as SetSpec;
}

/** getParentNameAndOrdinal: `web-3` -> web, 3; anything else -> no ordinal */
export function parentAndOrdinal(pod: KubeObject): { parent: string; ordinal: number } {
  const m = /^(.*)-([0-9]+)$/.exec(pod.metadata?.name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const ordinal = Number(m[2]);
  return Number.isSafeInteger(ordinal) && ordinal <= 2 ** 31 - 1 ? { parent: m[1]!, ordinal } : { parent: '', ordinal: -1 };
}

export function ordinalOf(pod: KubeObject): number {
  return parentAndOrdinal(pod).ordinal;
}

export function isMemberOf(set: KubeObject, pod: KubeObject): boolean {
  return parentAndOrdinal(pod).parent === set.metadata?.name;
}

export function podName(set: KubeObject, ordinal: number): string {
  return `${set.metadata?.name}-${ordinal}`;
}

export function claimName(set: KubeObject, claim: KubeObject, ordinal: number): string {
  return `${claim.metadata?.name}-${set.metadata?.name}-${ordinal}`;
}

/** getPersistentVolumeClaims: the claims the pod of `ordinal` uses, by template name */
export function claimsFor(set: KubeObject, ordinal: number): Map<string, KubeObject> {
  const claims = new Map<string, KubeObject>();
  const selectorLabels = setSpec(set).selector?.matchLabels ?? {};
  for (const template of setSpec(set).volumeClaimTemplates ?? []) {
    const claim = structuredClone(template);
    claim.apiVersion = 'v1';
    claim.kind = 'PersistentVolumeClaim';
    claim.metadata = {
      ...(claim.metadata ?? {}),
      name: claimName(set, template, ordinal),
      namespace: set.metadata?.namespace,
      labels: { ...(claim.metadata?.labels ?? {}), ...selectorLabels },
    };
    delete claim.status;
    claims.set(template.metadata?.name ?? '', claim);
  }
  return claims;
}

function volumesOf(pod: KubeObject): Volume[] {
  return ((pod.spec ?? {}) as { volumes?: Volume[] }).volumes ?? [];
}

/** storageMatches: every claim template is mounted from its claim */
export function storageMatches(set: KubeObject, pod: KubeObject): boolean {
  const ordinal = ordinalOf(pod);
  if (ordinal < 0) return false;
  const volumes = new Map(volumesOf(pod).map((v) => [v.name, v]));
  for (const [name, claim] of claimsFor(set, ordinal)) {
    if (volumes.get(name)?.persistentVolumeClaim?.claimName !== claim.metadata?.name) return false;
  }
  return true;
}

/** updateStorage: the claims' volumes replace the template's volumes of the same names */
export function updateStorage(set: KubeObject, pod: KubeObject): void {
  const claims = claimsFor(set, ordinalOf(pod));
  if (claims.size === 0) return;
  const spec = (pod.spec ??= {}) as { volumes?: Volume[] };
  const kept = (spec.volumes ?? []).filter((v) => !claims.has(v.name));
  const mounted: Volume[] = [...claims].map(([name, claim]) => ({ name, persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' } }));
  spec.volumes = [...mounted, ...kept];
}

/** identityMatches: the name, namespace and pod-name label a member must carry */
export function identityMatches(set: KubeObject, pod: KubeObject): boolean {
  const { parent, ordinal } = parentAndOrdinal(pod);
  return (
    set.metadata?.name === parent &&
    ordinal >= 0 &&
    pod.metadata?.name === podName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    pod.metadata?.labels?.[POD_NAME_LABEL] === pod.metadata?.name
  );
}

/** updateIdentity: hostname, subdomain (the governing service) and the pod-name label */
export function updateIdentity(set: KubeObject, pod: KubeObject): void {
  const ordinal = ordinalOf(pod);
  pod.metadata = { ...pod.metadata, name: podName(set, ordinal), namespace: set.metadata?.namespace, labels: { ...(pod.metadata?.labels ?? {}), [POD_NAME_LABEL]: podName(set, ordinal) } };
  const spec = (pod.spec ??= {}) as { hostname?: string; subdomain?: string };
  spec.hostname = podName(set, ordinal);
  const service = setSpec(set).serviceName;
  if (service) spec.subdomain = service;
}

/** newStatefulSetPod plus its revision label (newVersionedStatefulSetPod) */
export function newStatefulPod(set: KubeObject, ordinal: number, revisionName: string): KubeObject {
  const pod = podFromTemplate(set, setSpec(set).template);
  pod.metadata!.name = podName(set, ordinal);
  updateIdentity(set, pod);
  updateStorage(set, pod);
  pod.metadata!.labels = { ...(pod.metadata!.labels ?? {}), [REVISION_LABEL]: revisionName };
  return pod;
}

export function podRevision(pod: KubeObject): string {
  return pod.metadata?.labels?.[REVISION_LABEL] ?? '';
}

function phaseOf(pod: KubeObject): string {
  return ((pod.status ?? {}) as { phase?: string }).phase ?? '';
}

export function isFailed(pod: KubeObject): boolean {
  return phaseOf(pod) === 'Failed';
}

export function isTerminating(pod: KubeObject): boolean {
  return !!pod.metadata?.deletionTimestamp;
}

export function isRunningAndReady(pod: KubeObject): boolean {
  const conditions = ((pod.status ?? {}) as { conditions?: { type: string; status: string }[] }).conditions ?? [];
  return phaseOf(pod) === 'Running' && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

export function isHealthy(pod: KubeObject): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod);
}
