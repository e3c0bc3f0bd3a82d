/**
 * Taints and tolerations as kube's helpers read them (v1helper.ToleratesTaint): shared by the
 * daemonset and node lifecycle controllers, and by the scheduler to come.
 */
import type { KubeObject } from '../../client/types';

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export function taintsOf(node: KubeObject): Taint[] {
  return ((node.spec ?? {}) as { taints?: Taint[] }).taints ?? [];
}

/** v1helper.ToleratesTaint: an empty effect or key matches any; operator Equal (the default) compares values */
export function toleratesTaint(tol: Toleration, taint: Taint): boolean {
  if (tol.effect && tol.effect !== taint.effect) return false;
  if (tol.key && tol.key !== taint.key) return false;
  const op = tol.operator || 'Equal';
  if (op === 'Exists') return true;
  if (op === 'Equal') return (tol.value ?? '') === (taint.value ?? '');
  return false;
}
