/**
 * The pods of every simulated node, driven by one informer and one work queue (kwok's pod
 * controller): each pod bound to one of our nodes is taken through the stages of pod-stages.ts.
 * Statuses go through pods/<name>/status as an update carrying the resourceVersion the informer
 * saw, so a stage is never written over a pod that changed meanwhile (a conflict waits for the
 * informer's newer copy, which queues the pod again). A pod with a deletionTimestamp is deleted at
 * once with grace period 0 and its uid as precondition, as kubelet does once its containers stop.
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../../client/errors';
import { SharedInformer } from '../../../client/informer';
import { RESOURCES } from '../../../client/resources';
import type { RestClient } from '../../../client/rest-client';
import { objectKey, splitKey } from '../../../client/types';
import { runWorkers, WorkQueue } from '../../../client/workqueue';
import type { Pod } from '../../types';
import { PodIpPool } from './pod-ips';
import { completedStatus, podStage, podStartedAt, runningStatus } from './pod-stages';

/** how long a Job's pod runs before it Succeeds, unless told otherwise */
export const DEFAULT_JOB_POD_DURATION_MS = 1_000;

/** what the pod simulator needs to know of the nodes it stands for */
export interface SimulatedNodeDirectory {
  has(nodeName: string): boolean;
  /** the node's InternalIP */
  hostIP(nodeName: string): string;
  /** the IPv4 range its pods take addresses from now */
  podCidr(nodeName: string): string;
}

export interface PodSimulatorOptions {
  client: RestClient;
  nodes: SimulatedNodeDirectory;
  logger: Logger;
  /** a field selector narrowing the pod watch (spec.nodeName=<name> when there is one node) */
  fieldSelector?: string;
  /** parallel writers (default 32) */
  workers?: number;
  jobPodDurationMs?: number;
  /** epoch ms */
  now?: () => number;
}

export class PodSimulator {
  readonly informer: SharedInformer<Pod>;
  readonly #opts: PodSimulatorOptions;
  readonly #queue = new WorkQueue<string>();
  readonly #pools = new Map<string, PodIpPool>();
  readonly #now: () => number;
  /** status writes and deletions done, by stage (for tests and logs) */
  readonly counts = { ready: 0, complete: 0, delete: 0, conflicts: 0 };

  constructor(opts: PodSimulatorOptions) {
    this.#opts = opts;
    this.#now = opts.now ?? Date.now;
    this.informer = new SharedInformer<Pod>(opts.client, RESOURCES.pods, { fieldSelector: opts.fieldSelector, logger: opts.logger });
    this.informer.addEventHandler({
      add: (pod) => this.#observe(pod),
      update: (_old, pod) => this.#observe(pod),
      delete: (pod) => {
        const node = nodeOf(pod);
        if (node) this.#pools.get(node)?.release(pod.metadata?.uid ?? '');
      },
    });
  }

  /** list and watch pods and work the queue until the signal aborts */
  async run(signal: AbortSignal): Promise<void> {
    const informer = this.informer.run(signal);
    const stop = () => this.#queue.shutDown();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await runWorkers(this.#queue, this.#opts.workers ?? 32, (key) => this.sync(key), (key, err) =>
        this.#opts.logger.warn({ pod: key, err: String(err) }, 'Simulated pod stage failed; retrying'),
      );
    } finally {
      signal.removeEventListener('abort', stop);
      await informer;
    }
  }

  #pool(nodeName: string): PodIpPool {
    let pool = this.#pools.get(nodeName);
    if (!pool) this.#pools.set(nodeName, (pool = new PodIpPool()));
    return pool;
  }

  #observe(pod: Pod): void {
    const node = nodeOf(pod);
    if (!node || !this.#opts.nodes.has(node)) return;
    // an address a pod already holds (it ran before this process started) is not handed out again
    const { podIP: ip, phase } = (pod.status ?? {}) as { podIP?: string; phase?: string };
    const hostNetwork = (pod.spec as { hostNetwork?: boolean } | undefined)?.hostNetwork === true;
    if (ip && phase === 'Running' && !hostNetwork) this.#pool(node).reserve(pod.metadata?.uid ?? '', ip);
    if (podStage(pod)) this.#queue.add(objectKey(pod));
  }

  /** plays the pod's current stage (the work queue's sync) */
  async sync(key: string): Promise<void> {
    const pod = this.informer.store.get(key);
    const node = pod && nodeOf(pod);
    if (!pod || !node || !this.#opts.nodes.has(node)) return;
    const stage = podStage(pod);
    const { client, logger } = this.#opts;
    const { namespace, name } = splitKey(key);
    const uid = pod.metadata?.uid ?? '';
    if (stage === 'delete') {
      try {
        await client.delete(RESOURCES.pods, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid } });
        this.counts.delete++;
      } catch (err) {
        // gone already, or a new pod of the same name: nothing of ours is left to delete
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
      this.#pools.get(node)?.release(uid);
      return;
    }
    let status: Record<string, unknown>;
    if (stage === 'ready') {
      const { nodes } = this.#opts;
      status = runningStatus(pod, { now: this.#now(), hostIP: nodes.hostIP(node), podIP: () => this.#pool(node).allocate(uid, nodes.podCidr(node)) });
    } else if (stage === 'complete') {
      const due = (podStartedAt(pod) ?? this.#now()) + (this.#opts.jobPodDurationMs ?? DEFAULT_JOB_POD_DURATION_MS);
      const wait = due - this.#now();
      if (wait > 0) {
        this.#queue.addAfter(key, wait);
        return;
      }
      status = completedStatus(pod, this.#now());
    } else {
      return;
    }
    try {
      await client.update(RESOURCES.pods, { ...pod, status }, 'status');
      this.counts[stage]++;
      if (stage === 'complete') this.#pools.get(node)?.release(uid);
    } catch (err) {
      if (isNotFound(err)) return;
      // the informer's copy is behind: its newer copy queues the pod again
      if (isConflict(err)) {
        this.counts.conflicts++;
        logger.debug({ pod: key }, 'Pod changed while its stage was played; waiting for the newer copy');
        return;
      }
      throw err;
    }
  }
}

function nodeOf(pod: Pod): string | undefined {
  return (pod.spec as { nodeName?: string } | undefined)?.nodeName || undefined;
}
