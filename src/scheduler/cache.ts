/**
 * The scheduler's cache (kube's internal cache): what is on each node, from the informers, plus
 * the pods the scheduler has assumed onto a node while their binding is in flight, so the next
 * cycle already counts them. An assumed pod is confirmed when the informer reports it bound,
 * forgotten when its binding fails, and expires if neither happens in time. Each cycle takes a
 * snapshot; only NodeInfos that changed since the last one are copied.
 */
import type { KubeObject } from '../client/types';
import { NodeInfo } from './framework/node-info';
import { Snapshot } from './framework/snapshot';

/** how long an assumed pod whose binding finished waits for the informer to confirm it */
export const ASSUMED_POD_TTL_MS = 15 * 60_000;
const ZONE_LABELS = ['topology.kubernetes.io/zone', 'failure-domain.beta.kubernetes.io/zone'];
const REGION_LABELS = ['topology.kubernetes.io/region', 'failure-domain.beta.kubernetes.io/region'];

interface PodState {
  pod: KubeObject;
  /** set once binding finished (assumed pods only) */
  deadline?: number;
  bindingFinished: boolean;
}

interface ImageState {
  size: number;
  nodes: Set<string>;
}

function nodeNameOf(pod: KubeObject): string {
  return ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
}

/** kube's GetZoneKey: region and zone, '' when the node has neither */
export function zoneKey(node: KubeObject): string {
  const labels = node.metadata?.labels ?? {};
  const region = REGION_LABELS.map((l) => labels[l]).find((v) => v) ?? '';
  const zone = ZONE_LABELS.map((l) => labels[l]).find((v) => v) ?? '';
  if (!region && !zone) return '';
  return `${region}:\x00:${zone}`;
}

export class SchedulerCache {
  readonly #nodes = new Map<string, NodeInfo>();
  readonly #pods = new Map<string, PodState>();
  readonly #assumed = new Set<string>();
  readonly #images = new Map<string, ImageState>();
  readonly #now: () => number;
  readonly #ttlMs: number;
  /** set when nodes come or go (the snapshot's order must be rebuilt) */
  #nodeSetChanged = true;

  /**
   * the nodes changed since the last snapshot update (kube keeps its NodeInfos in a list ordered by
   * generation for the same reason): updating a snapshot then costs the nodes that changed, one or
   * two per pod scheduled, not a pass over thousands
   */
  readonly #dirty = new Set<string>();
  /** the snapshot the dirty set is relative to; another one gets a full pass */
  #lastSnapshot: Snapshot | undefined;

  constructor(o: { now?: () => number; assumedTtlMs?: number } = {}) {
    this.#now = o.now ?? Date.now;
    this.#ttlMs = o.assumedTtlMs ?? ASSUMED_POD_TTL_MS;
  }

  #info(nodeName: string): NodeInfo {
    this.#dirty.add(nodeName);
    let info = this.#nodes.get(nodeName);
    if (!info) {
      info = new NodeInfo();
      this.#nodes.set(nodeName, info);
    }
    return info;
  }

  #addToNode(pod: KubeObject): void {
    this.#info(nodeNameOf(pod)).addPod(pod);
  }

  #removeFromNode(pod: KubeObject): void {
    const name = nodeNameOf(pod);
    const info = this.#nodes.get(name);
    if (!info) return;
    this.#dirty.add(name);
    info.removePod(pod);
    if (!info.node && info.pods.length === 0) this.#nodes.delete(name);
  }

  isAssumed(pod: KubeObject): boolean {
    return this.#assumed.has(pod.metadata?.uid ?? '');
  }

  /** count the pod (spec.nodeName set to the chosen node) on its node until its binding is confirmed */
  assumePod(pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    if (this.#pods.has(uid)) throw new Error(`pod ${pod.metadata?.namespace}/${pod.metadata?.name} is in the cache, so can't be assumed`);
    this.#addToNode(pod);
    this.#pods.set(uid, { pod, bindingFinished: false });
    this.#assumed.add(uid);
  }

  /** the binding call returned: start the assumed pod's expiry */
  finishBinding(pod: KubeObject): void {
    const state = this.#pods.get(pod.metadata?.uid ?? '');
    if (state && this.#assumed.has(pod.metadata?.uid ?? '')) {
      state.bindingFinished = true;
      state.deadline = this.#now() + this.#ttlMs;
    }
  }

  /** the binding failed: take the assumed pod off its node */
  forgetPod(pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    const state = this.#pods.get(uid);
    if (!state || !this.#assumed.has(uid)) return;
    this.#removeFromNode(state.pod);
    this.#pods.delete(uid);
    this.#assumed.delete(uid);
  }

  /** an assigned pod reported by the informer */
  addPod(pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    const state = this.#pods.get(uid);
    if (state && this.#assumed.has(uid)) {
      // confirmed: the informer's copy replaces the assumed one (on the node the API says)
      this.#removeFromNode(state.pod);
      this.#addToNode(pod);
      this.#assumed.delete(uid);
      this.#pods.set(uid, { pod, bindingFinished: true });
      return;
    }
    if (state) {
      this.updatePod(state.pod, pod);
      return;
    }
    this.#addToNode(pod);
    this.#pods.set(uid, { pod, bindingFinished: true });
  }

  updatePod(_old: KubeObject, pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    const state = this.#pods.get(uid);
    if (!state) {
      this.addPod(pod);
      return;
    }
    if (this.#assumed.has(uid)) return;
    this.#removeFromNode(state.pod);
    this.#addToNode(pod);
    state.pod = pod;
  }

  removePod(pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    const state = this.#pods.get(uid);
    if (!state) return;
    this.#removeFromNode(state.pod);
    this.#pods.delete(uid);
    this.#assumed.delete(uid);
  }

  /** the cached copy of a pod (assumed or confirmed) */
  getPod(pod: KubeObject): KubeObject | undefined {
    return this.#pods.get(pod.metadata?.uid ?? '')?.pod;
  }

  addNode(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    const info = this.#info(name);
    if (info.node) this.#removeImages(info.node);
    else this.#nodeSetChanged = true;
    if (info.node && zoneKey(info.node) !== zoneKey(node)) this.#nodeSetChanged = true;
    info.setNode(node);
    this.#addImages(node);
  }

  updateNode(_old: KubeObject, node: KubeObject): void {
    this.addNode(node);
  }

  removeNode(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    const info = this.#nodes.get(name);
    if (!info?.node) return;
    this.#dirty.add(name);
    this.#removeImages(info.node);
    // pods stay until their deletion arrives; the NodeInfo without a node is left out of snapshots
    info.removeNode();
    if (info.pods.length === 0) this.#nodes.delete(name);
    this.#nodeSetChanged = true;
  }

  #imagesOf(node: KubeObject): Array<{ names?: string[]; sizeBytes?: number }> {
    return ((node.status ?? {}) as { images?: Array<{ names?: string[]; sizeBytes?: number }> }).images ?? [];
  }

  #addImages(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    for (const image of this.#imagesOf(node)) {
      for (const n of image.names ?? []) {
        let state = this.#images.get(n);
        if (!state) this.#images.set(n, (state = { size: image.sizeBytes ?? 0, nodes: new Set() }));
        state.nodes.add(name);
      }
    }
  }

  #removeImages(node: KubeObject): void {
    const name = node.metadata?.name ?? '';
    for (const image of this.#imagesOf(node)) {
      for (const n of image.names ?? []) {
        const state = this.#images.get(n);
        if (!state) continue;
        state.nodes.delete(name);
        if (state.nodes.size === 0) this.#images.delete(n);
      }
    }
  }

  /** drop assumed pods whose binding finished long ago and never showed up */
  cleanupExpiredAssumedPods(): KubeObject[] {
    const now = this.#now();
    const expired: KubeObject[] = [];
    for (const uid of this.#assumed) {
      const state = this.#pods.get(uid);
      if (state?.bindingFinished && state.deadline !== undefined && now > state.deadline) expired.push(state.pod);
    }
    for (const pod of expired) this.forgetPod(pod);
    return expired;
  }

  get nodeCount(): number {
    let n = 0;
    for (const info of this.#nodes.values()) if (info.node) n++;
    return n;
  }

  /**
   * Bring a snapshot up to date: copy NodeInfos changed since its generation, drop the ones gone,
   * and rebuild its lists (nodes interleaved zone by zone, as kube's node tree orders them).
   */
  updateSnapshot(snapshot: Snapshot): void {
    let changed = false;
    /** a node entered or left the snapshot's map: its lists are rebuilt */
    let reshaped = false;
    /** a node gained or lost pods with (anti-)affinity: the lists of such nodes are rebuilt */
    let affinityChanged = false;
    let maxGeneration = snapshot.generation;
    const candidates = snapshot === this.#lastSnapshot ? [...this.#dirty] : [...this.#nodes.keys(), ...snapshot.nodeInfoMap.keys()];
    this.#dirty.clear();
    this.#lastSnapshot = snapshot;
    for (const name of new Set(candidates)) {
      const info = this.#nodes.get(name);
      if (!info) {
        if (snapshot.nodeInfoMap.delete(name)) {
          changed = true;
          reshaped = true;
        }
        continue;
      }
      if (info.generation <= snapshot.generation && snapshot.nodeInfoMap.has(name)) continue;
      const copy = info.clone();
      copy.imageStates = new Map();
      if (info.node) {
        for (const image of this.#imagesOf(info.node)) {
          for (const n of image.names ?? []) {
            const state = this.#images.get(n);
            if (state) copy.imageStates.set(n, { size: image.sizeBytes ?? 0, numNodes: state.nodes.size });
          }
        }
      }
      const existing = snapshot.nodeInfoMap.get(name);
      if (existing) {
        // updated in place: the lists holding it stay valid (one node per pod scheduled, out of thousands)
        if ((existing.podsWithAffinity.length > 0) !== (copy.podsWithAffinity.length > 0)) affinityChanged = true;
        if ((existing.podsWithRequiredAntiAffinity.length > 0) !== (copy.podsWithRequiredAntiAffinity.length > 0)) affinityChanged = true;
        if (Boolean(existing.node) !== Boolean(copy.node)) reshaped = true;
        existing.copyFrom(copy);
      } else {
        snapshot.nodeInfoMap.set(name, copy);
        reshaped = true;
      }
      if (info.generation > maxGeneration) maxGeneration = info.generation;
      changed = true;
    }
    snapshot.generation = maxGeneration;
    if (!changed && !this.#nodeSetChanged) return;
    if (this.#nodeSetChanged) {
      this.#nodeSetChanged = false;
      snapshot.nodeInfoList = this.#zoneOrder(snapshot);
    } else if (reshaped) {
      snapshot.nodeInfoList = snapshot.nodeInfoList.map((i) => snapshot.nodeInfoMap.get(i.name) ?? i).filter((i) => i.node);
    } else if (!affinityChanged) {
      return;
    }
    snapshot.withAffinity = snapshot.nodeInfoList.filter((i) => i.podsWithAffinity.length > 0);
    snapshot.withRequiredAntiAffinity = snapshot.nodeInfoList.filter((i) => i.podsWithRequiredAntiAffinity.length > 0);
  }

  #zoneOrder(snapshot: Snapshot): NodeInfo[] {
    const zones = new Map<string, NodeInfo[]>();
    for (const info of snapshot.nodeInfoMap.values()) {
      if (!info.node) continue;
      const z = zoneKey(info.node);
      const list = zones.get(z) ?? [];
      list.push(info);
      zones.set(z, list);
    }
    const lists = [...zones.values()];
    const total = lists.reduce((n, l) => n + l.length, 0);
    const out: NodeInfo[] = [];
    for (let i = 0; out.length < total; i++) {
      for (const l of lists) if (i < l.length) out.push(l[i]);
    }
    return out;
  }
}
