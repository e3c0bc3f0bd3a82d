/**
 * NodeResourcesMostAllocated (kube 1.20): favours nodes already busy (bin packing): per resource
 * requested * 100 / capacity (0 when over capacity or nothing allocatable), averaged by weight
 * with integer division.
 */
import { MAX_NODE_SCORE, type PluginFactory } from '../../framework/types';
import { argsObject, resourceSpecs } from './plugin-args';
import { ResourceAllocationScorer, validateResourceWeights } from './resource-allocation';

export const NODE_RESOURCES_MOST_ALLOCATED = 'NodeResourcesMostAllocated';

export function mostRequestedScore(requested: number, capacity: number): number {
  if (capacity === 0 || requested > capacity) return 0;
  return Math.trunc((requested * MAX_NODE_SCORE) / capacity);
}

export const newMostAllocated: PluginFactory = (rawArgs) => {
  const resources = resourceSpecs(argsObject(rawArgs, 'NodeResourcesMostAllocatedArgs'), 'NodeResourcesMostAllocatedArgs');
  validateResourceWeights(resources);
  const scorer: ResourceAllocationScorer = new ResourceAllocationScorer(resources, (requested, allocatable) => {
    let score = 0;
    let weightSum = 0;
    for (let i = 0; i < requested.length; i++) {
      score += mostRequestedScore(requested[i], allocatable[i]) * scorer.weights[i];
      weightSum += scorer.weights[i];
    }
    return Math.trunc(score / weightSum);
  });
  return {
    name: NODE_RESOURCES_MOST_ALLOCATED,
    score: (_state, pod, nodeInfo) => scorer.score(pod, nodeInfo),
  };
};
