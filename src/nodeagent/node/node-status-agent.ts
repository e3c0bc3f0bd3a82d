/**
 * The node's side of the node agent: registration, the status loop and the lease (kubelet 1.20's
 * registerWithAPIServer, syncNodeStatus / updateNodeStatus / tryUpdateNodeStatus and nodelease).
 * Every nodeStatusUpdateFrequency the status is computed from the host and the runtime and, when it
 * changed or nodeStatusReportFrequency has passed, patched onto nodes/<name>/status (5 tries, then
 * the next tick). The runtime's status is polled on its own (kubelet's updateRuntimeUp); the
 * measurements of the last tick stay readable for the eviction manager.
 */
import type { Logger } from 'pino';
import { isAlreadyExists } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import { sleep } from '../../client/sleep';
import type { NodeAgentConfig } from '../config/types';
import type { ContainerRuntime, ImageService } from '../types';
import type { HostMeasurements, NodeHost } from './host';
import { NodeLease } from './lease';
import { quantityValue } from './quantity';
import { initialNode, reconcileExistingNode, type Taint } from './registration';
import {
  kubeTime,
  machineCapacity,
  setAddresses,
  setCapacity,
  setDaemonEndpoints,
  setImages,
  setNodeInfo,
  setPressureCondition,
  setReadyCondition,
  type NodeEventFn,
  type NodeObject,
} from './setters';
import { nodeStatusHasChanged, nodeStatusPatch } from './status-patch';
import { hardEvictionReservation, observe, parseThresholds, PressureTracker, thresholdsMet, type Observations, type PressureCondition, type Threshold } from './thresholds';

/** kubelet's nodeStatusUpdateRetry */
export const NODE_STATUS_UPDATE_RETRY = 5;
/** kubelet's registration back-off ceiling */
export const MAX_REGISTRATION_BACKOFF_MS = 7_000;
/** the runtime counts as down when its status has not answered ready for this long (maxWaitForContainerRuntime) */
export const RUNTIME_SYNC_THRESHOLD_MS = 30_000;
/** how often the runtime's status is asked (kubelet's updateRuntimeUp period) */
export const RUNTIME_SYNC_PERIOD_MS = 5_000;

/** the node agent options node status uses (KubeletConfiguration names; durations in ms) */
export interface NodeStatusConfig {
  /** --node-ip; empty or 0.0.0.0 / :: : found from the host */
  nodeIP?: string;
  nodeLabels?: Readonly<Record<string, string>>;
  registerNode?: boolean;
  registerWithTaints?: readonly Taint[];
  registerSchedulable?: boolean;
  enableControllerAttachDetach?: boolean;
  nodeStatusUpdateFrequencyMs?: number;
  nodeStatusReportFrequencyMs?: number;
  nodeLeaseDurationSeconds?: number;
  nodeStatusMaxImages?: number;
  maxPods?: number;
  podsPerCore?: number;
  /** resource name -> quantity */
  kubeReserved?: Readonly<Record<string, string>>;
  systemReserved?: Readonly<Record<string, string>>;
  /** signal -> quantity or percentage ("100Mi", "10%") */
  evictionHard?: Readonly<Record<string, string>>;
  evictionPressureTransitionPeriodMs?: number;
  port?: number;
  /** --pod-cidr: kept for the runtime's network config; kubelet does not write it onto the Node */
  podCIDR?: string;
}

/** node status's part of the agent's configuration (one real node, or each of a simulated fleet) */
export function nodeStatusConfig(config: NodeAgentConfig): Omit<NodeStatusConfig, 'nodeIP'> {
  return {
    nodeLabels: config.nodeLabels,
    registerNode: config.registerNode,
    registerWithTaints: config.registerWithTaints,
    registerSchedulable: config.registerSchedulable,
    enableControllerAttachDetach: config.enableControllerAttachDetach,
    nodeStatusUpdateFrequencyMs: config.nodeStatusUpdateFrequencyMs,
    nodeStatusReportFrequencyMs: config.nodeStatusReportFrequencyMs,
    nodeLeaseDurationSeconds: config.nodeLeaseDurationSeconds,
    nodeStatusMaxImages: config.nodeStatusMaxImages,
    maxPods: config.maxPods,
    podsPerCore: config.podsPerCore,
    kubeReserved: config.kubeReserved,
    systemReserved: config.systemReserved,
    evictionHard: config.evictionHard,
    evictionPressureTransitionPeriodMs: config.evictionPressureTransitionPeriodMs,
    port: config.port,
    podCIDR: config.podCIDR,
  };
}

export const NODE_STATUS_DEFAULTS = Object.freeze({
  registerNode: true,
  registerSchedulable: true,
  enableControllerAttachDetach: true,
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeStatusReportFrequencyMs: 60_000,
  nodeLeaseDurationSeconds: 40,
  nodeStatusMaxImages: 50,
  maxPods: 110,
  podsPerCore: 0,
  evictionHard: Object.freeze({ 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%', 'imagefs.available': '15%' }),
  evictionPressureTransitionPeriodMs: 5 * 60_000,
  port: 10250,
});

export interface NodeStatusAgentOptions {
  client: RestClient;
  nodeName: string;
  /** the hostname label and Hostname address (default: nodeName) */
  hostname?: string;
  config: NodeStatusConfig;
  host: NodeHost;
  runtime: Pick<ContainerRuntime, 'version' | 'status'>;
  images: Pick<ImageService, 'listImages'>;
  /** kubeletVersion and kubeProxyVersion (the API server's gitVersion) */
  agentVersion: string;
  logger: Logger;
  clock?: { now(): number };
  /** node events (NodeReady, NodeHasSufficientMemory, Rebooted ...) */
  recordEvent?: NodeEventFn;
  /** how often the runtime's status is asked (default 5 s) */
  runtimeSyncPeriodMs?: number;
  /** the first registration back-off delay (default 100 ms, doubling to 7 s) */
  registrationBackoffMs?: number;
  /**
   * the pressure conditions to report (the eviction manager's: kubelet's IsUnderMemoryPressure and
   * the like). Without it they come from the host's measurements against the hard thresholds.
   */
  pressureConditions?: () => ReadonlySet<PressureCondition>;
}

type Resolved = Required<Omit<NodeStatusConfig, 'nodeIP' | 'podCIDR' | 'kubeReserved' | 'systemReserved' | 'nodeLabels' | 'registerWithTaints'>> & NodeStatusConfig;

export class NodeStatusAgent {
  readonly #opts: NodeStatusAgentOptions;
  readonly #config: Resolved;
  readonly #now: () => number;
  readonly #thresholds: Threshold[];
  readonly #pressure: PressureTracker;
  readonly #lease: NodeLease;
  readonly #abort = new AbortController();
  readonly #record: NodeEventFn;
  #registered = false;
  #lastReport = 0;
  #measurements: HostMeasurements | undefined;
  #underPressure = new Set<PressureCondition>();
  #runtime = { lastSync: 0, runtimeError: '', networkError: '', ready: false };
  #syncing: Promise<void> = Promise.resolve();
  #wake: (() => void) | undefined;
  #triggered = false;
  #loops: Promise<void>[] = [];

  constructor(opts: NodeStatusAgentOptions) {
    this.#opts = opts;
    this.#config = { ...NODE_STATUS_DEFAULTS, ...stripUndefined(opts.config) } as Resolved;
    this.#now = opts.clock ? () => opts.clock!.now() : Date.now;
    this.#thresholds = parseThresholds(this.#config.evictionHard);
    this.#pressure = new PressureTracker(this.#config.evictionPressureTransitionPeriodMs);
    this.#record = opts.recordEvent ?? (() => undefined);
    this.#lease = new NodeLease({
      client: opts.client,
      nodeName: opts.nodeName,
      leaseDurationSeconds: this.#config.nodeLeaseDurationSeconds,
      logger: opts.logger.child({ component: 'nodelease' }),
      now: this.#now,
    });
  }

  get nodeName(): string {
    return this.#opts.nodeName;
  }

  /** whether the Node has been registered (or found) */
  get registered(): boolean {
    return this.#registered;
  }

  /** the last host measurements, for the eviction manager */
  get measurements(): HostMeasurements | undefined {
    return this.#measurements;
  }

  /** the eviction signals of the last measurements */
  get observations(): Observations | undefined {
    return this.#measurements && observe(this.#measurements);
  }

  /** the pressure conditions reported now (after the transition period) */
  get pressureConditions(): ReadonlySet<PressureCondition> {
    return this.#underPressure;
  }

  /** starts the runtime poll, the status loop and the lease */
  start(): void {
    if (this.#loops.length) return;
    const signal = this.#abort.signal;
    this.#loops.push(
      (async () => {
        while (!signal.aborted) {
          await this.updateRuntimeState();
          await sleep(this.#opts.runtimeSyncPeriodMs ?? RUNTIME_SYNC_PERIOD_MS, signal);
        }
      })(),
      (async () => {
        while (!signal.aborted) {
          this.#triggered = false;
          await this.syncNodeStatus();
          if (this.#triggered) continue;
          await new Promise<void>((resolve) => {
            this.#wake = resolve;
            void sleep(this.#config.nodeStatusUpdateFrequencyMs * (1 + Math.random() * 0.04), signal).then(resolve);
          });
          this.#wake = undefined;
        }
      })(),
    );
    this.#lease.start();
  }

  /** ends the loops (an update in flight finishes first) */
  async stop(): Promise<void> {
    this.#abort.abort();
    this.#wake?.();
    await Promise.all([...this.#loops, this.#lease.stop(), this.#syncing]);
  }

  /** run a status update now rather than at the next tick (e.g. the runtime became ready) */
  triggerUpdate(): void {
    this.#triggered = true;
    this.#wake?.();
  }

  /** asks the runtime for its status (kubelet's updateRuntimeUp); a change of readiness triggers an update */
  async updateRuntimeState(): Promise<void> {
    const state = this.#runtime;
    const wasReady = state.ready;
    try {
      const s = await this.#opts.runtime.status();
      state.networkError = s.networkReady ? '' : `runtime network not ready: NetworkReady=false reason: message:${s.message}`;
      if (!s.runtimeReady) {
        state.runtimeError = `Container runtime not ready: RuntimeReady=false reason: message:${s.message}`;
        state.ready = false;
      } else {
        state.runtimeError = '';
        state.lastSync = this.#now();
        state.ready = s.networkReady;
      }
    } catch (err) {
      this.#opts.logger.error({ err: String(err) }, 'Container runtime sanity check failed');
      state.ready = false;
    }
    if (state.ready !== wasReady) this.triggerUpdate();
  }

  /** the runtime's errors for Ready (runtimeState.runtimeErrors, then networkErrors) */
  #readyErrors(): string[] {
    const s = this.#runtime;
    const errors: string[] = [];
    if (s.lastSync === 0) errors.push('container runtime status check may not have completed yet');
    else if (this.#now() - s.lastSync >= RUNTIME_SYNC_THRESHOLD_MS) errors.push('container runtime is down');
    if (s.runtimeError) errors.push(s.runtimeError);
    if (s.networkError) errors.push(s.networkError);
    return errors;
  }

  /** one status sync: register if needed, then update the status (serialized) */
  syncNodeStatus(): Promise<void> {
    this.#syncing = this.#syncing.then(async () => {
      if (this.#abort.signal.aborted) return;
      if (this.#config.registerNode && !this.#registered) await this.#registerWithApiServer();
      if (!this.#registered && this.#config.registerNode) return;
      await this.#updateNodeStatus();
    });
    return this.#syncing;
  }

  /** kubelet's registerWithAPIServer: tries until it works, 100 ms doubling to 7 s between tries */
  async #registerWithApiServer(): Promise<void> {
    let step = this.#opts.registrationBackoffMs ?? 100;
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      await sleep(step, signal);
      step = Math.min(step * 2, MAX_REGISTRATION_BACKOFF_MS);
      if (signal.aborted) return;
      try {
        const node = await this.buildInitialNode();
        if (await this.#tryRegister(node)) {
          this.#opts.logger.info({ node: this.#opts.nodeName }, 'Successfully registered node');
          this.#registered = true;
          return;
        }
      } catch (err) {
        this.#opts.logger.error({ err: String(err) }, 'Unable to construct the node object');
      }
    }
  }

  async #tryRegister(node: NodeObject): Promise<boolean> {
    const { client, logger, nodeName } = this.#opts;
    try {
      await client.create(RESOURCES.nodes, undefined, node as never);
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) {
        logger.error({ err: String(err), node: nodeName }, 'Unable to register node with API server');
        return false;
      }
    }
    let existing: NodeObject;
    try {
      existing = (await client.get(RESOURCES.nodes, undefined, nodeName)) as unknown as NodeObject;
    } catch (err) {
      logger.error({ err: String(err), node: nodeName }, 'Unable to register node with API server: error getting existing node');
      return false;
    }
    const original = structuredClone(existing);
    if (reconcileExistingNode(node, existing)) {
      try {
        const stored = await this.#patchStatus(original, existing);
        // kube's node status strategy keeps label changes; a server that drops them on the status
        // subresource gets the labels on the Node itself
        const labels = existing.metadata.labels ?? {};
        const storedLabels = stored.metadata?.labels ?? {};
        const labelPatch: Record<string, string | null> = {};
        for (const [k, v] of Object.entries(labels)) if (storedLabels[k] !== v) labelPatch[k] = v;
        for (const k of Object.keys(storedLabels)) if (!(k in labels)) labelPatch[k] = null;
        if (Object.keys(labelPatch).length) {
          await client.patch(RESOURCES.nodes, undefined, nodeName, 'strategic', { metadata: { labels: labelPatch } });
        }
      } catch (err) {
        logger.error({ err: String(err), node: nodeName }, 'Unable to reconcile node with API server: error updating node');
        return false;
      }
    }
    return true;
  }

  /** the Node this agent would create: labels, taints, annotation, and its status */
  async buildInitialNode(): Promise<NodeObject> {
    const machine = await this.#opts.host.machineInfo();
    const node = initialNode({
      nodeName: this.#opts.nodeName,
      hostname: this.#hostname,
      operatingSystem: machine.operatingSystem,
      architecture: machine.architecture,
      nodeLabels: this.#config.nodeLabels,
      registerWithTaints: this.#config.registerWithTaints,
      registerSchedulable: this.#config.registerSchedulable,
      controllerAttachDetach: this.#config.enableControllerAttachDetach,
      warn: (message) => this.#opts.logger.warn(message),
    });
    await this.setNodeStatus(node);
    return node;
  }

  get #hostname(): string {
    return this.#opts.hostname ?? this.#opts.nodeName;
  }

  /**
   * Applies every setter to `node` (kubelet's setNodeStatus). A setter whose input fails is logged
   * and skipped; the others still run.
   */
  async setNodeStatus(node: NodeObject): Promise<void> {
    const { host, runtime, images, logger } = this.#opts;
    const now = kubeTime(this.#now());
    const fail = (what: string) => (err: unknown) => {
      logger.error({ err: String(err), setter: what }, 'Failed to set some node status fields');
      return undefined;
    };
    const [machine, rootFs, measurements, runtimeVersion, imageList] = await Promise.all([
      host.machineInfo().catch(fail('MachineInfo')),
      host.rootFs().catch(fail('EphemeralStorage')),
      host.measure().catch(fail('Measurements')),
      runtime.version().catch(fail('VersionInfo')),
      images.listImages().catch(fail('Images')),
    ]);
    const ip = await this.#internalIP().catch(fail('NodeAddress'));
    if (ip) setAddresses(node, ip, this.#hostname);
    if (machine) {
      const capacity = machineCapacity(machine, rootFs, this.#config.maxPods, this.#config.podsPerCore);
      setCapacity(node, capacity, this.#reservation({ ...capacityValues(node), ...capacity }));
      const previousBoot = setNodeInfo(node, { machine, runtimeVersion: runtimeVersion ?? node.status?.nodeInfo?.containerRuntimeVersion ?? '', agentVersion: this.#opts.agentVersion });
      if (previousBoot) this.#record('Warning', 'Rebooted', `Node ${this.#opts.nodeName} has been rebooted, boot id: ${machine.bootId}`);
    }
    setDaemonEndpoints(node, this.#config.port);
    if (imageList) setImages(node, imageList, this.#config.nodeStatusMaxImages);
    if (measurements) this.#measurements = measurements;
    if (this.#opts.pressureConditions) this.#underPressure = new Set(this.#opts.pressureConditions());
    else if (measurements) this.#underPressure = this.#pressure.update(thresholdsMet(this.#thresholds, observe(measurements)), measurements.time);
    setPressureCondition(node, 'MemoryPressure', this.#underPressure.has('MemoryPressure'), now, this.#record);
    setPressureCondition(node, 'DiskPressure', this.#underPressure.has('DiskPressure'), now, this.#record);
    setPressureCondition(node, 'PIDPressure', this.#underPressure.has('PIDPressure'), now, this.#record);
    setReadyCondition(node, this.#readyErrors(), now, this.#record);
  }

  /** kube-reserved + system-reserved + the hard thresholds' share (GetNodeAllocatableReservation) */
  #reservation(capacity: Readonly<Record<string, number>>): Record<string, number> {
    const out: Record<string, number> = {};
    for (const list of [this.#config.kubeReserved, this.#config.systemReserved]) {
      for (const [name, text] of Object.entries(list ?? {})) out[name] = (out[name] ?? 0) + quantityValue(text);
    }
    for (const [name, value] of Object.entries(hardEvictionReservation(this.#thresholds, capacity))) out[name] = (out[name] ?? 0) + value;
    return out;
  }

  async #internalIP(): Promise<string> {
    const ip = this.#config.nodeIP;
    if (ip && ip !== '0.0.0.0' && ip !== '::') return ip;
    return this.#opts.host.nodeAddress(this.#hostname);
  }

  /** kubelet's updateNodeStatus: up to 5 tries */
  async #updateNodeStatus(): Promise<void> {
    for (let i = 0; i < NODE_STATUS_UPDATE_RETRY; i++) {
      if (this.#abort.signal.aborted) return;
      try {
        await this.#tryUpdateNodeStatus();
        return;
      } catch (err) {
        this.#opts.logger.error({ err: String(err) }, 'Error updating node status, will retry');
      }
    }
    this.#opts.logger.error('Unable to update node status: update node status exceeds retry count');
  }

  async #tryUpdateNodeStatus(): Promise<void> {
    const { client, nodeName } = this.#opts;
    let node: NodeObject;
    try {
      node = (await client.get(RESOURCES.nodes, undefined, nodeName)) as unknown as NodeObject;
    } catch (err) {
      throw new Error(`error getting node "${nodeName}": ${String(err)}`);
    }
    const original = structuredClone(node);
    await this.setNodeStatus(node);
    const now = this.#now();
    if (now < this.#lastReport + this.#config.nodeStatusReportFrequencyMs && !nodeStatusHasChanged(original.status, node.status)) return;
    await this.#patchStatus(original, node);
    this.#lastReport = now;
  }

  async #patchStatus(original: NodeObject, updated: NodeObject): Promise<KubeObject> {
    const patch = nodeStatusPatch(original, updated);
    return this.#opts.client.patch(RESOURCES.nodes, undefined, this.#opts.nodeName, 'strategic', patch ?? {}, { subresource: 'status' });
  }
}

function capacityValues(node: NodeObject): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, text] of Object.entries(node.status?.capacity ?? {})) out[name] = quantityValue(text);
  return out;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
