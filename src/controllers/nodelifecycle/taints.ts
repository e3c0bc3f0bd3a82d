/**
 * Taints and tolerations as the node lifecycle controller and its taint manager read them (kube's
 * taints helpers; toleration matching in ../util/taints), plus the node API shapes they need.
 */
import type { KubeObject } from '../../client/types';
import { taintsOf, toleratesTaint, type Taint, type Toleration } from '../util/taints';

export { taintsOf, toleratesTaint, type Taint, type Toleration };

export interface NodeCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export const NOT_READY_TAINT_KEY = 'node.kubernetes.io/not-ready';
export const UNREACHABLE_TAINT_KEY = 'node.kubernetes.io/unreachable';
export const UNSCHEDULABLE_TAINT_KEY = 'node.kubernetes.io/unschedulable';

export const NOT_READY_NO_EXECUTE: Taint = Object.freeze({ key: NOT_READY_TAINT_KEY, effect: 'NoExecute' });
export const UNREACHABLE_NO_EXECUTE: Taint = Object.freeze({ key: UNREACHABLE_TAINT_KEY, effect: 'NoExecute' });

/** kube's nodeConditionToTaintKeyStatusMap: a condition in this status gives the NoSchedule taint */
export const CONDITION_TAINTS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({
  Ready: { False: NOT_READY_TAINT_KEY, Unknown: UNREACHABLE_TAINT_KEY },
  MemoryPressure: { True: 'node.kubernetes.io/memory-pressure' },
  DiskPressure: { True: 'node.kubernetes.io/disk-pressure' },
  NetworkUnavailable: { True: 'node.kubernetes.io/network-unavailable' },
  PIDPressure: { True: 'node.kubernetes.io/pid-pressure' },
});

const CONDITION_TAINT_KEYS = new Set(Object.values(CONDITION_TAINTS).flatMap((m) => Object.values(m)));

export function conditionsOf(obj: KubeObject): NodeCondition[] {
  return ((obj.status ?? {}) as { conditions?: NodeCondition[] }).conditions ?? [];
}

export function conditionOf(obj: KubeObject, type: string): NodeCondition | undefined {
  return conditionsOf(obj).find((c) => c.type === type);
}

/** taint.MatchTaint: the same key and effect */
export const sameTaint = (a: Taint, b: Taint): boolean => a.key === b.key && a.effect === b.effect;

export const hasTaint = (taints: readonly Taint[], t: Taint): boolean => taints.some((x) => sameTaint(x, t));

/** the taint manager's getMatchingTolerations: every taint tolerated, and by which tolerations */
export function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): { all: boolean; used: Toleration[] } {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const tol = tolerations.find((t) => toleratesTaint(t, taint));
    if (!tol) return { all: false, used: [] };
    used.push(tol);
  }
  return { all: true, used };
}

/**
 * The taint manager's getMinTolerationTime, in seconds: 0 when nothing tolerates (evict now),
 * -1 when every toleration is forever, else the smallest tolerationSeconds (0 or less means now).
 */
export function minTolerationSeconds(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Infinity;
  for (const t of tolerations) {
    if (typeof t.tolerationSeconds !== 'number') continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Infinity ? -1 : min;
}

/**
 * doNoScheduleTaintingPass's wish: the NoSchedule taints the node's conditions and
 * spec.unschedulable call for, and the controller-owned NoSchedule taints it has now.
 */
export function noScheduleTaintDiff(node: KubeObject): { add: Taint[]; remove: Taint[] } {
  const want: Taint[] = [];
  for (const c of conditionsOf(node)) {
    const key = CONDITION_TAINTS[c.type]?.[c.status];
    if (key) want.push({ key, effect: 'NoSchedule' });
  }
  if (((node.spec ?? {}) as { unschedulable?: boolean }).unschedulable) want.push({ key: UNSCHEDULABLE_TAINT_KEY, effect: 'NoSchedule' });
  const have = taintsOf(node).filter((t) => t.effect === 'NoSchedule' && (t.key === UNSCHEDULABLE_TAINT_KEY || CONDITION_TAINT_KEYS.has(t.key)));
  return { add: want.filter((t) => !hasTaint(have, t)), remove: have.filter((t) => !hasTaint(want, t)) };
}

/** RFC 3339 in seconds, as metav1.Time is written */
export function timestamp(ms: number = Date.now()): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
