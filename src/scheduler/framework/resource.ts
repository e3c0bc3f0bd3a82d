/**
 * Resource amounts as the scheduler adds and compares them (kube's framework.Resource): CPU in
 * millicores, memory and ephemeral storage in bytes, pods as a count, and every other resource
 * (extended resources such as `example.com/gpu`, hugepages, attachable volumes) by name. Values are
 * rounded up the way kube's MilliValue and Value round.
 */
import { parseQuantity } from '../../api/kinds/core/quantity';
import type { KubeObject } from '../../client/types';

export const CPU = 'cpu';
export const MEMORY = 'memory';
export const EPHEMERAL_STORAGE = 'ephemeral-storage';
export const PODS = 'pods';

/** kube's defaults for a container that requests no CPU or memory, used by scores only (DefaultMilliCPURequest, DefaultMemoryRequest) */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

export type ResourceList = Record<string, unknown>;

/** a quantity rounded up to a whole number of units (times `scale`), tolerating a double's noise */
function wholeUnits(value: unknown, scale: number): number {
  const q = parseQuantity(value);
  if (q === undefined) return 0;
  const scaled = q * scale;
  const near = Math.round(scaled);
  return Math.abs(scaled - near) < 1e-6 ? near : Math.ceil(scaled);
}

export function milliValue(value: unknown): number {
  return wholeUnits(value, 1000);
}

export function wholeValue(value: unknown): number {
  return wholeUnits(value, 1);
}

/** kube's IsScalarResourceName: extended resources, hugepages-*, attachable-volumes-* */
export function isScalarResource(name: string): boolean {
  if (name === CPU || name === MEMORY || name === EPHEMERAL_STORAGE || name === PODS) return false;
  return name.startsWith('hugepages-') || name.startsWith('attachable-volumes-') || isExtendedResource(name);
}

/** kube's IsExtendedResourceName: a domain-qualified name outside kubernetes.io, not a requests.* quota name */
export function isExtendedResource(name: string): boolean {
  if (name.startsWith('requests.')) return false;
  const slash = name.indexOf('/');
  if (slash <= 0) return false;
  const domain = name.slice(0, slash);
  return domain !== 'kubernetes.io' && !domain.endsWith('.kubernetes.io');
}

export class Resource {
  milliCPU = 0;
  memory = 0;
  ephemeralStorage = 0;
  allowedPodNumber = 0;
  readonly scalar = new Map<string, number>();

  static from(list: ResourceList | undefined): Resource {
    const r = new Resource();
    r.add(list);
    return r;
  }

  /** add a resource list (requests, overhead, allocatable) */
  add(list: ResourceList | undefined): void {
    if (!list) return;
    for (const [name, value] of Object.entries(list)) {
      switch (name) {
        case CPU:
          this.milliCPU += milliValue(value);
          break;
        case MEMORY:
          this.memory += wholeValue(value);
          break;
        case EPHEMERAL_STORAGE:
          this.ephemeralStorage += wholeValue(value);
          break;
        case PODS:
          this.allowedPodNumber += wholeValue(value);
          break;
        default:
          if (isScalarResource(name)) this.scalar.set(name, (this.scalar.get(name) ?? 0) + wholeValue(value));
      }
    }
  }

  /** raise each amount to at least the list's (kube's SetMaxResource, for init containers) */
  setMax(list: ResourceList | undefined): void {
    if (!list) return;
    const other = Resource.from(list);
    this.milliCPU = Math.max(this.milliCPU, other.milliCPU);
    this.memory = Math.max(this.memory, other.memory);
    this.ephemeralStorage = Math.max(this.ephemeralStorage, other.ephemeralStorage);
    for (const [name, v] of other.scalar) this.scalar.set(name, Math.max(this.scalar.get(name) ?? 0, v));
  }

  plus(other: Resource, sign = 1): void {
    this.milliCPU += sign * other.milliCPU;
    this.memory += sign * other.memory;
    this.ephemeralStorage += sign * other.ephemeralStorage;
    this.allowedPodNumber += sign * other.allowedPodNumber;
    for (const [name, v] of other.scalar) this.scalar.set(name, (this.scalar.get(name) ?? 0) + sign * v);
  }

  clone(): Resource {
    const r = new Resource();
    r.plus(this);
    return r;
  }

  /** the amount of a resource by its API name */
  get(name: string): number {
    switch (name) {
      case CPU:
        return this.milliCPU;
      case MEMORY:
        return this.memory;
      case EPHEMERAL_STORAGE:
        return this.ephemeralStorage;
      case PODS:
        return this.allowedPodNumber;
      default:
        return this.scalar.get(name) ?? 0;
    }
  }
}

interface ContainerShape {
  name?: string;
  image?: string;
  resources?: { requests?: ResourceList; limits?: ResourceList };
  ports?: Array<{ containerPort?: number; hostPort?: number; hostIP?: string; protocol?: string }>;
}

export interface PodSpecShape {
  nodeName?: string;
  schedulerName?: string;
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: string;
  nodeSelector?: Record<string, string>;
  affinity?: Record<string, unknown>;
  tolerations?: Array<{ key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }>;
  topologySpreadConstraints?: Array<Record<string, unknown>>;
  containers?: ContainerShape[];
  initContainers?: ContainerShape[];
  overhead?: ResourceList;
  volumes?: Array<Record<string, unknown> & { name?: string }>;
}

export function podSpec(pod: KubeObject): PodSpecShape {
  return (pod.spec ?? {}) as PodSpecShape;
}

/** the requests a container names, with a limit standing in for a missing request (the API server's defaulting does this already) */
function requestsOf(c: ContainerShape): ResourceList | undefined {
  return c.resources?.requests;
}

/**
 * What a pod takes from its node once running (kube 1.20's NodeInfo accounting): the sum of its
 * containers' requests plus the pod overhead. Init containers are not counted here.
 */
export function podAccountedRequest(pod: KubeObject): { request: Resource; nonZeroCPU: number; nonZeroMemory: number } {
  const spec = podSpec(pod);
  const request = new Resource();
  let nonZeroCPU = 0;
  let nonZeroMemory = 0;
  for (const c of spec.containers ?? []) {
    const req = requestsOf(c);
    request.add(req);
    const cpu = req?.[CPU];
    const mem = req?.[MEMORY];
    nonZeroCPU += cpu === undefined ? DEFAULT_MILLI_CPU_REQUEST : milliValue(cpu);
    nonZeroMemory += mem === undefined ? DEFAULT_MEMORY_REQUEST : wholeValue(mem);
  }
  if (spec.overhead) {
    request.add(spec.overhead);
    if (spec.overhead[CPU] !== undefined) nonZeroCPU += milliValue(spec.overhead[CPU]);
    if (spec.overhead[MEMORY] !== undefined) nonZeroMemory += wholeValue(spec.overhead[MEMORY]);
  }
  return { request, nonZeroCPU, nonZeroMemory };
}

/**
 * What a pod needs free on a node to start (kube's computePodResourceRequest for NodeResourcesFit):
 * the larger of its containers' sum and each init container, plus the overhead.
 */
export function podFitRequest(pod: KubeObject): Resource {
  const spec = podSpec(pod);
  const r = new Resource();
  for (const c of spec.containers ?? []) r.add(requestsOf(c));
  for (const c of spec.initContainers ?? []) r.setMax(requestsOf(c));
  if (spec.overhead) r.add(spec.overhead);
  return r;
}

/** the pod's priority (spec.priority, set by the Priority admission plugin; 0 without it) */
export function podPriority(pod: KubeObject): number {
  return podSpec(pod).priority ?? 0;
}
