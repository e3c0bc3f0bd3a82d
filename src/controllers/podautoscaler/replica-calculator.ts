/**
 * kube 1.20's replica calculator for resource metrics (pkg/controller/podautoscaler/
 * replica_calculator.go): from the pods' usage and requests, the replica count that brings the
 * average to the target. Pods being deleted or failed are ignored; pending pods, and (for cpu)
 * pods not ready or still starting, are unready; ready pods without a metric are missing. The
 * ratio is computed over the ready pods with metrics; when pods are unready (on a scale-up) or
 * missing, they are counted pessimistically (0% on a scale-up, 100% on a scale-down) and the
 * change is dropped when it falls within the tolerance or would reverse the direction.
 */
import { parseQuantity } from '../../admission/quantity';
import type { KubeObject } from '../../client/types';

export interface PodMetric {
  /** milli-units (millicores for cpu, milli-bytes for memory) summed over the pod's containers */
  value: number;
  timestamp: number;
  windowMs: number;
}

export interface CalculatorOptions {
  tolerance: number;
  cpuInitializationPeriodMs: number;
  initialReadinessDelayMs: number;
  now?: number;
}

export class ReplicaCalculationError extends Error {}

interface PodShape {
  status?: { phase?: string; startTime?: string; conditions?: Array<{ type: string; status: string; lastTransitionTime?: string }> };
  spec?: { containers?: Array<{ resources?: { requests?: Record<string, unknown> } }> };
}

/** kube's groupPods: the ready count and the names of unready, missing and ignored pods */
export function groupPods(pods: readonly KubeObject[], metrics: ReadonlyMap<string, PodMetric>, resource: string, o: CalculatorOptions): {
  ready: number;
  unready: Set<string>;
  missing: Set<string>;
  ignored: Set<string>;
} {
  const now = o.now ?? Date.now();
  const unready = new Set<string>();
  const missing = new Set<string>();
  const ignored = new Set<string>();
  let ready = 0;
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    const status = (pod as PodShape).status ?? {};
    if (pod.metadata?.deletionTimestamp || status.phase === 'Failed') {
      ignored.add(name);
      continue;
    }
    if (status.phase === 'Pending') {
      unready.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      missing.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const condition = status.conditions?.find((c) => c.type === 'Ready');
      const start = status.startTime ? Date.parse(status.startTime) : NaN;
      let isUnready: boolean;
      if (!condition || Number.isNaN(start)) {
        isUnready = true;
      } else {
        const transition = condition.lastTransitionTime ? Date.parse(condition.lastTransitionTime) : 0;
        if (start + o.cpuInitializationPeriodMs > now) {
          // still starting: a sample taken before one full window after the last transition does not count
          isUnready = condition.status === 'False' || metric.timestamp < transition + metric.windowMs;
        } else {
          // unready and never been ready since the initial readiness delay
          isUnready = condition.status === 'False' && start + o.initialReadinessDelayMs > transition;
        }
      }
      if (isUnready) {
        unready.add(name);
        continue;
      }
    }
    ready++;
  }
  return { ready, unready, missing, ignored };
}

/** kube's calculatePodRequests: each pod's request of the resource in milli-units; a container without one is an error */
export function podRequests(pods: readonly KubeObject[], resource: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    let sum = 0;
    for (const c of (pod as PodShape).spec?.containers ?? []) {
      const q = parseQuantity(c.resources?.requests?.[resource]);
      if (q === undefined) throw new ReplicaCalculationError(`missing request for ${resource}`);
      sum += Math.round(q * 1000);
    }
    requests.set(pod.metadata?.name ?? '', sum);
  }
  return requests;
}

/** kube's GetResourceUtilizationRatio: usage over requests of the pods having both, in whole percent */
export function utilizationRatio(metrics: ReadonlyMap<string, number>, requests: ReadonlyMap<string, number>, target: number): {
  ratio: number;
  utilization: number;
  rawAverage: number;
} {
  let used = 0;
  let requested = 0;
  let entries = 0;
  for (const [name, value] of metrics) {
    const request = requests.get(name);
    if (request === undefined) continue;
    used += value;
    requested += request;
    entries++;
  }
  if (requested === 0) throw new ReplicaCalculationError('no metrics returned matched known pods');
  const utilization = Math.trunc((used * 100) / requested);
  return { ratio: utilization / target, utilization, rawAverage: Math.trunc(used / entries) };
}

export interface ResourceProposal {
  replicas: number;
  /** whole percent of the requests (utilization targets only) */
  utilization?: number;
  /** average usage per pod, milli-units */
  rawAverage: number;
}

/**
 * The proposal for one resource metric: `target` is a utilization percentage, or (with
 * `averageValueMilli`) an average value per pod (kube's GetRawResourceReplicas).
 */
export function resourceReplicas(
  currentReplicas: number,
  pods: readonly KubeObject[],
  podMetrics: ReadonlyMap<string, PodMetric>,
  resource: string,
  target: { utilization: number } | { averageValueMilli: number },
  o: CalculatorOptions,
): ResourceProposal {
  if (pods.length === 0) throw new ReplicaCalculationError('no pods returned by selector while calculating replica count');
  const groups = groupPods(pods, podMetrics, resource, o);
  const metrics = new Map<string, number>();
  for (const [name, m] of podMetrics) if (!groups.ignored.has(name) && !groups.unready.has(name)) metrics.set(name, m.value);

  const byUtilization = 'utilization' in target;
  const requests = byUtilization ? podRequests(pods, resource) : new Map<string, number>();
  if (metrics.size === 0) throw new ReplicaCalculationError('did not receive metrics for any ready pods');
  const measure = (m: ReadonlyMap<string, number>) => {
    if (byUtilization) return utilizationRatio(m, requests, target.utilization);
    const average = Math.trunc([...m.values()].reduce((a, b) => a + b, 0) / m.size);
    return { ratio: average / target.averageValueMilli, utilization: undefined, rawAverage: average };
  };
  const first = measure(metrics);
  const keep = (): ResourceProposal => ({ replicas: currentReplicas, utilization: first.utilization, rawAverage: first.rawAverage });
  const rebalanceUnready = groups.unready.size > 0 && first.ratio > 1;
  if (!rebalanceUnready && groups.missing.size === 0) {
    if (Math.abs(1 - first.ratio) <= o.tolerance) return keep();
    return { replicas: Math.ceil(first.ratio * groups.ready), utilization: first.utilization, rawAverage: first.rawAverage };
  }
  if (groups.missing.size > 0) {
    for (const name of groups.missing) {
      // a scale-down counts missing pods at 100% of their request (or of the target), a scale-up at 0
      const full = byUtilization ? requests.get(name) ?? 0 : target.averageValueMilli;
      if (first.ratio < 1) metrics.set(name, full);
      else if (first.ratio > 1) metrics.set(name, 0);
    }
  }
  if (rebalanceUnready) for (const name of groups.unready) metrics.set(name, 0);
  const second = measure(metrics);
  if (Math.abs(1 - second.ratio) <= o.tolerance || (first.ratio < 1 && second.ratio > 1) || (first.ratio > 1 && second.ratio < 1)) return keep();
  const replicas = Math.ceil(second.ratio * metrics.size);
  if ((second.ratio < 1 && replicas > currentReplicas) || (second.ratio > 1 && replicas < currentReplicas)) return keep();
  return { replicas, utilization: first.utilization, rawAverage: first.rawAverage };
}
