/**
 * The eviction manager (kubelet 1.20's pkg/kubelet/eviction managerImpl). Every monitoring
 * interval (10 s) it reads the summary and:
 *
 *   observe signals -> thresholds met (and those met before whose minimum reclaim is not yet done)
 *   -> node conditions, held for the pressure transition period -> thresholds past their grace
 *   period -> the first by priority (memory first) -> reclaim node-level resources (dead containers
 *   and unused images, for disk signals) -> if still met, evict one pod, ranked for that signal,
 *   then wait for it to be cleaned up.
 *
 * An eviction kills the pod with grace period 0 for a hard threshold and evictionMaxPodGracePeriod
 * for a soft one, and sets phase Failed, reason Evicted with kube's message. Critical pods (static,
 * mirror, system-critical priority) are never evicted. `admit` is kubelet's eviction admit handler.
 */
import type { Logger } from 'pino';
import type { EvictionThreshold } from '../config/eviction';
import { isCriticalPod, podQosClass } from '../kuberuntime/resources';
import type { PressureCondition } from '../node/thresholds';
import type { PodStats, StatsProvider, Summary } from '../server/stats';
import type { Pod } from '../types';
import { localStorageViolation } from './local-storage';
import { evictionMessage, rankFuncFor, type StatsFunc } from './rank';
import {
  byEvictionPriority,
  conditionsLastObservedAt,
  conditionsObservedSince,
  conditionsOf,
  describe,
  firstObservedAt,
  isHard,
  mergeThresholds,
  metGracePeriod,
  observe,
  SIGNAL_RESOURCE,
  thresholdsMet,
  type Observations,
} from './signals';

/** kubelet's evictionMonitoringPeriod, podCleanupTimeout and podCleanupPollFreq */
export const MONITORING_INTERVAL_MS = 10_000;
export const POD_CLEANUP_TIMEOUT_MS = 30_000;
export const POD_CLEANUP_POLL_MS = 1_000;

/** the status an evicted pod is given */
export interface EvictedStatus {
  phase: 'Failed';
  reason: 'Evicted';
  message: string;
}

/** a pod admission verdict (kubelet's PodAdmitResult) */
export interface AdmitVerdict {
  admit: boolean;
  reason?: string;
  message?: string;
}

export interface EvictionEvents {
  /** an event on a pod (Evicted), with kubelet's annotations of the offending containers */
  pod(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string, annotations?: Record<string, string>): void;
  /** an event on the node (EvictionThresholdMet) */
  node(type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface EvictionManagerOptions {
  /** the parsed --eviction-hard/-soft thresholds (NodeAgentConfig.evictionThresholds) */
  thresholds: readonly EvictionThreshold[];
  /** --eviction-pressure-transition-period */
  pressureTransitionPeriodMs: number;
  /** --eviction-max-pod-grace-period: the grace period of soft evictions */
  maxPodGracePeriodSeconds: number;
  stats: StatsProvider;
  /** the pods admitted and not finished (kubelet's GetActivePods) */
  activePods: () => Pod[];
  /** kills the pod (grace period override in seconds) and records its status; resolves when its containers are gone */
  killPod: (pod: Pod, status: EvictedStatus, gracePeriodSeconds: number) => Promise<void>;
  /** whether an evicted pod's resources are released (kubelet's podResourcesAreReclaimed); without it the manager does not wait */
  podCleanedUp?: (pod: Pod) => boolean;
  /** removes every dead container and sandbox it may (ContainerGC.DeleteAllUnusedContainers) */
  deleteAllUnusedContainers?: () => Promise<void>;
  /** removes every image no container uses (ImageGC.DeleteUnusedImages) */
  deleteUnusedImages?: () => Promise<void>;
  /** evictions for ephemeral-storage limits and emptyDir size limits (the LocalStorageCapacityIsolation feature; default on) */
  localStorageCapacityIsolation?: boolean;
  /** whether images live on a filesystem of their own (kubelet's HasDedicatedImageFs); false when absent */
  hasDedicatedImageFs?: () => Promise<boolean>;
  events?: EvictionEvents;
  logger: Logger;
  clock?: { now(): number };
  monitoringIntervalMs?: number;
  /** polling and the wait for an evicted pod (tests shorten them) */
  podCleanupTimeoutMs?: number;
  podCleanupPollMs?: number;
}

export class EvictionManager {
  readonly #o: EvictionManagerOptions;
  readonly #now: () => number;
  #conditions = new Set<PressureCondition>();
  #conditionsLastObservedAt = new Map<PressureCondition, number>();
  #thresholdsFirstObservedAt = new Map<EvictionThreshold, number>();
  #thresholdsMet: EvictionThreshold[] = [];
  #lastObservations: Observations = {};
  #dedicatedImageFs: boolean | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(opts: EvictionManagerOptions) {
    this.#o = opts;
    this.#now = opts.clock ? () => opts.clock!.now() : Date.now;
  }

  /** the pressure conditions to report on the node (the node status agent's source) */
  get conditions(): ReadonlySet<PressureCondition> {
    return this.#conditions;
  }

  isUnderMemoryPressure(): boolean {
    return this.#conditions.has('MemoryPressure');
  }

  isUnderDiskPressure(): boolean {
    return this.#conditions.has('DiskPressure');
  }

  isUnderPidPressure(): boolean {
    return this.#conditions.has('PIDPressure');
  }

  /** the observations of the last pass */
  get observations(): Observations {
    return this.#lastObservations;
  }

  /**
   * kubelet's eviction admit handler: under pressure only critical pods are admitted, except that
   * under memory pressure pods that are not BestEffort still are (whatever the other conditions),
   * and BestEffort pods that tolerate the memory-pressure taint.
   */
  admit(pod: Pod): AdmitVerdict {
    if (this.#conditions.size === 0 || isCriticalPod(pod)) return { admit: true };
    if (this.#conditions.has('MemoryPressure')) {
      if (podQosClass(pod) !== 'BestEffort') return { admit: true };
      if (toleratesMemoryPressure(pod)) return { admit: true };
    }
    return { admit: false, reason: 'Evicted', message: `The node had condition: [${[...this.#conditions].join(' ')}]. ` };
  }

  /** runs a pass now and then every monitoring interval (after an eviction, once the pod is cleaned up) */
  start(): void {
    if (this.#timer || this.#stopped) return;
    const loop = async (): Promise<void> => {
      const evicted = await this.synchronize().catch((err: unknown) => {
        this.#o.logger.error({ err: String(err) }, 'eviction manager: failed to synchronize');
        return [] as Pod[];
      });
      if (evicted.length > 0) await this.#waitForCleanup(evicted);
    };
    const tick = (): void => {
      this.#running = loop().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#o.monitoringIntervalMs ?? MONITORING_INTERVAL_MS);
      });
    };
    this.#timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** one pass (kubelet's synchronize); the pods evicted (at most one) */
  async synchronize(): Promise<Pod[]> {
    const { thresholds: configured, stats, logger } = this.#o;
    const localStorage = this.#o.localStorageCapacityIsolation ?? true;
    if (configured.length === 0 && !localStorage) return [];
    this.#dedicatedImageFs ??= (await this.#o.hasDedicatedImageFs?.().catch(() => false)) ?? false;
    const activePods = this.#o.activePods();
    let summary: Summary;
    try {
      summary = await stats.summary(false);
    } catch (err) {
      logger.error({ err: String(err) }, 'eviction manager: failed to get summary stats');
      return [];
    }
    const observations = observe(summary);
    const statsFunc = podStatsFunc(summary);
    let met = thresholdsMet(configured, observations, false);
    if (this.#thresholdsMet.length > 0) met = mergeThresholds(met, thresholdsMet(this.#thresholdsMet, observations, true));
    const now = this.#now();
    const firstObserved = firstObservedAt(met, this.#thresholdsFirstObservedAt, now);
    const lastObserved = conditionsLastObservedAt(conditionsOf(met), this.#conditionsLastObservedAt, now);
    const conditions = conditionsObservedSince(lastObserved, this.#o.pressureTransitionPeriodMs, now);
    for (const c of conditions) if (!this.#conditions.has(c)) logger.info({ condition: c }, 'eviction manager: node condition observed');
    const actionable = metGracePeriod(firstObserved, now);
    this.#conditions = conditions;
    // a condition not seen for the whole period is forgotten
    this.#conditionsLastObservedAt = new Map([...lastObserved].filter(([c]) => conditions.has(c)));
    this.#thresholdsFirstObservedAt = firstObserved;
    this.#thresholdsMet = actionable;
    this.#lastObservations = observations;

    if (localStorage) {
      const evicted = await this.#localStorageEviction(activePods, statsFunc);
      if (evicted.length > 0) return evicted;
    }
    if (actionable.length === 0) return [];
    const toReclaim = byEvictionPriority(actionable)[0];
    const resource = SIGNAL_RESOURCE[toReclaim.signal];
    this.#o.events?.node('Warning', 'EvictionThresholdMet', `Attempting to reclaim ${resource}`);
    if (await this.#reclaimNodeLevelResources(toReclaim, resource)) return [];
    if (activePods.length === 0) {
      logger.error({ threshold: describe(toReclaim) }, 'eviction manager: eviction thresholds have been met, but no pods are active to evict');
      return [];
    }
    const ranked = rankFuncFor(toReclaim.signal, this.#dedicatedImageFs)(activePods, statsFunc);
    logger.info({ threshold: describe(toReclaim), ranking: ranked.map((p) => `${p.metadata?.namespace}/${p.metadata?.name}`) }, 'eviction manager: pods ranked for eviction');
    const grace = isHard(toReclaim) ? 0 : this.#o.maxPodGracePeriodSeconds;
    for (const pod of ranked) {
      const { message, annotations } = evictionMessage(resource, pod, statsFunc);
      if (await this.#evictPod(pod, grace, message, annotations)) return [pod];
    }
    logger.info('eviction manager: unable to evict any pods from the node');
    return [];
  }

  /** every pod past its local storage limits, evicted at once (kubelet's localStorageEviction) */
  async #localStorageEviction(pods: Pod[], statsFunc: StatsFunc): Promise<Pod[]> {
    const evicted: Pod[] = [];
    for (const pod of pods) {
      const stats = statsFunc(pod);
      const message = stats && localStorageViolation(pod, stats, this.#dedicatedImageFs ?? false);
      if (message && (await this.#evictPod(pod, 0, message, {}))) evicted.push(pod);
    }
    return evicted;
  }

  /** dead containers and unused images for disk signals; true when that alone relieved every threshold */
  async #reclaimNodeLevelResources(threshold: EvictionThreshold, resource: string): Promise<boolean> {
    const funcs = this.#nodeReclaimFuncs(threshold);
    if (funcs.length === 0) return false;
    for (const f of funcs) {
      await f().catch((err: unknown) => this.#o.logger.warn({ err: String(err) }, 'eviction manager: unexpected error when attempting to reduce resource pressure'));
    }
    let summary: Summary;
    try {
      summary = await this.#o.stats.summary(false);
    } catch {
      return false;
    }
    if (thresholdsMet(this.#o.thresholds, observe(summary), false).length > 0) return false;
    this.#o.logger.info({ resource }, 'eviction manager: able to reduce resource pressure without evicting pods');
    return true;
  }

  /** kubelet's buildSignalToNodeReclaimFuncs: with a dedicated image filesystem only imagefs signals reclaim */
  #nodeReclaimFuncs(threshold: EvictionThreshold): (() => Promise<void>)[] {
    const { deleteAllUnusedContainers, deleteUnusedImages } = this.#o;
    const both = [deleteAllUnusedContainers, deleteUnusedImages].filter((f): f is () => Promise<void> => f !== undefined);
    switch (threshold.signal) {
      case 'nodefs.available':
      case 'nodefs.inodesFree':
        return this.#dedicatedImageFs ? [] : both;
      case 'imagefs.available':
      case 'imagefs.inodesFree':
        return both;
      default:
        return [];
    }
  }

  async #evictPod(pod: Pod, gracePeriodSeconds: number, message: string, annotations: Record<string, string>): Promise<boolean> {
    const { logger } = this.#o;
    const name = `${pod.metadata?.namespace}/${pod.metadata?.name}`;
    if (isCriticalPod(pod)) {
      logger.error({ pod: name }, 'eviction manager: cannot evict a critical pod');
      return false;
    }
    this.#o.events?.pod(pod, 'Warning', 'Evicted', message, annotations);
    try {
      await this.#o.killPod(pod, { phase: 'Failed', reason: 'Evicted', message }, gracePeriodSeconds);
      logger.info({ pod: name }, 'eviction manager: pod is evicted successfully');
    } catch (err) {
      logger.error({ pod: name, err: String(err) }, 'eviction manager: pod failed to evict');
    }
    return true;
  }

  async #waitForCleanup(pods: Pod[]): Promise<void> {
    const cleaned = this.#o.podCleanedUp;
    if (!cleaned) return;
    const deadline = this.#now() + (this.#o.podCleanupTimeoutMs ?? POD_CLEANUP_TIMEOUT_MS);
    while (!this.#stopped) {
      if (pods.every((p) => cleaned(p))) return;
      if (this.#now() >= deadline) {
        this.#o.logger.warn('eviction manager: timed out waiting for pods to be cleaned up');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, this.#o.podCleanupPollMs ?? POD_CLEANUP_POLL_MS));
    }
  }
}

/** the pod's stats by its uid (kubelet's cachedStatsFunc) */
export function podStatsFunc(summary: Summary): StatsFunc {
  const byUid = new Map<string, PodStats>(summary.pods.map((p) => [p.podRef.uid, p]));
  return (pod) => byUid.get(pod.metadata?.uid ?? '');
}

/** whether the pod tolerates node.kubernetes.io/memory-pressure:NoSchedule */
function toleratesMemoryPressure(pod: Pod): boolean {
  const tolerations = ((pod.spec as { tolerations?: { key?: string; operator?: string; value?: string; effect?: string }[] } | undefined)?.tolerations ?? []);
  return tolerations.some((t) => {
    if (t.effect && t.effect !== 'NoSchedule') return false;
    if (t.key && t.key !== 'node.kubernetes.io/memory-pressure') return false;
    if (!t.key && t.operator !== 'Exists') return false;
    return t.operator === 'Exists' || (t.value ?? '') === '';
  });
}
