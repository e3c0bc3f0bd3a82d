/**
 * Node status as kubelet 1.20's setters write it (pkg/kubelet/nodestatus/setters.go), each one a
 * function of the node and what the agent measured: addresses, capacity and allocatable, nodeInfo,
 * daemon endpoints, images, and the conditions MemoryPressure, DiskPressure, PIDPressure and Ready
 * with kube's reasons, messages and timestamps.
 */
import type { Image__Output } from '../cri/generated/runtime/v1/Image';
import type { FsStats, MachineInfo } from './host';
import { binaryQuantity, formatResource, quantityValue } from './quantity';
import type { PressureCondition } from './thresholds';

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface NodeStatus {
  capacity?: Record<string, string>;
  allocatable?: Record<string, string>;
  conditions?: NodeCondition[];
  addresses?: { type: string; address: string }[];
  daemonEndpoints?: { kubeletEndpoint?: { Port: number } };
  nodeInfo?: Record<string, string>;
  images?: { names?: string[]; sizeBytes?: number }[];
  [key: string]: unknown;
}

/** a core/v1 Node, JSON form, as far as the agent writes it */
export interface NodeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  spec?: { taints?: { key: string; value?: string; effect: string }[]; podCIDR?: string; podCIDRs?: string[]; [key: string]: unknown };
  status?: NodeStatus;
}

/** kubelet's MaxNamesPerImageInNodeStatus */
export const MAX_NAMES_PER_IMAGE = 5;

/** kube's metav1.Time text: RFC 3339 in seconds */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** the resource name of a hugepage size (v1helper.HugePageResourceName) */
export function hugePageResource(pageSizeKiB: number): string {
  return `hugepages-${binaryQuantity(pageSizeKiB * 1024)}`;
}

/**
 * Capacity from the machine (cadvisor's CapacityFromMachineInfo and EphemeralStorageCapacityFromFsInfo),
 * with pods = maxPods, or podsPerCore * cores when that is smaller and podsPerCore > 0.
 */
export function machineCapacity(machine: MachineInfo, rootFs: FsStats | undefined, maxPods: number, podsPerCore: number): Record<string, number> {
  const out: Record<string, number> = {
    cpu: machine.numCores,
    memory: machine.memoryCapacityBytes,
    pods: podsPerCore > 0 ? Math.min(machine.numCores * podsPerCore, maxPods) : maxPods,
  };
  for (const pool of machine.hugePages) out[hugePageResource(pool.pageSizeKiB)] = pool.pageSizeKiB * 1024 * pool.numPages;
  if (rootFs) out['ephemeral-storage'] = rootFs.capacityBytes;
  return out;
}

/** sets capacity (ours over what the node has) and allocatable = capacity - reservation, never negative; hugepages come out of memory */
export function setCapacity(node: NodeObject, capacity: Readonly<Record<string, number>>, reservation: Readonly<Record<string, number>>): void {
  const status = (node.status ??= {});
  const cap = (status.capacity ??= {});
  for (const [name, value] of Object.entries(capacity)) cap[name] = formatResource(name, value);
  const alloc: Record<string, string> = {};
  for (const [name, text] of Object.entries(cap)) {
    alloc[name] = formatResource(name, Math.max(0, quantityValue(text) - (reservation[name] ?? 0)));
  }
  let memory = quantityValue(alloc.memory);
  for (const [name, text] of Object.entries(cap)) if (name.startsWith('hugepages-')) memory -= quantityValue(text);
  if (alloc.memory !== undefined) alloc.memory = formatResource('memory', Math.max(0, memory));
  status.allocatable = alloc;
}

/** InternalIP then Hostname, as kubelet without a cloud provider reports them */
export function setAddresses(node: NodeObject, internalIP: string, hostname: string): void {
  (node.status ??= {}).addresses = [
    { type: 'InternalIP', address: internalIP },
    { type: 'Hostname', address: hostname },
  ];
}

export interface NodeInfoInputs {
  machine: MachineInfo;
  runtimeVersion: string;
  agentVersion: string;
}

/** nodeInfo (MachineInfo, VersionInfo and GoRuntime setters); answers the previous boot id when it changed */
export function setNodeInfo(node: NodeObject, inputs: NodeInfoInputs): string | undefined {
  const status = (node.status ??= {});
  const previousBoot = status.nodeInfo?.bootID;
  const { machine } = inputs;
  status.nodeInfo = {
    ...(status.nodeInfo ?? {}),
    machineID: machine.machineId,
    systemUUID: machine.systemUuid,
    bootID: machine.bootId,
    kernelVersion: machine.kernelVersion,
    osImage: machine.osImage,
    containerRuntimeVersion: inputs.runtimeVersion,
    kubeletVersion: inputs.agentVersion,
    kubeProxyVersion: inputs.agentVersion,
    operatingSystem: machine.operatingSystem,
    architecture: machine.architecture,
  };
  return previousBoot && previousBoot !== machine.bootId ? previousBoot : undefined;
}

export function setDaemonEndpoints(node: NodeObject, port: number): void {
  (node.status ??= {}).daemonEndpoints = { kubeletEndpoint: { Port: port } };
}

function imageSize(image: Image__Output): number {
  return Number(String(image.size ?? 0)) || 0;
}

/** images, largest first (the image manager's order), at most maxImages (-1: all), 5 names each */
export function setImages(node: NodeObject, images: readonly Image__Output[], maxImages: number): void {
  const sorted = [...images].sort((a, b) => imageSize(b) - imageSize(a));
  const kept = maxImages > -1 ? sorted.slice(0, maxImages) : sorted;
  (node.status ??= {}).images = kept.map((image) => ({
    names: [...(image.repoDigests ?? []), ...(image.repoTags ?? [])].slice(0, MAX_NAMES_PER_IMAGE),
    sizeBytes: imageSize(image),
  }));
}

/** a pressure condition's texts: [condition, reason when true, message when true, reason when false, message when false, events] */
const PRESSURE_TEXTS: Record<PressureCondition, { trueReason: string; trueMessage: string; falseReason: string; falseMessage: string; trueEvent: string; falseEvent: string }> = {
  MemoryPressure: {
    trueReason: 'KubeletHasInsufficientMemory',
    trueMessage: 'kubelet has insufficient memory available',
    falseReason: 'KubeletHasSufficientMemory',
    falseMessage: 'kubelet has sufficient memory available',
    trueEvent: 'NodeHasInsufficientMemory',
    falseEvent: 'NodeHasSufficientMemory',
  },
  DiskPressure: {
    trueReason: 'KubeletHasDiskPressure',
    trueMessage: 'kubelet has disk pressure',
    falseReason: 'KubeletHasNoDiskPressure',
    falseMessage: 'kubelet has no disk pressure',
    trueEvent: 'NodeHasDiskPressure',
    falseEvent: 'NodeHasNoDiskPressure',
  },
  PIDPressure: {
    trueReason: 'KubeletHasInsufficientPID',
    trueMessage: 'kubelet has insufficient PID available',
    falseReason: 'KubeletHasSufficientPID',
    falseMessage: 'kubelet has sufficient PID available',
    trueEvent: 'NodeHasInsufficientPID',
    falseEvent: 'NodeHasSufficientPID',
  },
};

/** a node event the setters raise (kubelet's recordNodeStatusEvent): type, reason */
export type NodeEventFn = (type: 'Normal' | 'Warning', reason: string, message?: string) => void;

/** a pressure condition: heartbeat always, transition time and event only when the status flips */
export function setPressureCondition(node: NodeObject, type: PressureCondition, underPressure: boolean, now: string, record: NodeEventFn): void {
  const conditions = ((node.status ??= {}).conditions ??= []);
  const texts = PRESSURE_TEXTS[type];
  let condition = conditions.find((c) => c.type === type);
  if (!condition) {
    condition = { type, status: 'Unknown' };
    conditions.push(condition);
  }
  condition.lastHeartbeatTime = now;
  const want = underPressure ? 'True' : 'False';
  if (condition.status === want) return;
  condition.status = want;
  condition.reason = underPressure ? texts.trueReason : texts.falseReason;
  condition.message = underPressure ? texts.trueMessage : texts.falseMessage;
  condition.lastTransitionTime = now;
  record('Normal', underPressure ? texts.trueEvent : texts.falseEvent);
}

/** the capacities Ready requires (ephemeral-storage with LocalStorageCapacityIsolation, on by default in 1.20) */
const REQUIRED_CAPACITY = ['cpu', 'memory', 'pods', 'ephemeral-storage'];

/** errors.NewAggregate's text: one message as is, several in brackets */
export function aggregate(messages: readonly string[]): string {
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

/** Ready: KubeletReady unless the runtime, the network or capacity has an error */
export function setReadyCondition(node: NodeObject, errors: readonly string[], now: string, record: NodeEventFn): void {
  const all = [...errors];
  const capacity = node.status?.capacity ?? {};
  const missing = REQUIRED_CAPACITY.filter((r) => capacity[r] === undefined);
  if (missing.length) all.push(`missing node capacity for resources: ${missing.join(', ')}`);
  const next: NodeCondition = all.length
    ? { type: 'Ready', status: 'False', lastHeartbeatTime: now, reason: 'KubeletNotReady', message: aggregate(all) }
    : { type: 'Ready', status: 'True', lastHeartbeatTime: now, reason: 'KubeletReady', message: 'kubelet is posting ready status' };
  const conditions = ((node.status ??= {}).conditions ??= []);
  const i = conditions.findIndex((c) => c.type === 'Ready');
  if (i < 0) {
    next.lastTransitionTime = now;
    conditions.push(next);
    return;
  }
  const flipped = conditions[i].status !== next.status;
  next.lastTransitionTime = flipped ? now : conditions[i].lastTransitionTime;
  conditions[i] = next;
  if (flipped) record('Normal', next.status === 'True' ? 'NodeReady' : 'NodeNotReady');
}
