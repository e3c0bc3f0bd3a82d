/**
 * The scheduler's view of one node (kube's framework.NodeInfo): the Node object, the pods on it
 * (bound or assumed), what they request, the host ports they hold, and the images the node has.
 * Plugins read NodeInfos from the cycle's snapshot and must not change them; preemption works on
 * clones.
 */
import { labelSelectorFromObject, LabelSelector, type LabelSelectorObject } from '../../api/selectors';
import type { KubeObject } from '../../client/types';
import { Resource, podAccountedRequest, podSpec } from './resource';

/** a pod (anti-)affinity term, resolved: the namespaces it looks in, its selector, its topology key */
export interface AffinityTerm {
  namespaces: ReadonlySet<string>;
  selector: LabelSelector;
  topologyKey: string;
}

export interface WeightedAffinityTerm extends AffinityTerm {
  weight: number;
}

interface PodAffinityTermObject {
  labelSelector?: LabelSelectorObject | null;
  namespaces?: string[];
  topologyKey?: string;
}

function resolveTerm(pod: KubeObject, t: PodAffinityTermObject): AffinityTerm {
  const namespaces = new Set(t.namespaces && t.namespaces.length > 0 ? t.namespaces : [pod.metadata?.namespace ?? '']);
  let selector: LabelSelector;
  try {
    selector = labelSelectorFromObject(t.labelSelector);
  } catch {
    selector = LabelSelector.nothing();
  }
  return { namespaces, selector, topologyKey: t.topologyKey ?? '' };
}

/** does the term select this pod (namespace and labels)? */
export function termMatches(term: AffinityTerm, pod: KubeObject): boolean {
  return term.namespaces.has(pod.metadata?.namespace ?? '') && term.selector.matches(pod.metadata?.labels);
}

interface AffinityObject {
  podAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTermObject[]; preferredDuringSchedulingIgnoredDuringExecution?: Array<{ weight?: number; podAffinityTerm?: PodAffinityTermObject }> };
  podAntiAffinity?: AffinityObject['podAffinity'];
}

/** a pod with its affinity terms parsed once (kube's framework.PodInfo) */
export class PodInfo {
  readonly pod: KubeObject;
  readonly requiredAffinityTerms: AffinityTerm[];
  readonly requiredAntiAffinityTerms: AffinityTerm[];
  readonly preferredAffinityTerms: WeightedAffinityTerm[];
  readonly preferredAntiAffinityTerms: WeightedAffinityTerm[];

  constructor(pod: KubeObject) {
    this.pod = pod;
    const affinity = (podSpec(pod).affinity ?? {}) as AffinityObject;
    const required = (a: AffinityObject['podAffinity']) => (a?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((t) => resolveTerm(pod, t));
    const preferred = (a: AffinityObject['podAffinity']) =>
      (a?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map((w) => ({ ...resolveTerm(pod, w.podAffinityTerm ?? {}), weight: w.weight ?? 0 }));
    this.requiredAffinityTerms = required(affinity.podAffinity);
    this.requiredAntiAffinityTerms = required(affinity.podAntiAffinity);
    this.preferredAffinityTerms = preferred(affinity.podAffinity);
    this.preferredAntiAffinityTerms = preferred(affinity.podAntiAffinity);
  }

  get hasAffinity(): boolean {
    const a = podSpec(this.pod).affinity as AffinityObject | undefined;
    return !!(a?.podAffinity || a?.podAntiAffinity);
  }

  get hasRequiredAntiAffinity(): boolean {
    return this.requiredAntiAffinityTerms.length > 0;
  }
}

export const WILDCARD_IP = '0.0.0.0';

/** host ports in use: IP -> "protocol/port" (kube's HostPortInfo) */
export class HostPortInfo {
  readonly #byIp = new Map<string, Set<string>>();

  static sanitize(ip: string | undefined, protocol: string | undefined): { ip: string; protocol: string } {
    return { ip: ip || WILDCARD_IP, protocol: protocol || 'TCP' };
  }

  add(ipIn: string | undefined, protocolIn: string | undefined, port: number): void {
    if (port <= 0) return;
    const { ip, protocol } = HostPortInfo.sanitize(ipIn, protocolIn);
    let set = this.#byIp.get(ip);
    if (!set) this.#byIp.set(ip, (set = new Set()));
    set.add(`${protocol}/${port}`);
  }

  remove(ipIn: string | undefined, protocolIn: string | undefined, port: number): void {
    if (port <= 0) return;
    const { ip, protocol } = HostPortInfo.sanitize(ipIn, protocolIn);
    const set = this.#byIp.get(ip);
    if (!set) return;
    set.delete(`${protocol}/${port}`);
    if (set.size === 0) this.#byIp.delete(ip);
  }

  /** kube's CheckConflict: 0.0.0.0 conflicts with every IP on the same protocol and port */
  conflicts(ipIn: string | undefined, protocolIn: string | undefined, port: number): boolean {
    if (port <= 0) return false;
    const { ip, protocol } = HostPortInfo.sanitize(ipIn, protocolIn);
    const key = `${protocol}/${port}`;
    if (ip === WILDCARD_IP) {
      for (const set of this.#byIp.values()) if (set.has(key)) return true;
      return false;
    }
    return !!(this.#byIp.get(ip)?.has(key) || this.#byIp.get(WILDCARD_IP)?.has(key));
  }

  get size(): number {
    let n = 0;
    for (const set of this.#byIp.values()) n += set.size;
    return n;
  }

  clone(): HostPortInfo {
    const c = new HostPortInfo();
    for (const [ip, set] of this.#byIp) c.#byIp.set(ip, new Set(set));
    return c;
  }
}

/** the host ports a pod's containers ask for */
export function podHostPorts(pod: KubeObject): Array<{ ip?: string; protocol?: string; port: number }> {
  const out: Array<{ ip?: string; protocol?: string; port: number }> = [];
  for (const c of podSpec(pod).containers ?? []) {
    for (const p of c.ports ?? []) if (p.hostPort && p.hostPort > 0) out.push({ ip: p.hostIP, protocol: p.protocol, port: p.hostPort });
  }
  return out;
}

/** an image on a node: its size there and on how many nodes it is (kube's ImageStateSummary) */
export interface ImageStateSummary {
  size: number;
  numNodes: number;
}

let generationCounter = 0;
/** kube's nextGeneration: every change of any NodeInfo gets a larger number */
export function nextGeneration(): number {
  return ++generationCounter;
}

export class NodeInfo {
  node: KubeObject | undefined;
  pods: PodInfo[] = [];
  podsWithAffinity: PodInfo[] = [];
  podsWithRequiredAntiAffinity: PodInfo[] = [];
  usedPorts = new HostPortInfo();
  /** the sum of the pods' requests */
  requested = new Resource();
  /** the same with kube's defaults (100m CPU, 200Mi) for pods that request no CPU or memory; used by scores */
  nonZeroRequested = new Resource();
  allocatable = new Resource();
  /** image name -> state; filled by the cache from node.status.images */
  imageStates = new Map<string, ImageStateSummary>();
  generation = nextGeneration();

  constructor(node?: KubeObject, pods: readonly KubeObject[] = []) {
    if (node) this.setNode(node);
    for (const p of pods) this.addPod(p);
  }

  get name(): string {
    return this.node?.metadata?.name ?? '';
  }

  setNode(node: KubeObject): void {
    this.node = node;
    const status = (node.status ?? {}) as { allocatable?: Record<string, unknown> };
    this.allocatable = Resource.from(status.allocatable);
    this.generation = nextGeneration();
  }

  removeNode(): void {
    this.node = undefined;
    this.generation = nextGeneration();
  }

  addPod(pod: KubeObject): void {
    this.addPodInfo(new PodInfo(pod));
  }

  addPodInfo(info: PodInfo): void {
    this.pods.push(info);
    if (info.hasAffinity) this.podsWithAffinity.push(info);
    if (info.hasRequiredAntiAffinity) this.podsWithRequiredAntiAffinity.push(info);
    this.#account(info.pod, 1);
  }

  /** remove a pod by uid; false when it is not here */
  removePod(pod: KubeObject): boolean {
    const uid = pod.metadata?.uid;
    const at = this.pods.findIndex((p) => p.pod.metadata?.uid === uid);
    if (at < 0) return false;
    const [info] = this.pods.splice(at, 1);
    const drop = (list: PodInfo[]) => {
      const i = list.findIndex((p) => p.pod.metadata?.uid === uid);
      if (i >= 0) list.splice(i, 1);
    };
    drop(this.podsWithAffinity);
    drop(this.podsWithRequiredAntiAffinity);
    this.#account(info.pod, -1);
    return true;
  }

  #account(pod: KubeObject, sign: 1 | -1): void {
    const { request, nonZeroCPU, nonZeroMemory } = podAccountedRequest(pod);
    this.requested.plus(request, sign);
    this.nonZeroRequested.milliCPU += sign * nonZeroCPU;
    this.nonZeroRequested.memory += sign * nonZeroMemory;
    for (const p of podHostPorts(pod)) {
      if (sign > 0) this.usedPorts.add(p.ip, p.protocol, p.port);
      else this.usedPorts.remove(p.ip, p.protocol, p.port);
    }
    this.generation = nextGeneration();
  }

  /**
   * become a copy of other (kube's `*existing = *clone`): a snapshot updates its NodeInfos in place,
   * so the lists that hold them stay valid without being rebuilt
   */
  copyFrom(other: NodeInfo): void {
    this.node = other.node;
    this.pods = other.pods;
    this.podsWithAffinity = other.podsWithAffinity;
    this.podsWithRequiredAntiAffinity = other.podsWithRequiredAntiAffinity;
    this.usedPorts = other.usedPorts;
    this.requested = other.requested;
    this.nonZeroRequested = other.nonZeroRequested;
    this.allocatable = other.allocatable;
    this.imageStates = other.imageStates;
    this.generation = other.generation;
  }

  clone(): NodeInfo {
    const c = new NodeInfo();
    c.node = this.node;
    c.pods = [...this.pods];
    c.podsWithAffinity = [...this.podsWithAffinity];
    c.podsWithRequiredAntiAffinity = [...this.podsWithRequiredAntiAffinity];
    c.usedPorts = this.usedPorts.clone();
    c.requested = this.requested.clone();
    c.nonZeroRequested = this.nonZeroRequested.clone();
    c.allocatable = this.allocatable.clone();
    c.imageStates = new Map(this.imageStates);
    c.generation = this.generation;
    return c;
  }
}
