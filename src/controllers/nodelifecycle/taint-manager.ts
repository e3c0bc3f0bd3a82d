/**
 * kube's NoExecuteTaintManager (nodelifecycle/scheduler/taint_manager.go): pods on a node with
 * NoExecute taints they do not all tolerate are deleted at once; pods that tolerate them for a
 * while (tolerationSeconds) are deleted when the shortest of those runs out, counted from when
 * the pod was first found on the tainted node; a pod whose node loses the taints, or whose
 * tolerations become unlimited, is spared ("Cancelling deletion"). Events come from
 * `taint-controller`, as kube's.
 */
import type { Logger } from 'pino';
import { isNotFound } from '../../client/errors';
import type { EventRecorder } from '../../client/events';
import { NODE_NAME_INDEX } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import { sleep } from '../../client/sleep';
import { objectKey, splitKey, type KubeObject } from '../../client/types';
import { matchingTolerations, minTolerationSeconds, taintsOf, type Taint, type Toleration } from './taints';

interface ScheduledEviction {
  createdAt: number;
  fireAt: number;
  /** undefined once the eviction has run (kube keeps the finished worker until the pod goes) */
  timer?: NodeJS.Timeout;
}

/** kube's retries of a pod deletion */
const DELETE_RETRIES = 5;

export interface TaintManagerOptions {
  client: RestClient;
  recorder: EventRecorder;
  logger: Logger;
  nodes: SharedInformer;
  pods: SharedInformer;
  signal: AbortSignal;
}

const noExecuteTaints = (node: KubeObject | undefined): Taint[] => (node ? taintsOf(node).filter((t) => t.effect === 'NoExecute') : []);
const nodeNameOf = (pod: KubeObject): string => ((pod.spec ?? {}) as { nodeName?: string }).nodeName ?? '';
const tolerationsOf = (pod: KubeObject): Toleration[] => ((pod.spec ?? {}) as { tolerations?: Toleration[] }).tolerations ?? [];

export class TaintManager {
  readonly #o: TaintManagerOptions;
  readonly #evictions = new Map<string, ScheduledEviction>();
  #running = false;

  constructor(o: TaintManagerOptions) {
    this.#o = o;
    o.nodes.addEventHandler({
      add: (node) => this.#nodeChanged(undefined, node),
      update: (old, node) => this.#nodeChanged(old, node),
    });
    o.pods.addEventHandler({
      add: (pod) => this.#podChanged(pod),
      update: (old, pod) => {
        if (nodeNameOf(old) === nodeNameOf(pod) && JSON.stringify(tolerationsOf(old)) === JSON.stringify(tolerationsOf(pod))) return;
        this.#podChanged(pod);
      },
      delete: (pod) => {
        const key = objectKey(pod);
        clearTimeout(this.#evictions.get(key)?.timer);
        this.#evictions.delete(key);
      },
    });
    o.signal.addEventListener('abort', () => {
      for (const e of this.#evictions.values()) clearTimeout(e.timer);
      this.#evictions.clear();
    });
  }

  /** begin acting (after the caches synced): every node is looked at once */
  start(): void {
    this.#running = true;
    for (const node of this.#o.nodes.store.list()) this.#handleNode(node);
  }

  /** how many pods await eviction (for tests) */
  get scheduled(): number {
    return [...this.#evictions.values()].filter((e) => e.timer).length;
  }

  #nodeChanged(old: KubeObject | undefined, node: KubeObject): void {
    if (old && JSON.stringify(noExecuteTaints(old)) === JSON.stringify(noExecuteTaints(node))) return;
    if (!this.#running) return;
    this.#handleNode(node);
  }

  #podChanged(pod: KubeObject): void {
    if (!this.#running) return;
    const nodeName = nodeNameOf(pod);
    if (!nodeName) return;
    const taints = noExecuteTaints(this.#o.nodes.store.get(nodeName));
    this.#processPod(pod, taints, Date.now());
  }

  #handleNode(node: KubeObject): void {
    const taints = noExecuteTaints(node);
    const now = Date.now();
    for (const pod of this.#o.pods.store.byIndex(NODE_NAME_INDEX, node.metadata?.name ?? '')) this.#processPod(pod, taints, now);
  }

  /** processPodOnNode */
  #processPod(pod: KubeObject, taints: Taint[], now: number): void {
    const key = objectKey(pod);
    if (taints.length === 0) return this.#cancel(key);
    const { all, used } = matchingTolerations(taints, tolerationsOf(pod));
    if (!all) {
      this.#o.logger.info({ pod: key, node: nodeNameOf(pod) }, 'not all taints are tolerated: deleting the pod');
      this.#cancel(key);
      this.#schedule(key, now, now);
      return;
    }
    const seconds = minTolerationSeconds(used);
    if (seconds < 0) {
      this.#o.logger.debug({ pod: key }, 'the tolerations last forever: cancelling any scheduled deletion');
      return this.#cancel(key);
    }
    let start = now;
    const trigger = now + seconds * 1000;
    const scheduled = this.#evictions.get(key);
    if (scheduled) {
      start = scheduled.createdAt;
      if (start + seconds * 1000 < trigger) return;
      this.#cancel(key);
    }
    this.#schedule(key, start, start + seconds * 1000);
  }

  #schedule(key: string, createdAt: number, fireAt: number): void {
    const existing = this.#evictions.get(key);
    if (existing?.timer) return;
    const entry: ScheduledEviction = { createdAt, fireAt };
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      void this.#evict(key);
    }, Math.max(0, fireAt - Date.now()));
    this.#evictions.set(key, entry);
  }

  /** cancelWorkWithEvent */
  #cancel(key: string): void {
    const e = this.#evictions.get(key);
    if (!e) return;
    this.#evictions.delete(key);
    if (!e.timer) return;
    clearTimeout(e.timer);
    const pod = this.#o.pods.store.get(key);
    if (pod) this.#o.recorder.event(podRef(pod), 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  /** deletePodHandler */
  async #evict(key: string): Promise<void> {
    const { namespace, name } = splitKey(key);
    const pod = this.#o.pods.store.get(key);
    this.#o.recorder.event(pod ? podRef(pod) : { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name } }, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    for (let attempt = 0; attempt < DELETE_RETRIES && !this.#o.signal.aborted; attempt++) {
      try {
        await this.#o.client.delete(RESOURCES.pods, namespace, name);
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        this.#o.logger.info({ pod: key, err: (err as Error).message }, 'could not delete a pod for a NoExecute taint');
        await sleep(10, this.#o.signal).catch(() => undefined);
      }
    }
    // give up, as kube's worker does: the next change of the pod or node schedules it again
    this.#evictions.delete(key);
  }
}

/** kube refers to the pod by kind, namespace and name only */
function podRef(pod: KubeObject): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace: pod.metadata?.namespace, name: pod.metadata?.name } };
}
