/**
 * The APIService object as the aggregator reads it (apiregistration.k8s.io/v1), and kube's helpers
 * over it: the Available condition, the local condition, and what a registration names.
 */
import type { KubeObject } from '../api/kind';
import type { APIServiceCondition } from '../api/kinds/apiregistration/conditions';

export type { APIServiceCondition } from '../api/kinds/apiregistration/conditions';
export { localAvailableCondition, nowTimestamp } from '../api/kinds/apiregistration/conditions';

export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  port?: number;
}

export interface APIService extends KubeObject {
  metadata: NonNullable<KubeObject['metadata']> & { name: string };
  spec: {
    service?: ServiceReference | null;
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    /** base64 in JSON */
    caBundle?: string;
    groupPriorityMinimum: number;
    versionPriority: number;
  };
  status?: { conditions?: APIServiceCondition[] };
}

/** kube's label on the APIServices the server registers for itself, and its two values */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';
/** created at start; only reconciled by the next start */
export const MANAGED_ON_START = 'onstart';
/** kept in step while the server runs (custom resource group/versions) */
export const MANAGED_CONTINUOUSLY = 'true';

/** `<version>.<group>`: the name kube requires of an APIService (`v1.` for the core group) */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}

/** remote: served by an extension server behind a Service */
export function isRemote(s: APIService): boolean {
  return s.spec?.service !== undefined && s.spec?.service !== null;
}

export function availableCondition(s: APIService): APIServiceCondition | undefined {
  return s.status?.conditions?.find((c) => c.type === 'Available');
}

/** kube's IsAPIServiceConditionTrue(Available) */
export function isAvailable(s: APIService): boolean {
  return availableCondition(s)?.status === 'True';
}

/** the service port a registration names; kube defaults it to 443 */
export function servicePort(s: APIService): number {
  return s.spec.service?.port ?? 443;
}

/**
 * kube's SetAPIServiceCondition: replace the condition of the same type; lastTransitionTime moves
 * only when the status changes. Returns the new conditions (the input is not changed).
 */
export function setCondition(conditions: APIServiceCondition[] | undefined, next: APIServiceCondition): APIServiceCondition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  if (i < 0) return [...list, next];
  const old = list[i];
  list[i] = {
    ...old,
    status: next.status,
    lastTransitionTime: old.status !== next.status ? next.lastTransitionTime : old.lastTransitionTime,
    reason: next.reason,
    message: next.message,
  };
  return list;
}
