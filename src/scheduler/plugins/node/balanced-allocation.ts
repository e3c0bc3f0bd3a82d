/**
 * NodeResourcesBalancedAllocation (kube 1.20): favours nodes whose cpu and memory would be used
 * in equal proportion with the pod on them: (1 - |cpuFraction - memoryFraction|) * 100, and 0
 * when either fraction reaches 1 (a node with nothing allocatable counts as full).
 */
import { MAX_NODE_SCORE, type PluginFactory } from '../../framework/types';
import { ResourceAllocationScorer } from './resource-allocation';

export const NODE_RESOURCES_BALANCED_ALLOCATION = 'NodeResourcesBalancedAllocation';

function fractionOfCapacity(requested: number, capacity: number): number {
  return capacity === 0 ? 1 : requested / capacity;
}

export function balancedScore(cpuRequested: number, cpuAllocatable: number, memRequested: number, memAllocatable: number): number {
  const cpu = fractionOfCapacity(cpuRequested, cpuAllocatable);
  const mem = fractionOfCapacity(memRequested, memAllocatable);
  if (cpu >= 1 || mem >= 1) return 0;
  return Math.trunc((1 - Math.abs(cpu - mem)) * MAX_NODE_SCORE);
}

export const newBalancedAllocation: PluginFactory = () => {
  // index 0 is cpu, 1 memory
  const scorer = new ResourceAllocationScorer(
    [
      { name: 'cpu', weight: 1 },
      { name: 'memory', weight: 1 },
    ],
    (requested, allocatable) => balancedScore(requested[0], allocatable[0], requested[1], allocatable[1]),
  );
  return {
    name: NODE_RESOURCES_BALANCED_ALLOCATION,
    score: (_state, pod, nodeInfo) => scorer.score(pod, nodeInfo),
  };
};
