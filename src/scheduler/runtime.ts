/**
 * One profile's framework (kube's frameworkImpl): the plugins the profile enables, built once from
 * the registry with their args, and the code that runs each extension point over them in order.
 * The Framework is also the FrameworkHandle plugins receive.
 */
import type { Logger } from 'pino';
import type { EventRecorder } from '../client/events';
import type { Indexer } from '../client/indexer';
import type { RestClient } from '../client/rest-client';
import type { KubeObject, ResourceRef } from '../client/types';
import type { FeatureGates } from '../options/feature-gates';
import { NodeInfo, type PodInfo } from './framework/node-info';
import { podPriority } from './framework/resource';
import type { Snapshot } from './framework/snapshot';
import { Code, Status, errorStatus, isSuccess, type Result } from './framework/status';
import { CycleState, MAX_NODE_SCORE, MIN_NODE_SCORE, type FrameworkHandle, type NodeScore, type Plugin, type PluginFactory, type PodNominator, type PostFilterResult, type QueuedPodInfo } from './framework/types';

import { EXTENSION_POINTS, type ExtensionPoint, type PluginRef } from './config/types';

/** the method a plugin must have to sit at an extension point, and kube's name of that point */
const POINT_METHOD: Record<ExtensionPoint, { method: keyof Plugin; kind: string }> = {
  queueSort: { method: 'less', kind: 'QueueSortPlugin' },
  preFilter: { method: 'preFilter', kind: 'PreFilterPlugin' },
  filter: { method: 'filter', kind: 'FilterPlugin' },
  postFilter: { method: 'postFilter', kind: 'PostFilterPlugin' },
  preScore: { method: 'preScore', kind: 'PreScorePlugin' },
  score: { method: 'score', kind: 'ScorePlugin' },
  reserve: { method: 'reserve', kind: 'ReservePlugin' },
  permit: { method: 'permit', kind: 'PermitPlugin' },
  preBind: { method: 'preBind', kind: 'PreBindPlugin' },
  bind: { method: 'bind', kind: 'BindPlugin' },
  postBind: { method: 'postBind', kind: 'PostBindPlugin' },
};

/** a resolved profile: which plugins run at each point (in order) and their args */
export interface ProfileConfig {
  schedulerName: string;
  plugins: Partial<Record<ExtensionPoint, readonly PluginRef[]>>;
  pluginConfig: Readonly<Record<string, unknown>>;
}

export interface FrameworkDeps {
  client: RestClient;
  lister(ref: ResourceRef): Indexer;
  recorder: EventRecorder;
  nominator: PodNominator;
  logger: Logger;
  featureGates: FeatureGates;
  /** the snapshot the current cycle reads */
  snapshot(): Snapshot;
}

interface ScoreEntry {
  plugin: Plugin;
  weight: number;
}

export class Framework implements FrameworkHandle {
  readonly profileName: string;
  readonly client: RestClient;
  readonly recorder: EventRecorder;
  readonly nominator: PodNominator;
  readonly logger: Logger;
  readonly featureGates: FeatureGates;
  readonly #deps: FrameworkDeps;
  readonly #byPoint = new Map<ExtensionPoint, Plugin[]>();
  readonly #scores: ScoreEntry[] = [];
  readonly #instances = new Map<string, Plugin>();

  constructor(profile: ProfileConfig, registry: ReadonlyMap<string, PluginFactory>, deps: FrameworkDeps) {
    this.profileName = profile.schedulerName;
    this.client = deps.client;
    this.recorder = deps.recorder;
    this.nominator = deps.nominator;
    this.logger = deps.logger;
    this.featureGates = deps.featureGates;
    this.#deps = deps;
    for (const point of EXTENSION_POINTS) {
      const list: Plugin[] = [];
      for (const ref of profile.plugins[point] ?? []) {
        const plugin = this.#instance(ref.name, registry, profile.pluginConfig[ref.name]);
        const { method, kind } = POINT_METHOD[point];
        if (typeof plugin[method] !== 'function') throw new Error(`plugin "${ref.name}" does not extend ${kind} plugin`);
        if (list.includes(plugin)) throw new Error(`plugin "${ref.name}" already registered as "${kind}"`);
        list.push(plugin);
        if (point === 'score') {
          const weight = ref.weight ?? 1;
          if (weight === 0) throw new Error(`score plugin "${ref.name}" is not configured with weight`);
          this.#scores.push({ plugin, weight });
        }
      }
      this.#byPoint.set(point, list);
    }
    if ((this.#byPoint.get('queueSort') ?? []).length !== 1) throw new Error(`one queue sort plugin required for profile with scheduler name "${this.profileName}"`);
    if ((this.#byPoint.get('bind') ?? []).length === 0) throw new Error(`at least one bind plugin is needed for profile with scheduler name "${this.profileName}"`);
  }

  #instance(name: string, registry: ReadonlyMap<string, PluginFactory>, args: unknown): Plugin {
    let plugin = this.#instances.get(name);
    if (plugin) return plugin;
    const factory = registry.get(name);
    if (!factory) throw new Error(`plugin "${name}" does not exist`);
    try {
      plugin = factory(args, this);
    } catch (err) {
      throw new Error(`initializing plugin "${name}": ${err instanceof Error ? err.message : String(err)}`);
    }
    this.#instances.set(name, plugin);
    return plugin;
  }

  // FrameworkHandle

  snapshot(): Snapshot {
    return this.#deps.snapshot();
  }

  lister(ref: ResourceRef): Indexer {
    return this.#deps.lister(ref);
  }

  /** the plugins at a point (names, in order) */
  pluginsAt(point: ExtensionPoint): string[] {
    return (this.#byPoint.get(point) ?? []).map((p) => p.name);
  }

  hasPostFilter(): boolean {
    return (this.#byPoint.get('postFilter') ?? []).length > 0;
  }

  hasScore(): boolean {
    return this.#scores.length > 0;
  }

  queueSortLess(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const sorter = this.#byPoint.get('queueSort')?.[0];
    return sorter?.less ? sorter.less(a, b) : a.timestamp < b.timestamp;
  }

  #fail(plugin: Plugin, s: Status): Status {
    s.failedPlugin = plugin.name;
    return s;
  }

  /** PreFilter: the first non-success stops the cycle; errors are wrapped with the plugin's name */
  runPreFilter(state: CycleState, pod: KubeObject): Result {
    for (const p of this.#byPoint.get('preFilter') ?? []) {
      let s: Result;
      try {
        s = p.preFilter!(state, pod);
      } catch (err) {
        s = errorStatus(err);
      }
      if (isSuccess(s)) continue;
      if (s!.isUnschedulable()) return this.#fail(p, s!);
      return this.#fail(p, errorStatus(new Error(`running PreFilter plugin "${p.name}": ${s!.message}`)));
    }
    return undefined;
  }

  runPreFilterExtensionAddPod(state: CycleState, podToSchedule: KubeObject, podToAdd: PodInfo, nodeInfo: NodeInfo): Result {
    for (const p of this.#byPoint.get('preFilter') ?? []) {
      const ext = p.preFilterExtensions?.();
      if (!ext) continue;
      const s = ext.addPod(state, podToSchedule, podToAdd, nodeInfo);
      if (!isSuccess(s)) return this.#fail(p, errorStatus(new Error(`error while running AddPod for plugin "${p.name}" while scheduling pod "${podToSchedule.metadata?.name}": ${s!.message}`)));
    }
    return undefined;
  }

  runPreFilterExtensionRemovePod(state: CycleState, podToSchedule: KubeObject, podToRemove: PodInfo, nodeInfo: NodeInfo): Result {
    for (const p of this.#byPoint.get('preFilter') ?? []) {
      const ext = p.preFilterExtensions?.();
      if (!ext) continue;
      const s = ext.removePod(state, podToSchedule, podToRemove, nodeInfo);
      if (!isSuccess(s)) return this.#fail(p, errorStatus(new Error(`error while running RemovePod for plugin "${p.name}" while scheduling pod "${podToSchedule.metadata?.name}": ${s!.message}`)));
    }
    return undefined;
  }

  /** Filter: the first plugin that refuses the node decides (kube 1.20 stops there) */
  runFilter(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result {
    for (const p of this.#byPoint.get('filter') ?? []) {
      let s: Result;
      try {
        s = p.filter!(state, pod, nodeInfo);
      } catch (err) {
        s = errorStatus(err);
      }
      if (s === undefined || s.code === Code.Success) continue;
      if (!s.isUnschedulable()) return this.#fail(p, errorStatus(new Error(`running "${p.name}" filter plugin for pod "${pod.metadata?.name}": ${s.message}`)));
      return this.#fail(p, s);
    }
    return undefined;
  }

  /**
   * Filters as if the pods nominated to this node with at least this pod's priority were already
   * there, and again without them when they made it fit (kube's RunFilterPluginsWithNominatedPods):
   * a node only passes when it fits both ways.
   */
  runFilterPluginsWithNominatedPods(state: CycleState, pod: KubeObject, nodeInfo: NodeInfo): Result {
    const added = this.#addNominatedPods(pod, state, nodeInfo);
    if (!added) return this.runFilter(state, pod, nodeInfo);
    const s = this.runFilter(added.state, pod, added.nodeInfo);
    if (!isSuccess(s)) return s;
    return this.runFilter(state, pod, nodeInfo);
  }

  #addNominatedPods(pod: KubeObject, state: CycleState, nodeInfo: NodeInfo): { state: CycleState; nodeInfo: NodeInfo } | undefined {
    const nominated = this.nominator.nominatedPodsForNode(nodeInfo.name);
    if (nominated.length === 0) return undefined;
    const priority = podPriority(pod);
    const uid = pod.metadata?.uid;
    let out: { state: CycleState; nodeInfo: NodeInfo } | undefined;
    for (const p of nominated) {
      if (podPriority(p.pod) < priority || p.pod.metadata?.uid === uid) continue;
      out ??= { state: state.clone(), nodeInfo: nodeInfo.clone() };
      out.nodeInfo.addPodInfo(p);
      const s = this.runPreFilterExtensionAddPod(out.state, pod, p, out.nodeInfo);
      if (!isSuccess(s)) throw s!.error ?? new Error(s!.message);
    }
    return out;
  }

  /** PostFilter: the first plugin that succeeds or errors decides */
  async runPostFilter(state: CycleState, pod: KubeObject, statuses: ReadonlyMap<string, Status>): Promise<{ result?: PostFilterResult; status: Result }> {
    let last: Result = new Status(Code.Unschedulable, []);
    for (const p of this.#byPoint.get('postFilter') ?? []) {
      const r = await p.postFilter!(state, pod, statuses);
      if (isSuccess(r.status)) return r;
      if (!r.status!.isUnschedulable()) return { status: this.#fail(p, r.status!) };
      last = this.#fail(p, r.status!);
    }
    return { status: last };
  }

  runPreScore(state: CycleState, pod: KubeObject, nodes: readonly NodeInfo[]): Result {
    for (const p of this.#byPoint.get('preScore') ?? []) {
      const s = p.preScore!(state, pod, nodes);
      if (!isSuccess(s)) return this.#fail(p, errorStatus(new Error(`running PreScore plugin "${p.name}": ${s!.message}`)));
    }
    return undefined;
  }

  /** every Score plugin on every node, normalized and weighted: the total per node, in `nodes` order */
  runScore(state: CycleState, pod: KubeObject, nodes: readonly NodeInfo[]): { totals: number[] } | { status: Status } {
    const totals = new Array<number>(nodes.length).fill(0);
    for (const { plugin, weight } of this.#scores) {
      const scores: NodeScore[] = new Array(nodes.length);
      for (let i = 0; i < nodes.length; i++) {
        const r = plugin.score!(state, pod, nodes[i]);
        if (typeof r !== 'number') return { status: this.#fail(plugin, errorStatus(new Error(`running Score plugin "${plugin.name}": ${r.message}`))) };
        scores[i] = { name: nodes[i].name, score: r };
      }
      if (plugin.normalizeScore) {
        const s = plugin.normalizeScore(state, pod, scores);
        if (!isSuccess(s)) return { status: this.#fail(plugin, errorStatus(new Error(`running Normalize on Score plugin "${plugin.name}": ${s!.message}`))) };
      }
      for (let i = 0; i < scores.length; i++) {
        const v = scores[i].score;
        if (v > MAX_NODE_SCORE || v < MIN_NODE_SCORE) {
          return { status: this.#fail(plugin, errorStatus(new Error(`plugin "${plugin.name}" returns an invalid score ${v}, it should in the range of [${MIN_NODE_SCORE}, ${MAX_NODE_SCORE}] after normalizing`))) };
        }
        totals[i] += v * weight;
      }
    }
    return { totals };
  }

  async runReserve(state: CycleState, pod: KubeObject, nodeName: string): Promise<Result> {
    for (const p of this.#byPoint.get('reserve') ?? []) {
      const s = await p.reserve!(state, pod, nodeName);
      if (!isSuccess(s)) return this.#fail(p, errorStatus(new Error(`error while running Reserve in "${p.name}" reserve plugin for pod "${pod.metadata?.name}": ${s!.message}`)));
    }
    return undefined;
  }

  /** Unreserve in reverse order; failures are logged, never raised */
  async runUnreserve(state: CycleState, pod: KubeObject, nodeName: string): Promise<void> {
    const list = this.#byPoint.get('reserve') ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      try {
        await list[i].unreserve?.(state, pod, nodeName);
      } catch (err) {
        this.logger.error({ err, plugin: list[i].name }, 'Unreserve failed');
      }
    }
  }

  /** Permit: a refusal fails the pod; a Wait holds it up to the longest timeout asked for (no plugin of ours waits) */
  async runPermit(state: CycleState, pod: KubeObject, nodeName: string): Promise<Result> {
    for (const p of this.#byPoint.get('permit') ?? []) {
      const { status } = await p.permit!(state, pod, nodeName);
      if (isSuccess(status) || status!.code === Code.Wait) continue;
      if (status!.isUnschedulable()) return this.#fail(p, status!);
      return this.#fail(p, errorStatus(new Error(`error while running "${p.name}" permit plugin for pod "${pod.metadata?.name}": ${status!.message}`)));
    }
    return undefined;
  }

  async runPreBind(state: CycleState, pod: KubeObject, nodeName: string): Promise<Result> {
    for (const p of this.#byPoint.get('preBind') ?? []) {
      const s = await p.preBind!(state, pod, nodeName);
      if (!isSuccess(s)) return this.#fail(p, errorStatus(new Error(`error while running "${p.name}" prebind plugin for pod "${pod.metadata?.name}": ${s!.message}`)));
    }
    return undefined;
  }

  /** Bind: the first plugin that does not Skip binds */
  async runBind(state: CycleState, pod: KubeObject, nodeName: string): Promise<Result> {
    for (const p of this.#byPoint.get('bind') ?? []) {
      const s = await p.bind!(state, pod, nodeName);
      if (s?.code === Code.Skip) continue;
      if (!isSuccess(s)) return this.#fail(p, errorStatus(new Error(`plugin "${p.name}" failed to bind pod "${pod.metadata?.namespace}/${pod.metadata?.name}": ${s!.message}`)));
      return undefined;
    }
    return new Status(Code.Skip, []);
  }

  runPostBind(state: CycleState, pod: KubeObject, nodeName: string): void {
    for (const p of this.#byPoint.get('postBind') ?? []) {
      try {
        p.postBind!(state, pod, nodeName);
      } catch (err) {
        this.logger.error({ err, plugin: p.name }, 'PostBind failed');
      }
    }
  }
}

export { CycleState, NodeInfo, EXTENSION_POINTS, type ExtensionPoint, type PluginRef };
