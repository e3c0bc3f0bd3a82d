/**
 * What a quota's status should say (kube's CalculateUsage for the resourcequota controller):
 * status.hard is spec.hard, status.used the namespace's use of every hard resource by the objects
 * in scope, measured with the same evaluators the ResourceQuota admission charges with.
 */
import { formatQuantity, parseQuantity } from '../../admission/quantity';
import { isResourceOf, isTerminalPod, kindOfResourceName, matchesScopes, usageOf, type QuotaKind } from '../../admission/plugins/quota-usage';
import type { KubeObject } from '../../client/types';

type ResourceList = Record<string, string | number>;

export interface QuotaStatus {
  hard: ResourceList;
  used: Record<string, string>;
}

export function hardOf(quota: KubeObject): ResourceList {
  return ((quota.spec as { hard?: ResourceList } | undefined)?.hard ?? {}) as ResourceList;
}

/** the kinds whose objects the quota's hard resources count, deduplicated */
export function kindsOf(quota: KubeObject): QuotaKind[] {
  const seen = new Map<string, QuotaKind>();
  for (const name of Object.keys(hardOf(quota))) {
    const kind = kindOfResourceName(name);
    if (kind) seen.set(`${kind.resource}.${kind.group}`, kind);
  }
  return [...seen.values()];
}

/**
 * kube's QuotaV1Pod: a pod stops counting once terminal, or once its deletion's grace period has
 * passed (the node agent is gone and nobody will finish the delete).
 */
export function podCounts(pod: KubeObject, now: number): boolean {
  if (isTerminalPod(pod)) return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (deletion && grace !== undefined && grace !== null) return Date.parse(deletion) + grace * 1000 > now;
  return true;
}

/** the status the quota should have, given the namespace's objects of each kind it counts */
export function calculateStatus(quota: KubeObject, objectsOf: (kind: QuotaKind) => readonly KubeObject[], now: number = Date.now()): QuotaStatus {
  const hard = hardOf(quota);
  const used: Record<string, string> = {};
  for (const name of Object.keys(hard)) {
    const kind = kindOfResourceName(name);
    let total = 0;
    if (kind && isResourceOf(kind, name)) {
      const isPod = kind.group === '' && kind.resource === 'pods';
      for (const obj of objectsOf(kind)) {
        if (isPod && !podCounts(obj, now)) continue;
        if (!matchesScopes(quota, kind, obj)) continue;
        total += usageOf(kind, obj, name);
      }
    }
    used[name] = formatQuantity(total);
  }
  return { hard: { ...hard }, used };
}

/** two resource lists hold the same quantities (kube's quota.Equals) */
export function sameResources(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => b !== undefined && k in b && parseQuantity(a![k]) === parseQuantity(b[k]));
}

/** kube's priority queue test: the spec changed since the last status, or some hard resource has no use recorded */
export function needsPriority(quota: KubeObject): boolean {
  const status = (quota.status ?? {}) as { hard?: ResourceList; used?: ResourceList };
  if (!sameResources(hardOf(quota), status.hard)) return true;
  return Object.keys(hardOf(quota)).some((n) => status.used?.[n] === undefined);
}
