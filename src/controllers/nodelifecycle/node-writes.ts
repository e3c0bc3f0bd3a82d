/**
 * The node lifecycle controller's writes to nodes and pods (kube's controller.SwapNodeControllerTaint,
 * nodeutil.MarkPodsNotReady and nodeutil.DeletePods), each with the retries kube gives it.
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../client/errors';
import type { EventRecorder } from '../../client/events';
import { NODE_NAME_INDEX } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import { objectKey, type KubeObject } from '../../client/types';
import { hasTaint, sameTaint, taintsOf, timestamp, type NodeCondition, type Taint } from './taints';

/** kube's NodeHealthUpdateRetry */
export const UPDATE_RETRIES = 5;

export interface NodeWriterOptions {
  client: RestClient;
  recorder: EventRecorder;
  logger: Logger;
  nodes: SharedInformer;
  pods: SharedInformer;
  now: () => number;
}

export class NodeWriter {
  readonly #o: NodeWriterOptions;

  constructor(o: NodeWriterOptions) {
    this.#o = o;
  }

  /**
   * controller.SwapNodeControllerTaint: add taints (stamped now) and remove others, reading the
   * node again after a conflict. False when the node could not be updated.
   */
  async swapTaints(name: string, add: readonly Taint[], remove: readonly Taint[]): Promise<boolean> {
    let node = this.#o.nodes.store.get(name);
    for (let attempt = 0; attempt < UPDATE_RETRIES; attempt++) {
      try {
        if (!node || attempt > 0) node = await this.#o.client.get(RESOURCES.nodes, undefined, name);
        const current = taintsOf(node);
        let next = current.filter((t) => !remove.some((r) => sameTaint(r, t)));
        for (const t of add) if (!hasTaint(next, t)) next = [...next, { ...t, timeAdded: timestamp(this.#o.now()) }];
        if (next.length === current.length && next.every((t, i) => t === current[i])) return true;
        const update = structuredClone(node);
        (update.spec as { taints?: Taint[] }) = { ...((node.spec ?? {}) as object), taints: next.length ? next : undefined };
        await this.#o.client.update(RESOURCES.nodes, update);
        return true;
      } catch (err) {
        if (isNotFound(err)) return true;
        if (!isConflict(err)) {
          this.#o.logger.info({ node: name, err: (err as Error).message }, 'could not update the node taints');
          return false;
        }
      }
    }
    return false;
  }

  /** nodeutil.MarkPodsNotReady: the Ready condition of each pod on the node becomes False */
  async markPodsNotReady(pods: KubeObject[], nodeName: string): Promise<boolean> {
    let ok = true;
    for (const pod of pods) {
      if (((pod.spec ?? {}) as { nodeName?: string }).nodeName !== nodeName) continue;
      const conditions = ((pod.status ?? {}) as { conditions?: NodeCondition[] }).conditions ?? [];
      const ready = conditions.find((c) => c.type === 'Ready');
      if (!ready || ready.status === 'False') continue;
      const update = structuredClone(pod);
      const cond = ((update.status as { conditions: NodeCondition[] }).conditions).find((c) => c.type === 'Ready')!;
      cond.status = 'False';
      cond.lastTransitionTime = timestamp(this.#o.now());
      try {
        await this.#o.client.update(RESOURCES.pods, update, 'status');
        this.#o.recorder.event(pod, 'Warning', 'NodeNotReady', 'Node is not ready');
      } catch (err) {
        if (isNotFound(err)) continue;
        this.#o.logger.info({ pod: objectKey(pod), err: (err as Error).message }, 'could not mark a pod not ready');
        ok = false;
      }
    }
    return ok;
  }

  /** nodeutil.DeletePods: true when some pods remain to be deleted */
  async deletePods(node: KubeObject, uid: string): Promise<boolean> {
    const name = node.metadata?.name ?? '';
    this.#o.recorder.event({ kind: 'Node', metadata: { name, uid } }, 'Normal', 'DeletingAllPods', `Node ${name} event: Deleting all Pods from Node ${name}.`);
    let remaining = false;
    for (const pod of this.#o.pods.store.byIndex(NODE_NAME_INDEX, name)) {
      if (pod.metadata?.deletionTimestamp) continue;
      // DaemonSet pods would come back at once: kube leaves them
      if (pod.metadata?.ownerReferences?.some((r) => r.controller && r.kind === 'DaemonSet')) continue;
      this.#o.recorder.event(pod, 'Normal', 'NodeControllerEviction', `Marking for deletion Pod ${pod.metadata?.name} from Node ${name}`);
      try {
        await this.#o.client.delete(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) remaining = true;
      }
    }
    return remaining;
  }
}
