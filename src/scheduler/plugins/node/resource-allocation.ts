/**
 * What the resource scores share (kube 1.20's resourceAllocationScorer): for each configured
 * resource, the node's allocatable amount and what it would have requested with the pod on it,
 * counting kube's defaults (100m CPU, 200Mi memory) for containers that request none. The
 * plugin's scorer turns those amounts into a score.
 */
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import {
  CPU,
  DEFAULT_MEMORY_REQUEST,
  DEFAULT_MILLI_CPU_REQUEST,
  EPHEMERAL_STORAGE,
  MEMORY,
  isScalarResource,
  milliValue,
  podSpec,
  wholeValue,
  type ResourceList,
} from '../../framework/resource';
import { errorStatus, type Status } from '../../framework/status';
import type { ResourceSpec } from './plugin-args';

/** schedutil.GetNonzeroRequestForResource: one container's request, with the defaults for cpu and memory */
function nonZeroRequest(resource: string, requests: ResourceList | undefined): number {
  const q = requests?.[resource];
  switch (resource) {
    case CPU:
      return q === undefined ? DEFAULT_MILLI_CPU_REQUEST : milliValue(q);
    case MEMORY:
      return q === undefined ? DEFAULT_MEMORY_REQUEST : wholeValue(q);
    case EPHEMERAL_STORAGE:
      return q === undefined ? 0 : wholeValue(q);
    default:
      return q !== undefined && isScalarResource(resource) ? wholeValue(q) : 0;
  }
}

/**
 * kube's calculatePodResourceRequest: containers summed, raised to the largest init container,
 * plus the overhead (which kube adds as a whole-unit Value, even for cpu).
 */
export function podResourceRequest(pod: KubeObject, resource: string): number {
  const spec = podSpec(pod);
  let total = 0;
  for (const c of spec.containers ?? []) total += nonZeroRequest(resource, c.resources?.requests);
  for (const c of spec.initContainers ?? []) total = Math.max(total, nonZeroRequest(resource, c.resources?.requests));
  const overhead = spec.overhead?.[resource];
  if (overhead !== undefined) total += wholeValue(overhead);
  return total;
}

/** the node's allocatable amount of a resource as the scores see it (0 for names they ignore) */
export function scoredAllocatable(nodeInfo: NodeInfo, resource: string): number {
  const a = nodeInfo.allocatable;
  switch (resource) {
    case CPU:
      return a.milliCPU;
    case MEMORY:
      return a.memory;
    case EPHEMERAL_STORAGE:
      return a.ephemeralStorage;
    default:
      return isScalarResource(resource) ? (a.scalar.get(resource) ?? 0) : 0;
  }
}

/** what the node's pods request of a resource with the pod added (kube's calculateResourceAllocatableRequest) */
export function scoredRequested(nodeInfo: NodeInfo, resource: string, podRequest: number): number {
  switch (resource) {
    case CPU:
      return nodeInfo.nonZeroRequested.milliCPU + podRequest;
    case MEMORY:
      return nodeInfo.nonZeroRequested.memory + podRequest;
    case EPHEMERAL_STORAGE:
      return nodeInfo.requested.ephemeralStorage + podRequest;
    default:
      return isScalarResource(resource) ? (nodeInfo.requested.scalar.get(resource) ?? 0) + podRequest : 0;
  }
}

/**
 * Turns requested and allocatable amounts (indexed as the scorer's resources) into a score.
 * The arrays are reused between calls: read them, do not keep them.
 */
export type AmountScorer = (requested: Float64Array, allocatable: Float64Array) => number;

/** a resource score over a fixed list of resources (kube's map of resource to weight: a repeated name keeps its last weight) */
export class ResourceAllocationScorer {
  readonly names: readonly string[];
  readonly weights: readonly number[];
  readonly #scorer: AmountScorer;
  readonly #requested: Float64Array;
  readonly #allocatable: Float64Array;
  readonly #podRequests: Float64Array;
  /** the pod whose requests #podRequests holds (scores run node after node for one pod) */
  #pod: KubeObject | undefined;

  constructor(resources: readonly ResourceSpec[], scorer: AmountScorer) {
    const byName = new Map<string, number>();
    for (const r of resources) byName.set(r.name, r.weight);
    this.names = [...byName.keys()];
    this.weights = [...byName.values()];
    this.#scorer = scorer;
    this.#requested = new Float64Array(this.names.length);
    this.#allocatable = new Float64Array(this.names.length);
    this.#podRequests = new Float64Array(this.names.length);
  }

  score(pod: KubeObject, nodeInfo: NodeInfo): number | Status {
    if (!nodeInfo.node) return errorStatus(new Error('node not found'));
    if (this.#pod !== pod) {
      for (let i = 0; i < this.names.length; i++) this.#podRequests[i] = podResourceRequest(pod, this.names[i]);
      this.#pod = pod;
    }
    for (let i = 0; i < this.names.length; i++) {
      this.#allocatable[i] = scoredAllocatable(nodeInfo, this.names[i]);
      this.#requested[i] = scoredRequested(nodeInfo, this.names[i], this.#podRequests[i]);
    }
    return this.#scorer(this.#requested, this.#allocatable);
  }
}

/** kube's validateResources for the least and most allocated args: weights in 1..100 */
export function validateResourceWeights(resources: readonly ResourceSpec[]): void {
  for (const r of resources) {
    if (!(r.weight > 0)) throw new Error(`resource Weight of ${r.name} should be a positive value, got ${r.weight}`);
    if (r.weight > 100) throw new Error(`resource Weight of ${r.name} should be less than 100, got ${r.weight}`);
  }
}
