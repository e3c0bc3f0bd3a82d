/**
 * NodeResourcesFit (kube 1.20): a pod fits a node when one more pod is allowed and its request
 * (containers summed, the largest init container, plus overhead) fits beside what the node's pods
 * request already. Every lacking resource is reported, in kube's order: pods, cpu, memory,
 * ephemeral-storage, then scalar resources. Args ignoredResources and ignoredResourceGroups skip
 * extended resources (by name, or by the domain before the `/`).
 */
import { aggregateMessage, invalidValue } from '../../../api/selectors/label-syntax';
import { isQualifiedName } from '../../../api/validation/names';
import type { KubeObject } from '../../../client/types';
import type { NodeInfo } from '../../framework/node-info';
import { CPU, EPHEMERAL_STORAGE, MEMORY, PODS, isExtendedResource, podFitRequest, type Resource } from '../../framework/resource';
import { errorStatus, unschedulable, type Result } from '../../framework/status';
import type { CycleState, PluginFactory, StateData } from '../../framework/types';
import { argsObject, stringList } from './plugin-args';

export const NODE_RESOURCES_FIT = 'NodeResourcesFit';
const PRE_FILTER_KEY = `PreFilter${NODE_RESOURCES_FIT}`;

/** one resource a node lacks for a pod (kube's InsufficientResource) */
export interface InsufficientResource {
  resourceName: string;
  reason: string;
  requested: number;
  used: number;
  capacity: number;
}

export interface IgnoredResources {
  /** extended resource names not checked */
  names?: ReadonlySet<string>;
  /** extended resource domains (the part before `/`) not checked */
  groups?: ReadonlySet<string>;
}

class PreFilterState implements StateData {
  constructor(readonly request: Resource) {}
  clone(): StateData {
    return this;
  }
}

function add(out: InsufficientResource[] | undefined, resourceName: string, reason: string, requested: number, used: number, capacity: number): InsufficientResource[] {
  (out ??= []).push({ resourceName, reason, requested, used, capacity });
  return out;
}

/**
 * kube's fitsRequest: the resources the node lacks for a request (undefined when it fits; the
 * common case allocates nothing).
 */
export function insufficientResourcesFor(request: Resource, nodeInfo: NodeInfo, ignored: IgnoredResources = {}): InsufficientResource[] | undefined {
  let out: InsufficientResource[] | undefined;
  const allocatable = nodeInfo.allocatable;
  const requested = nodeInfo.requested;
  const podCount = nodeInfo.pods.length;
  if (podCount + 1 > allocatable.allowedPodNumber) out = add(out, PODS, 'Too many pods', 1, podCount, allocatable.allowedPodNumber);
  if (request.milliCPU === 0 && request.memory === 0 && request.ephemeralStorage === 0 && request.scalar.size === 0) return out;
  if (allocatable.milliCPU < request.milliCPU + requested.milliCPU) out = add(out, CPU, 'Insufficient cpu', request.milliCPU, requested.milliCPU, allocatable.milliCPU);
  if (allocatable.memory < request.memory + requested.memory) out = add(out, MEMORY, 'Insufficient memory', request.memory, requested.memory, allocatable.memory);
  if (allocatable.ephemeralStorage < request.ephemeralStorage + requested.ephemeralStorage) {
    out = add(out, EPHEMERAL_STORAGE, 'Insufficient ephemeral-storage', request.ephemeralStorage, requested.ephemeralStorage, allocatable.ephemeralStorage);
  }
  if (request.scalar.size === 0) return out;
  for (const [name, quantity] of request.scalar) {
    if (isExtendedResource(name) && (ignored.names?.has(name) || (ignored.groups && ignored.groups.size > 0 && ignored.groups.has(name.split('/')[0])))) continue;
    const used = requested.scalar.get(name) ?? 0;
    const capacity = allocatable.scalar.get(name) ?? 0;
    if (capacity < quantity + used) out = add(out, name, `Insufficient ${name}`, quantity, used, capacity);
  }
  return out;
}

/** kube's noderesources.Fits: what the node lacks for the pod, ignoring nothing (preemption uses it) */
export function insufficientResources(pod: KubeObject, nodeInfo: NodeInfo): InsufficientResource[] {
  return insufficientResourcesFor(podFitRequest(pod), nodeInfo) ?? [];
}

/** kube's validation of NodeResourcesFitArgs: names must be qualified names; groups also without `/` */
function validateFitArgs(ignoredResources: string[], ignoredGroups: string[]): void {
  const errs: string[] = [];
  ignoredResources.forEach((name, i) => {
    for (const msg of isQualifiedName(name)) errs.push(invalidValue(`ignoredResources[${i}]`, name, msg));
  });
  ignoredGroups.forEach((group, i) => {
    if (group.includes('/')) errs.push(invalidValue(`ignoredResourceGroups[${i}]`, group, "resource group name can't contain '/'"));
    for (const msg of isQualifiedName(group)) errs.push(invalidValue(`ignoredResourceGroups[${i}]`, group, msg));
  });
  if (errs.length) throw new Error(aggregateMessage(errs));
}

export const newNodeResourcesFit: PluginFactory = (rawArgs) => {
  const args = argsObject(rawArgs, 'NodeResourcesFitArgs');
  const names = stringList(args, 'ignoredResources', 'NodeResourcesFitArgs');
  const groups = stringList(args, 'ignoredResourceGroups', 'NodeResourcesFitArgs');
  validateFitArgs(names, groups);
  const ignored: IgnoredResources = { names: new Set(names), groups: new Set(groups) };

  return {
    name: NODE_RESOURCES_FIT,

    preFilter(state: CycleState, pod: KubeObject): Result {
      state.write(PRE_FILTER_KEY, new PreFilterState(podFitRequest(pod)));
      return undefined;
    },

    preFilterExtensions: () => undefined,

    filter(state: CycleState, _pod: KubeObject, nodeInfo: NodeInfo): Result {
      const s = state.read<PreFilterState>(PRE_FILTER_KEY);
      if (!s) return errorStatus(new Error(`error reading "${PRE_FILTER_KEY}" from cycleState: not found`));
      const lacking = insufficientResourcesFor(s.request, nodeInfo, ignored);
      return lacking ? unschedulable(...lacking.map((r) => r.reason)) : undefined;
    },
  };
};
