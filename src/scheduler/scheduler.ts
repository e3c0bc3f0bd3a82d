/**
 * The scheduling loop (kube 1.20's Scheduler.scheduleOne and genericScheduler): take the next pod,
 * snapshot the cluster, run the profile's PreFilter and Filter plugins over enough nodes, score the
 * feasible ones, pick the best (ties at random), assume the pod onto it in the cache, and bind it
 * in the background while the next pod is scheduled. A pod that fits nowhere gets preemption
 * (PostFilter), a PodScheduled=False condition, a FailedScheduling event with kube's message, and
 * goes back to the queue.
 */
import type { Logger } from 'pino';
import type { EventRecorder } from '../client/events';
import { isNotFound } from '../client/errors';
import type { InformerFactory } from '../client/informer-factory';
import { RESOURCES } from '../client/resources';
import type { RestClient } from '../client/rest-client';
import type { KubeObject } from '../client/types';
import { PodInfo, termMatches, type NodeInfo } from './framework/node-info';
import { Snapshot } from './framework/snapshot';
import { Code, Status, isSuccess } from './framework/status';
import { CycleState, type QueuedPodInfo } from './framework/types';
import type { SchedulerCache } from './cache';
import type { SchedulerMetrics } from './metrics';
import { podKey, type SchedulingQueue } from './queue/scheduling-queue';
import type { Framework } from './runtime';

const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;
const NO_NODES_AVAILABLE = 'no nodes available to schedule pods';

/** kube's numFeasibleNodesToFind: all nodes below 100, else a share that shrinks as clusters grow */
export function numFeasibleNodesToFind(numAllNodes: number, percentage: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND || percentage >= 100) return numAllNodes;
  let adaptive = percentage;
  if (adaptive <= 0) {
    adaptive = 50 - Math.trunc(numAllNodes / 125);
    if (adaptive < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND) adaptive = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND;
  }
  const n = Math.trunc((numAllNodes * adaptive) / 100);
  return n < MIN_FEASIBLE_NODES_TO_FIND ? MIN_FEASIBLE_NODES_TO_FIND : n;
}

/** no node fits: the statuses of every node filtered, and kube's message counting their reasons */
export class FitError extends Error {
  readonly numAllNodes: number;
  readonly statuses: ReadonlyMap<string, Status>;

  constructor(pod: KubeObject, numAllNodes: number, statuses: ReadonlyMap<string, Status>) {
    super(fitErrorMessage(numAllNodes, statuses));
    this.numAllNodes = numAllNodes;
    this.statuses = statuses;
    void pod;
  }
}

/** `0/3 nodes are available: 1 node(s) had taint {...}, that the pod didn't tolerate, 2 Insufficient cpu.` */
export function fitErrorMessage(numAllNodes: number, statuses: ReadonlyMap<string, Status>): string {
  const counts = new Map<string, number>();
  for (const s of statuses.values()) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `0/${numAllNodes} nodes are available: ${parts.join(', ')}.`;
}

function nodeNameOf(pod: KubeObject): string {
  return ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
}

function schedulerNameOf(pod: KubeObject): string {
  return ((pod.spec ?? {}) as { schedulerName?: string }).schedulerName || 'default-scheduler';
}

function isTerminated(pod: KubeObject): boolean {
  const phase = ((pod.status ?? {}) as { phase?: string }).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

/** does a node change matter to pods that did not fit? (kube's nodeSchedulingPropertiesChange) */
export function nodeSchedulingPropertiesChanged(oldNode: KubeObject, newNode: KubeObject): boolean {
  const spec = (n: KubeObject) => (n.spec ?? {}) as { unschedulable?: boolean; taints?: unknown };
  const status = (n: KubeObject) => (n.status ?? {}) as { allocatable?: unknown; conditions?: Condition[] };
  if (!!spec(oldNode).unschedulable !== !!spec(newNode).unschedulable && !spec(newNode).unschedulable) return true;
  if (JSON.stringify(status(oldNode).allocatable) !== JSON.stringify(status(newNode).allocatable)) return true;
  if (JSON.stringify(oldNode.metadata?.labels ?? {}) !== JSON.stringify(newNode.metadata?.labels ?? {})) return true;
  if (JSON.stringify(spec(oldNode).taints ?? []) !== JSON.stringify(spec(newNode).taints ?? [])) return true;
  const conds = (n: KubeObject) => JSON.stringify((status(n).conditions ?? []).map((c) => [c.type, c.status]));
  return conds(oldNode) !== conds(newNode);
}

export interface SchedulerOptions {
  client: RestClient;
  informers: InformerFactory;
  profiles: ReadonlyMap<string, Framework>;
  recorders: ReadonlyMap<string, EventRecorder>;
  queue: SchedulingQueue;
  cache: SchedulerCache;
  snapshot: Snapshot;
  percentageOfNodesToScore: number;
  metrics?: SchedulerMetrics;
  logger: Logger;
  random?: () => number;
}

export class Scheduler {
  readonly #o: SchedulerOptions;
  readonly #random: () => number;
  #nextStartNodeIndex = 0;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(o: SchedulerOptions) {
    this.#o = o;
    this.#random = o.random ?? Math.random;
  }

  /** wire the informers' events into the cache and the queue (before the informers start) */
  addEventHandlers(): void {
    const { informers, queue, cache } = this.#o;
    const pods = informers.informerFor(RESOURCES.pods);
    pods.addEventHandler({
      add: (pod) => this.#podAdded(pod),
      update: (oldPod, pod) => this.#podUpdated(oldPod, pod),
      delete: (pod) => this.#podDeleted(pod),
    });
    informers.informerFor(RESOURCES.nodes).addEventHandler({
      add: (node) => {
        cache.addNode(node);
        queue.moveAllToActiveOrBackoff();
      },
      update: (oldNode, node) => {
        cache.updateNode(oldNode, node);
        if (nodeSchedulingPropertiesChanged(oldNode, node)) queue.moveAllToActiveOrBackoff();
      },
      delete: (node) => cache.removeNode(node),
    });
    // changes that may let unschedulable pods fit (kube 1.20's handlers for volumes, services, CSI nodes)
    const moveAll = () => queue.moveAllToActiveOrBackoff();
    for (const ref of [RESOURCES.persistentVolumes, RESOURCES.persistentVolumeClaims, RESOURCES.csiNodes]) informers.informerFor(ref).addEventHandler({ add: moveAll, update: moveAll });
    informers.informerFor(RESOURCES.storageClasses).addEventHandler({ add: moveAll });
    informers.informerFor(RESOURCES.services).addEventHandler({ add: moveAll, update: moveAll, delete: moveAll });
  }

  #responsible(pod: KubeObject): boolean {
    return this.#o.profiles.has(schedulerNameOf(pod));
  }

  #affinityMatch = (waiting: PodInfo, assigned: KubeObject): boolean => waiting.requiredAffinityTerms.some((t) => termMatches(t, assigned));

  #podAdded(pod: KubeObject): void {
    if (isTerminated(pod)) return;
    if (nodeNameOf(pod)) {
      this.#o.cache.addPod(pod);
      this.#o.queue.assignedPodAddedOrUpdated(pod, this.#affinityMatch);
    } else if (this.#responsible(pod)) {
      this.#o.queue.add(pod);
    }
    this.#cacheMetrics();
  }

  #podUpdated(oldPod: KubeObject, pod: KubeObject): void {
    if (isTerminated(pod)) {
      this.#podDeleted(oldPod);
      return;
    }
    const { cache, queue } = this.#o;
    if (nodeNameOf(pod)) {
      if (!nodeNameOf(oldPod)) queue.delete(oldPod);
      if (cache.getPod(pod) && !cache.isAssumed(pod)) cache.updatePod(oldPod, pod);
      else cache.addPod(pod);
      queue.assignedPodAddedOrUpdated(pod, this.#affinityMatch);
    } else if (this.#responsible(pod)) {
      if (cache.isAssumed(pod)) return;
      queue.update(oldPod, pod);
    } else if (this.#responsible(oldPod)) {
      queue.delete(oldPod);
    }
    this.#cacheMetrics();
  }

  #podDeleted(pod: KubeObject): void {
    const { cache, queue } = this.#o;
    if (nodeNameOf(pod) || cache.getPod(pod)) {
      cache.removePod(pod);
      queue.moveAllToActiveOrBackoff();
    } else {
      queue.delete(pod);
    }
    this.#cacheMetrics();
  }

  #cacheMetrics(): void {
    // cheap enough to keep current on every change
    this.#o.metrics?.cacheSize.set({ type: 'nodes' }, this.#o.cache.nodeCount);
  }

  /** schedule pods until the signal aborts; resolves after in-flight bindings finish */
  async run(signal: AbortSignal): Promise<void> {
    const { queue } = this.#o;
    signal.addEventListener('abort', () => queue.close(), { once: true });
    queue.run();
    const cleanup = setInterval(() => this.#o.cache.cleanupExpiredAssumedPods(), 1000);
    try {
      for (;;) {
        const info = await queue.pop();
        if (!info || signal.aborted) break;
        try {
          await this.scheduleOne(info);
        } catch (err) {
          this.#o.logger.error({ err, pod: podKey(info.pod) }, 'Scheduling cycle failed');
        }
      }
    } finally {
      clearInterval(cleanup);
      await Promise.allSettled([...this.#inFlight]);
    }
  }

  /** one scheduling cycle for one pod; binding continues in the background */
  async scheduleOne(info: QueuedPodInfo): Promise<void> {
    const { queue, cache, metrics, logger } = this.#o;
    const pod = info.pod;
    const fwk = this.#o.profiles.get(schedulerNameOf(pod));
    if (!fwk) {
      logger.error({ pod: podKey(pod), schedulerName: schedulerNameOf(pod) }, 'Profile not found for pod');
      return;
    }
    // deleted meanwhile, or already assumed or bound (an update re-queued it during its cycle)
    if (pod.metadata?.deletionTimestamp || cache.getPod(pod)) return;
    const start = performance.now();
    const cycle = queue.schedulingCycle;
    const state = new CycleState();
    let host: string;
    try {
      host = this.#schedule(fwk, state, pod);
    } catch (err) {
      metrics?.algorithmDuration.observe((performance.now() - start) / 1000);
      if (err instanceof FitError) {
        let nominated = '';
        if (fwk.hasPostFilter()) {
          metrics?.preemptionAttempts.inc();
          try {
            const r = await fwk.runPostFilter(state, pod, err.statuses);
            if (isSuccess(r.status) && r.result) nominated = r.result.nominatedNodeName;
          } catch (e) {
            logger.error({ err: e, pod: podKey(pod) }, 'Preemption failed');
          }
        }
        metrics?.attempts.inc({ result: 'unschedulable', profile: fwk.profileName });
        await this.#recordFailure(fwk, info, err, 'Unschedulable', nominated, cycle);
      } else if ((err as Error).message === NO_NODES_AVAILABLE) {
        // counted as unschedulable, not as an error: a node appearing will bring the pod back
        metrics?.attempts.inc({ result: 'unschedulable', profile: fwk.profileName });
        await this.#recordFailure(fwk, info, err as Error, 'Unschedulable', '', cycle);
      } else {
        // kube gives algorithm errors the Unschedulable reason too; the pod backs off
        metrics?.attempts.inc({ result: 'error', profile: fwk.profileName });
        await this.#recordFailure(fwk, info, err as Error, 'Unschedulable', '', cycle, true);
      }
      return;
    }
    metrics?.algorithmDuration.observe((performance.now() - start) / 1000);

    // assume: the cache counts the pod on the node from now on
    const assumed: KubeObject = { ...pod, spec: { ...(pod.spec ?? {}), nodeName: host } };
    const reserve = await fwk.runReserve(state, assumed, host);
    if (!isSuccess(reserve)) {
      await fwk.runUnreserve(state, assumed, host);
      metrics?.attempts.inc({ result: 'error', profile: fwk.profileName });
      await this.#recordFailure(fwk, info, new Error(reserve!.message), 'SchedulerError', '', cycle);
      return;
    }
    try {
      cache.assumePod(assumed);
    } catch (err) {
      await fwk.runUnreserve(state, assumed, host);
      metrics?.attempts.inc({ result: 'error', profile: fwk.profileName });
      await this.#recordFailure(fwk, info, err as Error, 'SchedulerError', '', cycle);
      return;
    }
    // a nominated pod that got a node needs no nomination any more
    queue.nominator.deleteNominatedPodIfExists(pod);
    const permit = await fwk.runPermit(state, assumed, host);
    if (!isSuccess(permit)) {
      await this.#undo(fwk, state, assumed, host);
      const reason = permit!.isUnschedulable() ? 'Unschedulable' : 'SchedulerError';
      metrics?.attempts.inc({ result: reason === 'Unschedulable' ? 'unschedulable' : 'error', profile: fwk.profileName });
      await this.#recordFailure(fwk, info, new Error(permit!.message), reason, '', cycle);
      return;
    }
    const binding = this.#bind(fwk, state, info, assumed, host, start, cycle);
    this.#inFlight.add(binding);
    void binding.finally(() => this.#inFlight.delete(binding));
  }

  async #bind(fwk: Framework, state: CycleState, info: QueuedPodInfo, assumed: KubeObject, host: string, start: number, cycle: number): Promise<void> {
    const { cache, metrics, queue } = this.#o;
    const fail = async (s: Status) => {
      await this.#undo(fwk, state, assumed, host);
      // the node's resources are free again: others may fit now
      queue.moveAllToActiveOrBackoff();
      metrics?.attempts.inc({ result: 'error', profile: fwk.profileName });
      await this.#recordFailure(fwk, info, s.error ?? new Error(s.message), 'SchedulerError', '', cycle);
    };
    try {
      const pre = await fwk.runPreBind(state, assumed, host);
      if (!isSuccess(pre)) return await fail(pre!);
      const bound = await fwk.runBind(state, assumed, host);
      if (!isSuccess(bound)) return await fail(bound!);
      cache.finishBinding(assumed);
      metrics?.attempts.inc({ result: 'scheduled', profile: fwk.profileName });
      metrics?.e2eDuration.observe({ result: 'scheduled', profile: fwk.profileName }, (performance.now() - start) / 1000);
      metrics?.podAttempts.observe(info.attempts);
      const meta = assumed.metadata ?? {};
      this.#recorder(fwk).event(assumed, 'Normal', 'Scheduled', `Successfully assigned ${meta.namespace}/${meta.name} to ${host}`);
      fwk.runPostBind(state, assumed, host);
    } catch (err) {
      await fail(err instanceof Status ? err : new Status(Code.Error, [String((err as Error).message ?? err)], err as Error));
    }
  }

  async #undo(fwk: Framework, state: CycleState, assumed: KubeObject, host: string): Promise<void> {
    await fwk.runUnreserve(state, assumed, host);
    this.#o.cache.forgetPod(assumed);
  }

  #recorder(fwk: Framework): EventRecorder {
    return this.#o.recorders.get(fwk.profileName) ?? fwk.recorder;
  }

  /** find a node for the pod, or throw FitError (or another error) */
  #schedule(fwk: Framework, state: CycleState, pod: KubeObject): string {
    const { cache, snapshot } = this.#o;
    cache.updateSnapshot(snapshot);
    const nodes = snapshot.list();
    if (nodes.length === 0) throw new Error(NO_NODES_AVAILABLE);
    const feasible = this.#findNodesThatFit(fwk, state, pod, nodes);
    if (feasible.length === 0) throw new FitError(pod, nodes.length, this.#lastStatuses);
    if (feasible.length === 1) return feasible[0].name;
    if (!fwk.hasScore()) return this.#pick(feasible, feasible.map(() => 0));
    const pre = fwk.runPreScore(state, pod, feasible);
    if (!isSuccess(pre)) throw pre!.error ?? new Error(pre!.message);
    const scored = fwk.runScore(state, pod, feasible);
    if ('status' in scored) throw scored.status.error ?? new Error(scored.status.message);
    return this.#pick(feasible, scored.totals);
  }

  #lastStatuses = new Map<string, Status>();

  #findNodesThatFit(fwk: Framework, state: CycleState, pod: KubeObject, nodes: readonly NodeInfo[]): NodeInfo[] {
    const statuses = new Map<string, Status>();
    this.#lastStatuses = statuses;
    const pre = fwk.runPreFilter(state, pod);
    if (!isSuccess(pre)) {
      if (!pre!.isUnschedulable()) throw pre!.error ?? new Error(pre!.message);
      // every node fails the same way
      for (const n of nodes) statuses.set(n.name, pre!);
      return [];
    }
    const want = numFeasibleNodesToFind(nodes.length, this.#o.percentageOfNodesToScore);
    const feasible: NodeInfo[] = [];
    let processed = 0;
    const total = nodes.length;
    for (let i = 0; i < total && feasible.length < want; i++) {
      const info = nodes[(this.#nextStartNodeIndex + i) % total];
      processed++;
      const s = fwk.runFilterPluginsWithNominatedPods(state, pod, info);
      if (s === undefined || s.code === Code.Success) feasible.push(info);
      else if (s.isUnschedulable()) statuses.set(info.name, s);
      else throw s.error ?? new Error(s.message);
    }
    this.#nextStartNodeIndex = (this.#nextStartNodeIndex + processed) % total;
    return feasible;
  }

  /** the highest total; ties broken uniformly at random (kube's selectHost) */
  #pick(nodes: readonly NodeInfo[], totals: readonly number[]): string {
    let best = 0;
    let ties = 1;
    for (let i = 1; i < nodes.length; i++) {
      if (totals[i] > totals[best]) {
        best = i;
        ties = 1;
      } else if (totals[i] === totals[best]) {
        ties++;
        if (this.#random() * ties < 1) best = i;
      }
    }
    return nodes[best].name;
  }

  /**
   * kube's error handling for a failed cycle: the FailedScheduling event, the PodScheduled=False
   * condition (and the nominated node), and the pod back in the queue if it still needs a node.
   */
  async #recordFailure(fwk: Framework, info: QueuedPodInfo, err: Error, reason: 'Unschedulable' | 'SchedulerError', nominatedNode: string, cycle: number, backoff = reason === 'SchedulerError'): Promise<void> {
    const { queue, logger, informers } = this.#o;
    const pod = info.pod;
    const message = err.message;
    if (backoff) logger.error({ pod: podKey(pod), err: message }, 'Error scheduling pod; retrying');
    else logger.info({ pod: podKey(pod), reason: message }, 'Unable to schedule pod; waiting');
    // requeue from the informer's newest copy, unless the pod is gone or bound meanwhile
    const cached = informers.informerFor(RESOURCES.pods).store.getObject(pod.metadata?.namespace, pod.metadata?.name ?? '');
    if (cached && cached.metadata?.uid === pod.metadata?.uid && !nodeNameOf(cached)) {
      const requeued: QueuedPodInfo = { ...info, pod: cached, podInfo: new PodInfo(cached) };
      if (backoff) queue.addBackoff(requeued);
      else queue.addUnschedulableIfNotPresent(requeued, cycle);
    }
    if (nominatedNode) queue.nominator.addNominatedPod(pod, nominatedNode);
    this.#recorder(fwk).event(pod, 'Warning', 'FailedScheduling', message);
    await this.#updatePodCondition(cached ?? pod, { type: 'PodScheduled', status: 'False', reason, message }, nominatedNode);
  }

  async #updatePodCondition(pod: KubeObject, condition: Condition, nominatedNode: string): Promise<void> {
    const status = (pod.status ?? {}) as { conditions?: Condition[]; nominatedNodeName?: string };
    const existing = (status.conditions ?? []).find((c) => c.type === condition.type);
    const same = existing && existing.status === condition.status && existing.reason === condition.reason && existing.message === condition.message;
    const nominatedChanged = nominatedNode !== '' && nominatedNode !== (status.nominatedNodeName ?? '');
    if (same && !nominatedChanged) return;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const full: Condition = { ...condition, lastProbeTime: null, lastTransitionTime: existing && existing.status === condition.status ? existing.lastTransitionTime : now };
    const patch: Record<string, unknown> = { conditions: [full] };
    if (nominatedChanged) patch.nominatedNodeName = nominatedNode;
    try {
      await this.#o.client.patch(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', 'strategic', { status: patch }, { subresource: 'status' });
    } catch (err) {
      if (!isNotFound(err)) this.#o.logger.error({ err: (err as Error).message, pod: podKey(pod) }, 'Updating the pod condition failed');
    }
  }
}

export { Snapshot };
