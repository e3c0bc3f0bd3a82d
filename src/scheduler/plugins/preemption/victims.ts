/**
 * Which pods on one node must go for the preemptor to fit (kube 1.20's selectVictimsOnNode and
 * filterPodsWithPDBViolation): remove every lower-priority pod, check the preemptor fits, then
 * add pods back one at a time, PodDisruptionBudget-violating ones first, most important first,
 * keeping each one that still lets the preemptor fit.
 */
import { labelSelectorFromObject, type LabelSelector, type LabelSelectorObject } from '../../../api/selectors';
import type { KubeObject } from '../../../client/types';
import { PodInfo, type NodeInfo } from '../../framework/node-info';
import { podPriority } from '../../framework/resource';
import { isSuccess, type Status } from '../../framework/status';
import type { CycleState, FrameworkHandle } from '../../framework/types';

/** when the pod started (ms); pods not started yet count as starting now (kube's GetPodStartTime) */
export function podStartTime(pod: KubeObject, now: number): number {
  const start = (pod.status as { startTime?: string } | undefined)?.startTime;
  const ms = start ? Date.parse(start) : NaN;
  return Number.isNaN(ms) ? now : ms;
}

/** kube's MoreImportantPod: higher priority, then the one running longer */
export function moreImportantPod(a: KubeObject, b: KubeObject, now = Date.now()): boolean {
  const pa = podPriority(a);
  const pb = podPriority(b);
  if (pa !== pb) return pa > pb;
  return podStartTime(a, now) < podStartTime(b, now);
}

/** sorts pods most important first (stable for equals) */
export function sortByImportance<T>(items: T[], podOf: (x: T) => KubeObject, now = Date.now()): T[] {
  return items.sort((x, y) => {
    const a = podOf(x);
    const b = podOf(y);
    if (moreImportantPod(a, b, now)) return -1;
    if (moreImportantPod(b, a, now)) return 1;
    return 0;
  });
}

/** a PodDisruptionBudget reduced to what preemption reads */
export interface Budget {
  namespace: string;
  selector: LabelSelector;
  disruptionsAllowed: number;
  /** pods the API server already counted as disrupted (status.disruptedPods) */
  disrupted: ReadonlySet<string>;
}

/** budgets whose selector can match something; a PDB with an invalid, null or empty selector matches no pod */
export function budgetsOf(pdbs: readonly KubeObject[]): Budget[] {
  const out: Budget[] = [];
  for (const pdb of pdbs) {
    const spec = (pdb.spec ?? {}) as { selector?: LabelSelectorObject | null };
    const status = (pdb.status ?? {}) as { disruptionsAllowed?: number; disruptedPods?: Record<string, unknown> | null };
    let selector: LabelSelector;
    try {
      selector = labelSelectorFromObject(spec.selector);
    } catch {
      continue;
    }
    if (selector.matchesNothing || selector.isEmpty()) continue;
    out.push({
      namespace: pdb.metadata?.namespace ?? '',
      selector,
      disruptionsAllowed: status.disruptionsAllowed ?? 0,
      disrupted: new Set(Object.keys(status.disruptedPods ?? {})),
    });
  }
  return out;
}

/**
 * Splits pods (in the given order) into those whose eviction would take some budget below zero
 * and the rest; each matching pod uses up one allowed disruption of every budget it matches,
 * unless the budget already lists it as disrupted.
 */
export function splitByBudgetViolation<T>(items: readonly T[], podOf: (x: T) => KubeObject, budgets: readonly Budget[]): { violating: T[]; nonViolating: T[] } {
  const allowed = budgets.map((b) => b.disruptionsAllowed);
  const violating: T[] = [];
  const nonViolating: T[] = [];
  for (const item of items) {
    const pod = podOf(item);
    const labels = pod.metadata?.labels;
    let violates = false;
    // a pod without labels matches no budget
    if (labels && Object.keys(labels).length > 0) {
      const ns = pod.metadata?.namespace ?? '';
      const name = pod.metadata?.name ?? '';
      budgets.forEach((b, i) => {
        if (b.namespace !== ns || !b.selector.matches(labels) || b.disrupted.has(name)) return;
        allowed[i] -= 1;
        if (allowed[i] < 0) violates = true;
      });
    }
    (violates ? violating : nonViolating).push(item);
  }
  return { violating, nonViolating };
}

export interface NodeVictims {
  /** most important first */
  pods: KubeObject[];
  numPDBViolations: number;
}

/**
 * The fewest pods to evict from `nodeInfo` (a clone: it is changed) so that `pod` passes the
 * filters, with `state` (a clone too) kept in step through the PreFilter extensions; undefined
 * when removing every lower-priority pod is not enough, or an extension fails.
 */
export function selectVictimsOnNode(handle: FrameworkHandle, state: CycleState, pod: KubeObject, nodeInfo: NodeInfo, budgets: readonly Budget[]): NodeVictims | undefined {
  const remove = (pi: PodInfo): Status | undefined => {
    nodeInfo.removePod(pi.pod);
    return handle.runPreFilterExtensionRemovePod(state, pod, pi, nodeInfo);
  };
  const add = (pi: PodInfo): Status | undefined => {
    nodeInfo.addPodInfo(pi);
    return handle.runPreFilterExtensionAddPod(state, pod, pi, nodeInfo);
  };
  const priority = podPriority(pod);
  // collect first: removing while walking nodeInfo.pods would skip pods
  const potential = nodeInfo.pods.filter((pi) => podPriority(pi.pod) < priority);
  for (const pi of potential) if (!isSuccess(remove(pi))) return undefined;
  // kube does not consider the preemptor's affinity to victims: if it does not fit now, it never will
  if (!isSuccess(handle.runFilterPluginsWithNominatedPods(state, pod, nodeInfo))) return undefined;

  const now = Date.now();
  sortByImportance(potential, (pi) => pi.pod, now);
  const { violating, nonViolating } = splitByBudgetViolation(potential, (pi) => pi.pod, budgets);
  const victims: PodInfo[] = [];
  let failed = false;
  /** add the pod back; keep it if the preemptor still fits, otherwise it is a victim */
  const reprieve = (pi: PodInfo): boolean => {
    if (!isSuccess(add(pi))) return (failed = true);
    if (isSuccess(handle.runFilterPluginsWithNominatedPods(state, pod, nodeInfo))) return true;
    if (!isSuccess(remove(pi))) return (failed = true);
    victims.push(pi);
    return false;
  };
  let numPDBViolations = 0;
  for (const pi of violating) {
    if (!reprieve(pi)) numPDBViolations += 1;
    if (failed) return undefined;
  }
  for (const pi of nonViolating) {
    reprieve(pi);
    if (failed) return undefined;
  }
  // violating victims came first: restore the importance order that node picking relies on
  if (violating.length > 0 && nonViolating.length > 0) sortByImportance(victims, (pi) => pi.pod, now);
  return { pods: victims.map((pi) => pi.pod), numPDBViolations };
}
