/**
 * kube's node lifecycle controller (pkg/controller/nodelifecycle, 1.20). Every monitor period it
 * checks each node's health (node-health.ts), sets the conditions of silent nodes to Unknown,
 * marks the pods of nodes that just went not ready as not ready, and reacts by zone:
 * - with the taint manager (TaintBasedEvictions), unhealthy nodes are queued per zone for the
 *   not-ready or unreachable NoExecute taint, taken at the zone's eviction rate; the taint
 *   manager (taint-manager.ts) then evicts the pods that do not tolerate it;
 * - without it, nodes unhealthy for longer than --pod-eviction-timeout have their pods deleted,
 *   at the same per-zone rate.
 * The rate of each zone follows its disruption state (zones.ts); when every zone is fully
 * disrupted the controller assumes its own network is at fault and stops evicting. Node add and
 * update events keep the NoSchedule condition taints (TaintNodesByCondition) in step.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import { EventRecorder } from '../../client/events';
import { byNodeName, NODE_NAME_INDEX } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { sleep } from '../../client/sleep';
import { objectKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { NodeHealthMap } from './node-health';
import { NodeWriter, UPDATE_RETRIES } from './node-writes';
import { RateLimitedTimedQueue } from './rate-limited-queue';
import { TaintManager } from './taint-manager';
import {
  conditionOf,
  hasTaint,
  noScheduleTaintDiff,
  NOT_READY_NO_EXECUTE,
  taintsOf,
  UNREACHABLE_NO_EXECUTE,
  type NodeCondition,
} from './taints';
import { zoneKey, ZoneStates, type ZoneState } from './zones';

export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
/** kube's nodeEvictionPeriod: how often the per-zone queues are worked */
const EVICTION_PERIOD_MS = 100;
/** nodes with this label do not count towards their zone's disruption (NodeDisruptionExclusion) */
const EXCLUDE_DISRUPTION_LABEL = 'node.kubernetes.io/exclude-disruption';
/** kube's labelReconcileInfo: [stable label, beta label kept equal to it] */
const RECONCILED_LABELS = [
  ['kubernetes.io/os', 'beta.kubernetes.io/os'],
  ['kubernetes.io/arch', 'beta.kubernetes.io/arch'],
] as const;

export interface NodeLifecycleOptions {
  ctx: ControllerContext;
  /** a clock, for tests */
  now?: () => number;
}

const nodeRef = (node: KubeObject): KubeObject => ({ kind: 'Node', metadata: { name: node.metadata?.name, uid: node.metadata?.uid ?? node.metadata?.name } });

export class NodeLifecycleController {
  readonly #ctx: ControllerContext;
  readonly #s: ControllerContext['settings']['nodeLifecycle'];
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #recorder: EventRecorder;
  readonly #nodes: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #leases: SharedInformer;
  readonly #taintManager?: TaintManager;
  readonly #health = new NodeHealthMap();
  readonly #writer: NodeWriter;
  readonly #known = new Map<string, KubeObject>();
  readonly #zones: ZoneStates;
  /** per zone: nodes waiting for their NoExecute taint (taint mode) or the eviction of their pods */
  readonly #zoneQueues = new Map<string, RateLimitedTimedQueue>();
  readonly #retryPods = new Set<string>();
  readonly #nodeUpdates = new WorkQueue<string>({ name: 'node_lifecycle_controller' });
  readonly #podUpdates = new WorkQueue<string>({ name: 'node_lifecycle_controller_pods' });

  constructor(o: NodeLifecycleOptions) {
    this.#ctx = o.ctx;
    this.#s = o.ctx.settings.nodeLifecycle;
    this.#zones = new ZoneStates(this.#s);
    this.#log = o.ctx.logger;
    this.#now = o.now ?? Date.now;
    this.#recorder = new EventRecorder(o.ctx.client, { component: 'node-controller' }, this.#log);
    this.#nodes = o.ctx.informers.informerFor(RESOURCES.nodes);
    this.#pods = o.ctx.informers.informerFor(RESOURCES.pods);
    this.#leases = o.ctx.informers.informerFor(RESOURCES.leases);
    this.#pods.addIndexer(NODE_NAME_INDEX, byNodeName);
    this.#writer = new NodeWriter({ client: o.ctx.client, recorder: this.#recorder, logger: this.#log, nodes: this.#nodes, pods: this.#pods, now: this.#now });
    if (this.#s.enableTaintManager) {
      this.#taintManager = new TaintManager({
        client: o.ctx.client,
        recorder: new EventRecorder(o.ctx.client, { component: 'taint-controller' }, this.#log),
        logger: this.#log.child({ part: 'taint-manager' }),
        nodes: this.#nodes,
        pods: this.#pods,
        signal: o.ctx.signal,
      });
    }
    this.#nodes.addEventHandler({
      add: (node) => this.#nodeUpdates.add(objectKey(node)),
      update: (_old, node) => this.#nodeUpdates.add(objectKey(node)),
    });
    this.#pods.addEventHandler({
      add: (pod) => this.#podUpdates.add(objectKey(pod)),
      update: (old, pod) => {
        if (old.metadata?.resourceVersion !== pod.metadata?.resourceVersion) this.#podUpdates.add(objectKey(pod));
      },
    });
  }

  get zoneStates(): ReadonlyMap<string, ZoneState> {
    return this.#zones.states;
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => {
      this.#nodeUpdates.shutDown();
      this.#podUpdates.shutDown();
    }, { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    this.#log.info({ taintManager: !!this.#taintManager }, 'Starting node controller');
    this.#taintManager?.start();
    const onError = (what: string) => (key: string, err: unknown) => this.#log.error({ err, key }, what);
    await Promise.all([
      runWorkers(this.#nodeUpdates, 8, (name) => this.#processNode(name), onError('error updating the condition taints or labels of a node')),
      runWorkers(this.#podUpdates, 4, (key) => this.#syncPod(key), onError('error marking a pod not ready')),
      this.#every(this.#s.monitorPeriodMs, () => this.#monitorNodeHealth()),
      this.#every(EVICTION_PERIOD_MS, () => (this.#taintManager ? this.#taintingPass() : this.#evictionPass())),
    ]);
  }

  async #every(periodMs: number, fn: () => Promise<void>): Promise<void> {
    const { signal } = this.#ctx;
    while (!signal.aborted) {
      try {
        await fn();
      } catch (err) {
        if (!signal.aborted) this.#log.error({ err }, 'node controller pass failed');
      }
      await sleep(periodMs, signal);
    }
  }

  // ---- monitorNodeHealth ---------------------------------------------------------------------

  async #monitorNodeHealth(): Promise<void> {
    const nodes = this.#nodes.store.list();
    const names = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      if (this.#known.has(name)) continue;
      this.#known.set(name, node);
      this.#recorder.event(nodeRef(node), 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`);
      this.#addZone(node);
      if (this.#taintManager) await this.#markNodeAsReachable(node);
      else this.#zoneQueues.get(zoneKey(node))?.remove(name);
    }
    for (const [name, node] of this.#known) {
      if (names.has(name)) continue;
      this.#recorder.event(nodeRef(node), 'Normal', 'RemovingNode', `Node ${name} event: Removing Node ${name} from Controller`);
      this.#known.delete(name);
      this.#health.delete(name);
      this.#retryPods.delete(name);
    }

    const zoneConditions = new Map<string, (NodeCondition | undefined)[]>();
    for (const stored of nodes) {
      const name = stored.metadata?.name ?? '';
      const checked = await this.#checkHealth(stored);
      if (!checked) continue;
      const { node, observed, current } = checked;
      if (node.metadata?.labels?.[EXCLUDE_DISRUPTION_LABEL] === undefined) {
        const zone = zoneKey(node);
        zoneConditions.set(zone, [...(zoneConditions.get(zone) ?? []), current]);
      }
      if (!current) continue;
      if (this.#taintManager) await this.#taintBasedEviction(node, observed);
      else this.#podEvictionTimeoutEviction(node, observed);
      const pods = this.#pods.store.byIndex(NODE_NAME_INDEX, name);
      let mark = false;
      if (current.status !== 'True' && observed.status === 'True') {
        // once, when the status changes
        this.#recorder.event(nodeRef(node), 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        mark = true;
      } else if (this.#retryPods.has(name) && observed.status !== 'True') {
        mark = true;
      }
      if (mark && !(await this.#writer.markPodsNotReady(pods, name))) {
        this.#retryPods.add(name);
        continue;
      }
      this.#retryPods.delete(name);
    }
    await this.#handleDisruption(zoneConditions, nodes);
  }

  /** tryUpdateNodeHealth with kube's retries: on a failed write, read the node again */
  async #checkHealth(stored: KubeObject): Promise<{ node: KubeObject; observed: NodeCondition; current?: NodeCondition } | undefined> {
    let node = stored;
    const name = node.metadata?.name ?? '';
    for (let attempt = 0; attempt < UPDATE_RETRIES; attempt++) {
      const lease = this.#leases.store.getObject(NODE_LEASE_NAMESPACE, name);
      const renew = ((lease?.spec ?? {}) as { renewTime?: string }).renewTime;
      const now = this.#now();
      const check = this.#health.check(node, renew, { monitorGracePeriodMs: this.#s.monitorGracePeriodMs, startupGracePeriodMs: this.#s.startupGracePeriodMs, now });
      if (!check.statusUpdate) return { node, observed: check.observed, current: check.current };
      try {
        const written = await this.#ctx.client.update(RESOURCES.nodes, check.statusUpdate, 'status');
        this.#health.written(written, now);
        return { node: written, observed: check.observed, current: check.current };
      } catch (err) {
        this.#log.info({ node: name, err: (err as Error).message }, 'could not update the node status; reading it again');
        try {
          node = await this.#ctx.client.get(RESOURCES.nodes, undefined, name);
        } catch (getErr) {
          if (isNotFound(getErr)) return undefined;
        }
      }
    }
    this.#log.error({ node: name }, 'giving up on the node status update');
    return undefined;
  }

  /** processTaintBaseEviction */
  async #taintBasedEviction(node: KubeObject, observed: NodeCondition): Promise<void> {
    const name = node.metadata?.name ?? '';
    const taints = taintsOf(node);
    if (observed.status === 'False') {
      if (hasTaint(taints, UNREACHABLE_NO_EXECUTE)) await this.#writer.swapTaints(name, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE]);
      else if (this.#zoneQueues.get(zoneKey(node))?.add(name, node.metadata?.uid ?? '')) this.#log.info({ node: name }, 'node is NotReady: adding it to the taint queue');
    } else if (observed.status === 'Unknown') {
      if (hasTaint(taints, NOT_READY_NO_EXECUTE)) await this.#writer.swapTaints(name, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE]);
      else if (this.#zoneQueues.get(zoneKey(node))?.add(name, node.metadata?.uid ?? '')) this.#log.info({ node: name }, 'node is unresponsive: adding it to the taint queue');
    } else if (observed.status === 'True') {
      if (await this.#markNodeAsReachable(node)) this.#log.info({ node: name }, 'node is healthy again: removing all taints');
    }
  }

  /** processNoTaintBaseEviction: without the taint manager, pods go after --pod-eviction-timeout */
  #podEvictionTimeoutEviction(node: KubeObject, observed: NodeCondition): void {
    const name = node.metadata?.name ?? '';
    const health = this.#health.get(name);
    const queue = this.#zoneQueues.get(zoneKey(node));
    if (!health || !queue) return;
    const now = this.#now();
    if (observed.status === 'False' && health.readyTransitionTimestamp + this.#s.podEvictionTimeoutMs < now) {
      if (queue.add(name, node.metadata?.uid ?? '')) this.#log.info({ node: name }, 'node is NotReady: evicting its pods');
    } else if (observed.status === 'Unknown' && health.probeTimestamp + this.#s.podEvictionTimeoutMs < now) {
      if (queue.add(name, node.metadata?.uid ?? '')) this.#log.info({ node: name }, 'node is unresponsive: evicting its pods');
    } else if (observed.status === 'True' && queue.remove(name)) {
      this.#log.info({ node: name }, 'cancelling pod eviction on the node');
    }
  }

  /** markNodeAsReachable: drop both NoExecute taints and any queued tainting */
  async #markNodeAsReachable(node: KubeObject): Promise<boolean> {
    const name = node.metadata?.name ?? '';
    const taints = taintsOf(node);
    if (hasTaint(taints, UNREACHABLE_NO_EXECUTE) || hasTaint(taints, NOT_READY_NO_EXECUTE)) {
      await this.#writer.swapTaints(name, [], [UNREACHABLE_NO_EXECUTE, NOT_READY_NO_EXECUTE]);
    }
    return this.#zoneQueues.get(zoneKey(node))?.remove(name) ?? false;
  }


  // ---- zones ---------------------------------------------------------------------------------

  #addZone(node: KubeObject): void {
    const zone = zoneKey(node);
    if (this.#zones.add(zone)) this.#zoneQueues.set(zone, new RateLimitedTimedQueue(this.#s.evictionRate));
  }

  /** handleDisruption */
  async #handleDisruption(zoneConditions: Map<string, (NodeCondition | undefined)[]>, nodes: KubeObject[]): Promise<void> {
    const before = new Map(this.#zones.states);
    const decision = this.#zones.review(zoneConditions);
    if (decision.kind === 'enterFullDisruption') {
      this.#log.info('Controller detected that all Nodes are not-Ready. Entering master disruption mode.');
      for (const node of nodes) {
        if (this.#taintManager) await this.#markNodeAsReachable(node);
        else this.#zoneQueues.get(zoneKey(node))?.remove(node.metadata?.name ?? '');
      }
      for (const queue of this.#zoneQueues.values()) queue.swapLimiter(0);
      return;
    }
    if (decision.kind === 'exitFullDisruption') {
      this.#log.info('Controller detected that some Nodes are Ready. Exiting master disruption mode.');
      this.#health.resetAll(this.#now());
    }
    for (const [zone, rate] of decision.rates) {
      if (decision.kind === 'zones' && before.get(zone) !== this.#zones.states.get(zone)) {
        this.#log.info({ zone, state: this.#zones.states.get(zone) }, `Controller detected that zone ${zone} is now in state ${this.#zones.states.get(zone)}.`);
      }
      this.#zoneQueues.get(zone)?.swapLimiter(rate);
    }
  }

  // ---- the per-zone queues -------------------------------------------------------------------

  /** doNoExecuteTaintingPass */
  async #taintingPass(): Promise<void> {
    for (const queue of this.#zoneQueues.values()) {
      await queue.try(async (name) => {
        const node = this.#nodes.store.get(name);
        if (!node) return { done: true };
        const status = conditionOf(node, 'Ready')?.status;
        if (status === 'False') return { done: await this.#writer.swapTaints(name, [NOT_READY_NO_EXECUTE], [UNREACHABLE_NO_EXECUTE]), retryAfterMs: 50 };
        if (status === 'Unknown') return { done: await this.#writer.swapTaints(name, [UNREACHABLE_NO_EXECUTE], [NOT_READY_NO_EXECUTE]), retryAfterMs: 50 };
        return { done: true };
      });
    }
  }

  /** doEvictionPass: delete the pods of nodes unhealthy for longer than the eviction timeout */
  async #evictionPass(): Promise<void> {
    for (const queue of this.#zoneQueues.values()) {
      await queue.try(async (name, uid) => {
        const node = this.#nodes.store.get(name);
        if (!node) return { done: true };
        const remaining = await this.#writer.deletePods(node, uid);
        return remaining ? { done: false, retryAfterMs: 50 } : { done: true };
      });
    }
  }


  // ---- node and pod updates ------------------------------------------------------------------

  /** doNodeProcessingPassWorker: the condition taints, then the beta labels */
  async #processNode(name: string): Promise<void> {
    await this.#syncNoScheduleTaints(name);
    await this.#reconcileNodeLabels(name);
  }

  /** reconcileNodeLabels: the beta os and arch labels follow the stable ones */
  async #reconcileNodeLabels(name: string): Promise<void> {
    const labels = this.#nodes.store.get(name)?.metadata?.labels;
    if (!labels) return;
    const update: Record<string, string> = {};
    for (const [primary, secondary] of RECONCILED_LABELS) {
      const value = labels[primary];
      if (value !== undefined && labels[secondary] !== value) update[secondary] = value;
    }
    if (Object.keys(update).length === 0) return;
    try {
      await this.#ctx.client.patch(RESOURCES.nodes, undefined, name, 'strategic', { metadata: { labels: update } });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** doNoScheduleTaintingPass */
  async #syncNoScheduleTaints(name: string): Promise<void> {
    const node = this.#nodes.store.get(name);
    if (!node) return;
    const { add, remove } = noScheduleTaintDiff(node);
    if (add.length === 0 && remove.length === 0) return;
    if (!(await this.#writer.swapTaints(name, add, remove))) throw new Error(`could not update the taints of node ${name}`);
  }

  /** processPod: a pod landing on (or changing on) a node that is not ready is marked not ready */
  async #syncPod(key: string): Promise<void> {
    const pod = this.#pods.store.get(key);
    const nodeName = ((pod?.spec ?? {}) as { nodeName?: string }).nodeName;
    if (!pod || !nodeName) return;
    const health = this.#health.get(nodeName);
    if (!health || !this.#nodes.store.get(nodeName)) return;
    const ready = health.conditions.find((c) => c.type === 'Ready');
    if (!ready || ready.status === 'True') return;
    if (!(await this.#writer.markPodsNotReady([pod], nodeName))) throw new Error(`could not mark pod ${key} not ready`);
  }

}

