/**
 * kube's pod garbage collector (pkg/controller/podgc, 1.20). Every gc period it:
 * - deletes the oldest terminated pods (Succeeded or Failed) beyond --terminated-pod-gc-threshold
 *   (a threshold of 0 or less turns this part off);
 * - force-deletes pods bound to nodes that no longer exist: a node missing from the cache is
 *   quarantined for a while, then confirmed gone with a GET, so a node the cache has not seen yet
 *   does not lose its pods;
 * - force-deletes terminating pods that were never scheduled.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { sleep } from '../../client/sleep';
import type { KubeObject } from '../../client/types';
import type { ControllerContext } from '../types';

/** kube's gcCheckPeriod */
export const GC_PERIOD_MS = 20_000;
/** kube's quarantineTime */
export const QUARANTINE_MS = 40_000;

export interface PodGcOptions {
  ctx: ControllerContext;
  gcPeriodMs?: number;
  quarantineMs?: number;
}

const phaseOf = (pod: KubeObject) => ((pod.status ?? {}) as { phase?: string }).phase;
const nodeNameOf = (pod: KubeObject) => ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';

/** isPodTerminated */
export const isPodTerminated = (pod: KubeObject): boolean => {
  const phase = phaseOf(pod);
  return phase !== 'Pending' && phase !== 'Running' && phase !== 'Unknown';
};

/** byCreationTimestamp: oldest first, ties by name */
export function oldestFirst(a: KubeObject, b: KubeObject): number {
  const at = Date.parse(a.metadata?.creationTimestamp ?? '') || 0;
  const bt = Date.parse(b.metadata?.creationTimestamp ?? '') || 0;
  if (at !== bt) return at - bt;
  return (a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : (a.metadata?.name ?? '') > (b.metadata?.name ?? '') ? 1 : 0;
}

/** the terminated pods to delete so that at most `threshold` remain */
export function terminatedPodsToDelete(pods: readonly KubeObject[], threshold: number): KubeObject[] {
  const terminated = pods.filter(isPodTerminated);
  const count = terminated.length - threshold;
  if (count <= 0) return [];
  return terminated.sort(oldestFirst).slice(0, count);
}

export class PodGcController {
  readonly #ctx: ControllerContext;
  readonly #log: Logger;
  readonly #pods: SharedInformer;
  readonly #nodes: SharedInformer;
  readonly #gcPeriodMs: number;
  readonly #quarantineMs: number;
  /** node names missing from the cache, and when they may be checked */
  readonly #quarantine = new Map<string, number>();

  constructor(o: PodGcOptions) {
    this.#ctx = o.ctx;
    this.#log = o.ctx.logger;
    this.#gcPeriodMs = o.gcPeriodMs ?? GC_PERIOD_MS;
    this.#quarantineMs = o.quarantineMs ?? QUARANTINE_MS;
    this.#pods = o.ctx.informers.informerFor(RESOURCES.pods);
    this.#nodes = o.ctx.informers.informerFor(RESOURCES.nodes);
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    this.#log.info('Starting GC controller');
    // wait.Until: at once, then every period
    while (!signal.aborted) {
      try {
        await this.gc();
      } catch (err) {
        this.#log.error({ err }, 'pod garbage collection failed');
      }
      await sleep(this.#gcPeriodMs, signal);
    }
  }

  async gc(): Promise<void> {
    const pods = this.#pods.store.list();
    const threshold = this.#ctx.settings.terminatedPodGcThreshold;
    if (threshold > 0) await this.#gcTerminated(pods, threshold);
    await this.#gcOrphaned(pods);
    await this.#gcUnscheduledTerminating(pods);
  }

  async #gcTerminated(pods: KubeObject[], threshold: number): Promise<void> {
    const doomed = terminatedPodsToDelete(pods, threshold);
    if (doomed.length === 0) return;
    this.#log.info({ count: doomed.length }, `garbage collecting ${doomed.length} pods`);
    await Promise.all(doomed.map((p) => this.#forceDelete(p)));
  }

  async #gcOrphaned(pods: KubeObject[]): Promise<void> {
    const now = Date.now();
    const missing = new Set<string>();
    for (const pod of pods) {
      const node = nodeNameOf(pod);
      if (!node || this.#nodes.store.get(node)) continue;
      missing.add(node);
      if (!this.#quarantine.has(node)) this.#quarantine.set(node, now + this.#quarantineMs);
    }
    const deleted = new Set<string>();
    for (const [node, at] of this.#quarantine) {
      if (at > now) continue;
      this.#quarantine.delete(node);
      if (!missing.has(node) || this.#nodes.store.get(node)) continue;
      try {
        await this.#ctx.client.get(RESOURCES.nodes, undefined, node);
      } catch (err) {
        if (isNotFound(err)) deleted.add(node);
        else this.#log.info({ node, err: (err as Error).message }, 'could not check whether a node exists');
      }
    }
    for (const pod of pods) {
      const node = nodeNameOf(pod);
      if (!deleted.has(node)) continue;
      this.#log.info({ pod: `${pod.metadata?.namespace}/${pod.metadata?.name}`, node }, `Found orphaned Pod ${pod.metadata?.namespace}/${pod.metadata?.name} assigned to the Node ${node}. Deleting.`);
      await this.#forceDelete(pod);
    }
  }

  async #gcUnscheduledTerminating(pods: KubeObject[]): Promise<void> {
    for (const pod of pods) {
      if (!pod.metadata?.deletionTimestamp || nodeNameOf(pod)) continue;
      this.#log.info({ pod: `${pod.metadata.namespace}/${pod.metadata.name}` }, `PodGC is force deleting Pod: ${pod.metadata.namespace}/${pod.metadata.name}`);
      await this.#forceDelete(pod);
    }
  }

  /** kube deletes with a grace period of 0 */
  async #forceDelete(pod: KubeObject): Promise<void> {
    try {
      await this.#ctx.client.delete(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '', { gracePeriodSeconds: 0 });
    } catch (err) {
      if (!isNotFound(err)) this.#log.info({ pod: pod.metadata?.name, err: (err as Error).message }, 'could not delete a pod');
    }
  }
}
