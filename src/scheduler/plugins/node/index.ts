/** The node-level plugins of kube 1.20, by their kube names. */
import type { PluginFactory } from '../../framework/types';
import { NODE_RESOURCES_BALANCED_ALLOCATION, newBalancedAllocation } from './balanced-allocation';
import { IMAGE_LOCALITY, newImageLocality } from './image-locality';
import { NODE_RESOURCES_LEAST_ALLOCATED, newLeastAllocated } from './least-allocated';
import { NODE_RESOURCES_MOST_ALLOCATED, newMostAllocated } from './most-allocated';
import { NODE_AFFINITY, newNodeAffinity } from './node-affinity';
import { NODE_LABEL, newNodeLabel } from './node-label';
import { NODE_NAME, newNodeName } from './node-name';
import { NODE_PORTS, newNodePorts } from './node-ports';
import { NODE_PREFER_AVOID_PODS, newNodePreferAvoidPods } from './node-prefer-avoid-pods';
import { NODE_RESOURCES_FIT, newNodeResourcesFit } from './node-resources-fit';
import { NODE_UNSCHEDULABLE, newNodeUnschedulable } from './node-unschedulable';
import { REQUESTED_TO_CAPACITY_RATIO, newRequestedToCapacityRatio } from './requested-to-capacity-ratio';
import { TAINT_TOLERATION, newTaintToleration } from './taint-toleration';

export const NODE_PLUGINS: Record<string, PluginFactory> = {
  [NODE_UNSCHEDULABLE]: newNodeUnschedulable,
  [NODE_NAME]: newNodeName,
  [TAINT_TOLERATION]: newTaintToleration,
  [NODE_AFFINITY]: newNodeAffinity,
  [NODE_PORTS]: newNodePorts,
  [NODE_RESOURCES_FIT]: newNodeResourcesFit,
  [NODE_RESOURCES_LEAST_ALLOCATED]: newLeastAllocated,
  [NODE_RESOURCES_MOST_ALLOCATED]: newMostAllocated,
  [NODE_RESOURCES_BALANCED_ALLOCATION]: newBalancedAllocation,
  [REQUESTED_TO_CAPACITY_RATIO]: newRequestedToCapacityRatio,
  [IMAGE_LOCALITY]: newImageLocality,
  [NODE_PREFER_AVOID_PODS]: newNodePreferAvoidPods,
  [NODE_LABEL]: newNodeLabel,
};

export { defaultNormalizeScore } from './normalize';
export { NodeSelectorTerms, RequiredNodeSelector, nodeSelectorRequirementsAsSelector, podMatchesNodeSelectorAndAffinityTerms } from './node-selector';
export { insufficientResources, insufficientResourcesFor, type InsufficientResource } from './node-resources-fit';
