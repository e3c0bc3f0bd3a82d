/**
 * The scheduling queue (kube 1.20's PriorityQueue): pods waiting for a node in three places.
 * - active: ready to be tried, in the profile's QueueSort order (priority, then arrival);
 * - backoff: failed recently, each waits initial * 2^(attempts-1) up to the maximum;
 * - unschedulable: failed with nothing to retry for until the cluster changes; moved back on the
 *   events that may help (a node added or changed, a pod deleted, volumes...) or after 60 s.
 * A pod that failed while such an event happened during its cycle goes to backoff instead, so a
 * change is never missed. The queue also remembers which pods preemption nominated to which node.
 */
import type { KubeObject } from '../../client/types';
import { PodInfo } from '../framework/node-info';
import type { PodNominator, QueuedPodInfo } from '../framework/types';
import { KeyedHeap } from './heap';

/** how long a pod may sit in the unschedulable set before it is retried anyway */
export const UNSCHEDULABLE_TIMEOUT_MS = 60_000;
const FLUSH_BACKOFF_MS = 1000;
const FLUSH_UNSCHEDULABLE_MS = 30_000;

export function podKey(pod: KubeObject): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

export interface QueueOptions {
  /** the QueueSort plugin's order */
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
  initialBackoffMs: number;
  maxBackoffMs: number;
  now?: () => number;
  /** told whenever the number of pods in a queue changes (metrics) */
  onChange?: (counts: { active: number; backoff: number; unschedulable: number }) => void;
}

/** pods nominated to nodes by preemption, with the node each was nominated to */
export class Nominator implements PodNominator {
  readonly #byNode = new Map<string, PodInfo[]>();
  readonly #nodeOf = new Map<string, string>();

  nominatedPodsForNode(nodeName: string): readonly PodInfo[] {
    return this.#byNode.get(nodeName) ?? [];
  }

  /** nominate to `nodeName`, or to the pod's status.nominatedNodeName when nodeName is '' */
  addNominatedPod(pod: KubeObject, nodeName: string): void {
    this.deleteNominatedPodIfExists(pod);
    const node = nodeName || ((pod.status ?? {}) as { nominatedNodeName?: string }).nominatedNodeName || '';
    if (!node) return;
    const uid = pod.metadata?.uid ?? '';
    this.#nodeOf.set(uid, node);
    const list = this.#byNode.get(node) ?? [];
    list.push(new PodInfo(pod));
    this.#byNode.set(node, list);
  }

  deleteNominatedPodIfExists(pod: KubeObject): void {
    const uid = pod.metadata?.uid ?? '';
    const node = this.#nodeOf.get(uid);
    if (node === undefined) return;
    this.#nodeOf.delete(uid);
    const list = (this.#byNode.get(node) ?? []).filter((p) => p.pod.metadata?.uid !== uid);
    if (list.length) this.#byNode.set(node, list);
    else this.#byNode.delete(node);
  }

  /** a pod changed: keep its nomination (the one in its status, or the one we gave it) current */
  updateNominatedPod(oldPod: KubeObject, newPod: KubeObject): void {
    const nominated = ((newPod.status ?? {}) as { nominatedNodeName?: string }).nominatedNodeName;
    const had = this.#nodeOf.get(oldPod.metadata?.uid ?? '');
    const node = nominated || had || '';
    this.deleteNominatedPodIfExists(oldPod);
    if (node) this.addNominatedPod(newPod, node);
  }

  nodeOf(pod: KubeObject): string | undefined {
    return this.#nodeOf.get(pod.metadata?.uid ?? '');
  }
}

/** did anything but the status and bookkeeping metadata change? (kube's isPodUpdated) */
function podSpecChanged(oldPod: KubeObject, newPod: KubeObject): boolean {
  const strip = (p: KubeObject) => {
    const { resourceVersion: _rv, generation: _g, managedFields: _mf, ...meta } = p.metadata ?? {};
    return JSON.stringify([meta, p.spec]);
  };
  return strip(oldPod) !== strip(newPod);
}

export class SchedulingQueue {
  readonly nominator = new Nominator();
  readonly #o: QueueOptions;
  readonly #now: () => number;
  readonly #active: KeyedHeap<QueuedPodInfo>;
  readonly #backoff: KeyedHeap<QueuedPodInfo>;
  readonly #unschedulable = new Map<string, QueuedPodInfo>();
  #waiters: Array<(p: QueuedPodInfo | undefined) => void> = [];
  /** incremented on every pop: the cycle a failed pod was tried in */
  #schedulingCycle = 0;
  /** the cycle of the last move request (a cluster event that may make pods schedulable) */
  #moveRequestCycle = -1;
  #closed = false;
  #timers: NodeJS.Timeout[] = [];

  constructor(o: QueueOptions) {
    this.#o = o;
    this.#now = o.now ?? Date.now;
    this.#active = new KeyedHeap((p) => podKey(p.pod), o.less);
    this.#backoff = new KeyedHeap((p) => podKey(p.pod), (a, b) => this.#backoffExpiry(a) < this.#backoffExpiry(b));
  }

  /** start the periodic flushes of the backoff and unschedulable sets */
  run(): void {
    this.#timers.push(setInterval(() => this.flushBackoffCompleted(), FLUSH_BACKOFF_MS));
    this.#timers.push(setInterval(() => this.flushUnschedulableLeftover(), FLUSH_UNSCHEDULABLE_MS));
  }

  close(): void {
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers = [];
    for (const w of this.#waiters) w(undefined);
    this.#waiters = [];
  }

  get schedulingCycle(): number {
    return this.#schedulingCycle;
  }

  counts(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.#active.size, backoff: this.#backoff.size, unschedulable: this.#unschedulable.size };
  }

  /** every pending pod (kube's PendingPods) */
  pendingPods(): KubeObject[] {
    return [...this.#active.values(), ...this.#backoff.values(), ...this.#unschedulable.values()].map((p) => p.pod);
  }

  #newInfo(pod: KubeObject): QueuedPodInfo {
    const now = this.#now();
    return { pod, podInfo: new PodInfo(pod), timestamp: now, attempts: 0, initialAttemptTimestamp: now };
  }

  #changed(): void {
    this.#o.onChange?.(this.counts());
  }

  #pushActive(info: QueuedPodInfo): void {
    const waiter = this.#waiters.shift();
    if (waiter) {
      this.#startCycle(info);
      waiter(info);
      return;
    }
    this.#active.upsert(info);
  }

  #startCycle(info: QueuedPodInfo): void {
    info.attempts++;
    this.#schedulingCycle++;
  }

  /** a new pending pod */
  add(pod: KubeObject): void {
    const key = podKey(pod);
    const existing = this.#active.get(key) ?? this.#backoff.get(key) ?? this.#unschedulable.get(key);
    this.#backoff.delete(key);
    this.#unschedulable.delete(key);
    const info = existing ? { ...existing, pod, podInfo: new PodInfo(pod) } : this.#newInfo(pod);
    this.#pushActive(info);
    this.nominator.addNominatedPod(pod, '');
    this.#changed();
  }

  /**
   * The next pod to schedule, waiting for one; undefined once closed. Each pop starts a scheduling
   * cycle (its number is `schedulingCycle` right after).
   */
  pop(): Promise<QueuedPodInfo | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    const info = this.#active.pop();
    if (info) {
      this.#startCycle(info);
      this.#changed();
      return Promise.resolve(info);
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * A pod that could not be scheduled in cycle `podCycle`: to backoff when the cluster changed
   * since that cycle began, else to the unschedulable set. Ignored when the pod is queued already
   * (an update re-added it meanwhile).
   */
  addUnschedulableIfNotPresent(info: QueuedPodInfo, podCycle: number): void {
    const key = podKey(info.pod);
    if (this.#active.has(key) || this.#backoff.has(key) || this.#unschedulable.has(key)) return;
    info.timestamp = this.#now();
    if (this.#moveRequestCycle >= podCycle) this.#backoff.upsert(info);
    else this.#unschedulable.set(key, info);
    this.nominator.addNominatedPod(info.pod, '');
    this.#changed();
  }

  /** a pod that failed with an error (not a fit problem): always back off */
  addBackoff(info: QueuedPodInfo): void {
    const key = podKey(info.pod);
    if (this.#active.has(key) || this.#backoff.has(key) || this.#unschedulable.has(key)) return;
    info.timestamp = this.#now();
    this.#backoff.upsert(info);
    this.#changed();
  }

  /** a pending pod changed */
  update(oldPod: KubeObject, newPod: KubeObject): void {
    const key = podKey(newPod);
    const inActive = this.#active.get(key);
    if (inActive) {
      this.nominator.updateNominatedPod(oldPod, newPod);
      this.#active.upsert({ ...inActive, pod: newPod, podInfo: new PodInfo(newPod) });
      return;
    }
    const inBackoff = this.#backoff.get(key);
    if (inBackoff) {
      this.nominator.updateNominatedPod(oldPod, newPod);
      this.#backoff.upsert({ ...inBackoff, pod: newPod, podInfo: new PodInfo(newPod) });
      return;
    }
    const inUnschedulable = this.#unschedulable.get(key);
    if (inUnschedulable) {
      this.nominator.updateNominatedPod(oldPod, newPod);
      const info = { ...inUnschedulable, pod: newPod, podInfo: new PodInfo(newPod) };
      if (podSpecChanged(oldPod, newPod)) {
        this.#unschedulable.delete(key);
        if (this.#isBackingOff(info)) this.#backoff.upsert(info);
        else this.#pushActive(info);
        this.#changed();
      } else {
        this.#unschedulable.set(key, info);
      }
      return;
    }
    // not queued (being scheduled right now, or missed): queue it
    this.add(newPod);
  }

  delete(pod: KubeObject): void {
    const key = podKey(pod);
    this.nominator.deleteNominatedPodIfExists(pod);
    const had = this.#active.delete(key) ?? this.#backoff.delete(key);
    const hadU = this.#unschedulable.delete(key);
    if (had || hadU) this.#changed();
  }

  /** a cluster event that may make any unschedulable pod schedulable (kube's MoveAllToActiveOrBackoffQueue) */
  moveAllToActiveOrBackoff(): void {
    this.#move([...this.#unschedulable.values()]);
    this.#moveRequestCycle = this.#schedulingCycle;
  }

  /** an assigned pod appeared or changed: retry the unschedulable pods whose affinity terms it matches */
  assignedPodAddedOrUpdated(pod: KubeObject, matches: (waiting: PodInfo, assigned: KubeObject) => boolean): void {
    this.#move([...this.#unschedulable.values()].filter((info) => matches(info.podInfo, pod)));
  }

  #move(infos: QueuedPodInfo[]): void {
    for (const info of infos) {
      this.#unschedulable.delete(podKey(info.pod));
      if (this.#isBackingOff(info)) this.#backoff.upsert(info);
      else this.#pushActive(info);
    }
    if (infos.length) this.#changed();
  }

  #backoffDuration(info: QueuedPodInfo): number {
    let d = this.#o.initialBackoffMs;
    for (let i = 1; i < info.attempts; i++) {
      d *= 2;
      if (d >= this.#o.maxBackoffMs) return this.#o.maxBackoffMs;
    }
    return Math.min(d, this.#o.maxBackoffMs);
  }

  #backoffExpiry(info: QueuedPodInfo): number {
    return info.timestamp + this.#backoffDuration(info);
  }

  #isBackingOff(info: QueuedPodInfo): boolean {
    return this.#backoffExpiry(info) > this.#now();
  }

  /** move pods whose backoff ended to the active queue */
  flushBackoffCompleted(): void {
    const now = this.#now();
    let moved = false;
    for (;;) {
      const head = this.#backoff.peek();
      if (!head || this.#backoffExpiry(head) > now) break;
      this.#backoff.pop();
      this.#pushActive(head);
      moved = true;
    }
    if (moved) this.#changed();
  }

  /** retry pods that sat in the unschedulable set for a minute */
  flushUnschedulableLeftover(): void {
    const now = this.#now();
    this.#move([...this.#unschedulable.values()].filter((info) => now - info.timestamp > UNSCHEDULABLE_TIMEOUT_MS));
  }
}
