/**
 * The scheduling framework's contracts (kube's pkg/scheduler/framework/interface.go, in our
 * words): a plugin implements any of the extension points below; a profile lists which plugins
 * run at each point, with score weights. Filters and scores are synchronous (a cycle runs them
 * for every node); points that talk to the API server are asynchronous.
 */
import type { Logger } from 'pino';
import type { EventRecorder } from '../../client/events';
import type { Indexer } from '../../client/indexer';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject, ResourceRef } from '../../client/types';
import type { FeatureGates } from '../../options/feature-gates';
import type { NodeInfo, PodInfo } from './node-info';
import type { Result, Status } from './status';

/** the largest score a Score plugin may give (after NormalizeScore) */
export const MAX_NODE_SCORE = 100;
export const MIN_NODE_SCORE = 0;
/** the largest sum of weighted scores a profile may reach */
export const MAX_TOTAL_SCORE = Number.MAX_SAFE_INTEGER;

/** a value a plugin keeps for the rest of one scheduling cycle; cloned when preemption tries nodes */
export interface StateData {
  clone(): StateData;
}

/** one scheduling cycle's scratch space, keyed by plugin-chosen names (kube's CycleState) */
export class CycleState {
  readonly #data = new Map<string, StateData>();
  /** whether Score plugins should record their scores (kube's recordPluginMetrics) */
  recordPluginMetrics = false;

  read<T extends StateData>(key: string): T | undefined {
    return this.#data.get(key) as T | undefined;
  }

  write(key: string, value: StateData): void {
    this.#data.set(key, value);
  }

  delete(key: string): void {
    this.#data.delete(key);
  }

  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.#data) c.#data.set(k, v.clone());
    c.recordPluginMetrics = this.recordPluginMetrics;
    return c;
  }
}

/** a pod waiting in the scheduling queue (kube's QueuedPodInfo) */
export interface QueuedPodInfo {
  pod: KubeObject;
  podInfo: PodInfo;
  /** when it was last added to the queue (ms) */
  timestamp: number;
  /** scheduling attempts so far */
  attempts: number;
  /** when it first entered the queue (ms), for the e2e latency metric */
  initialAttemptTimestamp: number;
}

export interface NodeScore {
  name: string;
  score: number;
}

/** what the snapshot of a cycle offers (kube's SharedLister / NodeInfoLister) */
export interface NodeInfoLister {
  /** every node, in the snapshot's order */
  list(): readonly NodeInfo[];
  /** nodes with at least one pod that has (anti-)affinity */
  havePodsWithAffinityList(): readonly NodeInfo[];
  /** nodes with at least one pod with required anti-affinity */
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[];
  get(nodeName: string): NodeInfo | undefined;
}

/** pods nominated to run on nodes once preemption victims are gone (kube's PodNominator) */
export interface PodNominator {
  nominatedPodsForNode(nodeName: string): readonly PodInfo[];
  addNominatedPod(pod: KubeObject, nodeName: string): void;
  deleteNominatedPodIfExists(pod: KubeObject): void;
}

/** what every plugin may use (kube's framework.Handle) */
export interface FrameworkHandle {
  /** the snapshot of the current cycle */
  snapshot(): NodeInfoLister;
  readonly client: RestClient;
  /**
   * The cached objects of a resource (the shared informer's store; namespaced ones are indexed by
   * `namespace`). The scheduler starts informers for every resource of RESOURCES that plugins
   * read (services, replica sets, stateful sets, replication controllers, PVs, PVCs, storage
   * classes, CSI nodes, PDBs) before its first cycle.
   */
  lister(ref: ResourceRef): Indexer;
  readonly recorder: EventRecorder;
  readonly nominator: PodNominator;
  readonly logger: Logger;
  readonly featureGates: FeatureGates;
  /** the profile's scheduler name */
  readonly profileName: string;
  /**
   * Run the profile's filters on a node as the scheduler would, counting pods nominated there
   * with at least the pod's priority (kube's RunFilterPluginsWithNominatedPods); preemption uses it.
   */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result;
  /** run every PreFilter plugin's AddPod (a pod added to nodeInfo in a what-if) */
  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: KubeObject, podToAdd: PodInfo, nodeInfo: NodeInfo): Result;
  /** run every PreFilter plugin's RemovePod (a pod removed from nodeInfo in a what-if) */
  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: KubeObject, podToRemove: PodInfo, nodeInfo: NodeInfo): Result;
}

export interface PreFilterExtensions {
  addPod(state: CycleState, podToSchedule: KubeObject, podToAdd: PodInfo, nodeInfo: NodeInfo): Result;
  removePod(state: CycleState, podToSchedule: KubeObject, podToRemove: PodInfo, nodeInfo: NodeInfo): Result;
}

export interface PostFilterResult {
  nominatedNodeName: string;
}

/**
 * A plugin: a name (kube's, e.g. `NodeResourcesFit`) and any of the extension points. Each method
 * answers `undefined` for success, or a Status.
 */
export interface Plugin {
  readonly name: string;
  /** QueueSort: does a go before b? */
  less?(a: QueuedPodInfo, b: QueuedPodInfo): boolean;
  preFilter?(state: CycleState, pod: KubeObject): Result;
  preFilterExtensions?(): PreFilterExtensions | undefined;
  filter?(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result;
  /** after every node failed the filters (preemption) */
  postFilter?(state: CycleState, pod: KubeObject, filteredNodeStatus: ReadonlyMap<string, Status>): Promise<{ result?: PostFilterResult; status: Result }>;
  preScore?(state: CycleState, pod: KubeObject, nodes: readonly NodeInfo[]): Result;
  /** a score in [0, 100] unless normalizeScore brings it there */
  score?(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): number | Status;
  normalizeScore?(state: CycleState, pod: KubeObject, scores: NodeScore[]): Result;
  reserve?(state: CycleState, pod: KubeObject, nodeName: string): Promise<Result>;
  unreserve?(state: CycleState, pod: KubeObject, nodeName: string): Promise<void>;
  /** Permit: undefined to allow; a Wait status with `timeoutMs` to hold */
  permit?(state: CycleState, pod: KubeObject, nodeName: string): Promise<{ status: Result; timeoutMs?: number }>;
  preBind?(state: CycleState, pod: KubeObject, nodeName: string): Promise<Result>;
  /** Bind: the Skip status passes the pod to the next Bind plugin */
  bind?(state: CycleState, pod: KubeObject, nodeName: string): Promise<Result>;
  postBind?(state: CycleState, pod: KubeObject, nodeName: string): void;
}

/** builds a plugin from its args (the profile's pluginConfig entry, already defaulted) */
export type PluginFactory = (args: unknown, handle: FrameworkHandle) => Plugin;
