/**
 * RequestedToCapacityRatio (kube 1.20): each resource's utilization with the pod (0-100) is
 * mapped through a broken-line function given as points {utilization, score} (scores 0-10,
 * scaled to 0-100); the weighted average of the resources scoring above 0, rounded.
 */
import { MAX_NODE_SCORE, type PluginFactory } from '../../framework/types';
import { argsObject, resourceSpecs, type ResourceSpec } from './plugin-args';
import { ResourceAllocationScorer } from './resource-allocation';

export const REQUESTED_TO_CAPACITY_RATIO = 'RequestedToCapacityRatio';

/** the largest score a shape point may name (kube's MaxCustomPriorityScore) */
export const MAX_CUSTOM_PRIORITY_SCORE = 10;
const MAX_UTILIZATION = 100;

export interface ShapePoint {
  utilization: number;
  score: number;
}

/** kube's BuildBrokenLinearFunction: linear between points, flat before the first and after the last */
export function brokenLinearFunction(shape: readonly ShapePoint[]): (p: number) => number {
  return (p) => {
    for (let i = 0; i < shape.length; i++) {
      if (p <= shape[i].utilization) {
        if (i === 0) return shape[0].score;
        const a = shape[i - 1];
        const b = shape[i];
        // Go's int64 division truncates toward zero
        return a.score + Math.trunc(((b.score - a.score) * (p - a.utilization)) / (b.utilization - a.utilization));
      }
    }
    return shape[shape.length - 1].score;
  };
}

/** kube's validateFunctionShape */
function validateShape(shape: readonly ShapePoint[]): void {
  if (shape.length === 0) throw new Error('at least one point must be specified');
  for (let i = 1; i < shape.length; i++) {
    if (shape[i - 1].utilization >= shape[i].utilization) {
      throw new Error(`utilization values must be sorted. Utilization[${i - 1}]==${shape[i - 1].utilization} >= Utilization[${i}]==${shape[i].utilization}`);
    }
  }
  shape.forEach((p, i) => {
    if (p.utilization < 0) throw new Error(`utilization values must not be less than 0. Utilization[${i}]==${p.utilization}`);
    if (p.utilization > MAX_UTILIZATION) throw new Error(`utilization values must not be greater than ${MAX_UTILIZATION}. Utilization[${i}]==${p.utilization}`);
    if (p.score < 0) throw new Error(`score values must not be less than 0. Score[${i}]==${p.score}`);
    if (p.score > MAX_CUSTOM_PRIORITY_SCORE) throw new Error(`score values must not be greater than ${MAX_CUSTOM_PRIORITY_SCORE}. Score[${i}]==${p.score}`);
  });
}

/** kube's validateResourcesNoMax */
function validateWeights(resources: readonly ResourceSpec[]): void {
  for (const r of resources) if (!(r.weight >= 1)) throw new Error(`resource ${r.name} weight ${r.weight} must not be less than 1`);
}

export const newRequestedToCapacityRatio: PluginFactory = (rawArgs) => {
  const kind = 'RequestedToCapacityRatioArgs';
  const args = argsObject(rawArgs, kind);
  // v1beta1 defaulting: a weight of 0 means 1
  const resources = resourceSpecs(args, kind).map((r) => (r.weight === 0 ? { ...r, weight: 1 } : r));
  const rawShape = args.shape ?? [];
  if (!Array.isArray(rawShape)) throw new Error(`${kind}: shape must be a list`);
  const shape: ShapePoint[] = rawShape.map((p: { utilization?: unknown; score?: unknown }) => ({ utilization: Number(p?.utilization ?? 0), score: Number(p?.score ?? 0) }));
  validateShape(shape);
  validateWeights(resources);

  const scaled = shape.map((p) => ({ utilization: p.utilization, score: p.score * (MAX_NODE_SCORE / MAX_CUSTOM_PRIORITY_SCORE) }));
  const raw = brokenLinearFunction(scaled);
  const resourceScore = (requested: number, capacity: number): number => {
    if (capacity === 0 || requested > capacity) return raw(MAX_UTILIZATION);
    return raw(MAX_UTILIZATION - Math.trunc(((capacity - requested) * MAX_UTILIZATION) / capacity));
  };
  const scorer: ResourceAllocationScorer = new ResourceAllocationScorer(resources, (requested, allocatable) => {
    let score = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      const s = resourceScore(requested[i], allocatable[i]);
      if (s > 0) {
        score += s * scorer.weights[i];
        weightSum += scorer.weights[i];
      }
    }
    return weightSum === 0 ? 0 : Math.round(score / weightSum);
  });
  return {
    name: REQUESTED_TO_CAPACITY_RATIO,
    score: (_state, pod, nodeInfo) => scorer.score(pod, nodeInfo),
  };
};
