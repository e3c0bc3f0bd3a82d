/**
 * kube's DaemonSet controller (pkg/controller/daemon, kube 1.20, ScheduleDaemonSetPods): one pod
 * per eligible node, created unbound with a required node affinity to that node (the scheduler
 * binds it), the daemon tolerations, and the controller-revision-hash and pod-template-generation
 * labels. Creates and deletes are burst-limited and guarded by expectations; a RollingUpdate
 * replaces old pods within maxUnavailable.
 */
import type { Logger } from 'pino';
import { isConflict, isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerRevision } from '../history/controller-history';
import { errorMessage, isNamespaceTerminating } from '../util/errors';
import { slowStartBatch } from '../util/pod-control';
import type { ControllerContext } from '../types';
import { claimObjects, controllerOf, recheckOwner } from '../util/controller-ref';
import { podFromTemplate } from '../util/pod-template';
import { isPodReady } from '../util/pods';
import { selectorOf } from '../util/selectors';
import { cleanupHistory, constructHistory } from './daemon-history';
import { DaemonExpectations } from './daemon-expectations';
import {
  REVISION_LABEL,
  TEMPLATE_GENERATION_LABEL,
  calculateStatus,
  daemonSpec,
  planManage,
  planRollingUpdate,
  podsByNode,
  templateGeneration,
  type DaemonSetStatus,
} from './daemon-plan';
import { withDaemonTolerations, withNodeNameAffinity, type DaemonPodSpec } from './node-eligibility';

/** kube's BurstReplicas for DaemonSets */
export const DAEMON_BURST_REPLICAS = 250;
/** kube 1.20 runs two DaemonSet workers (it has no flag for the number) */
const DAEMON_WORKERS = 2;
const FAILED_BACKOFF_INITIAL_MS = 1000;
const FAILED_BACKOFF_MAX_MS = 15 * 60_000;

function withKind<T extends KubeObject>(obj: T): T {
  return obj.kind && obj.apiVersion ? obj : { ...obj, kind: 'DaemonSet', apiVersion: 'apps/v1' };
}

export class DaemonSetController {
  readonly #ctx: ControllerContext;
  readonly #queue = new WorkQueue<string>({ name: 'daemonset' });
  readonly #expectations = new DaemonExpectations();
  readonly #sets: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #nodes: SharedInformer;
  readonly #revisions: SharedInformer;
  readonly #log: Logger;
  /** failed-pod backoff per `<ds key>/<node>`: when the next deletion may happen, and the delay */
  readonly #failedBackoff = new Map<string, { until: number; delay: number }>();

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    this.#sets = ctx.informers.informerFor(RESOURCES.daemonSets);
    this.#pods = ctx.informers.informerFor(RESOURCES.pods);
    this.#nodes = ctx.informers.informerFor(RESOURCES.nodes);
    this.#revisions = ctx.informers.informerFor(RESOURCES.controllerRevisions);
    for (const i of [this.#sets, this.#pods, this.#revisions]) i.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#sets.addEventHandler({
      add: (ds) => this.#queue.add(objectKey(ds)),
      update: (_o, ds) => this.#queue.add(objectKey(ds)),
      delete: (ds) => {
        this.#expectations.forget(objectKey(ds));
        this.#queue.add(objectKey(ds));
      },
    });
    this.#pods.addEventHandler({
      add: (pod) => {
        if (pod.metadata?.deletionTimestamp) return this.#podDeleted(pod);
        const owner = this.#ownerOf(pod);
        if (owner) {
          this.#expectations.creationObserved(objectKey(owner));
          this.#queue.add(objectKey(owner));
        } else if (!controllerOf(pod)) {
          this.#enqueueSelecting(pod);
        }
      },
      update: (old, pod) => {
        if (old.metadata?.resourceVersion === pod.metadata?.resourceVersion) return;
        if (pod.metadata?.deletionTimestamp && !old.metadata?.deletionTimestamp) return this.#podDeleted(pod);
        const oldOwner = this.#ownerOf(old);
        const owner = this.#ownerOf(pod);
        if (oldOwner && oldOwner !== owner) this.#queue.add(objectKey(oldOwner));
        if (owner) {
          const key = objectKey(owner);
          this.#queue.add(key);
          const minReady = daemonSpec(owner).minReadySeconds ?? 0;
          if (minReady > 0 && !isPodReady(old) && isPodReady(pod)) this.#queue.addAfter(key, minReady * 1000 + 1000);
        } else if (!controllerOf(pod)) {
          this.#enqueueSelecting(pod);
        }
      },
      delete: (pod) => this.#podDeleted(pod),
    });
    // any node change may change where daemon pods belong
    const everyDaemonSet = () => {
      for (const ds of this.#sets.store.list()) this.#queue.add(objectKey(ds));
    };
    this.#nodes.addEventHandler({
      add: everyDaemonSet,
      update: (old, node) => {
        if (old.metadata?.resourceVersion === node.metadata?.resourceVersion) return;
        const relevant = (n: KubeObject) => JSON.stringify([n.metadata?.labels ?? {}, (n.spec as { taints?: unknown } | undefined)?.taints ?? []]);
        if (relevant(old) !== relevant(node)) everyDaemonSet();
      },
      delete: everyDaemonSet,
    });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, DAEMON_WORKERS, (key) => this.#sync(key), (key, err) => {
      this.#log.error({ err, key }, 'error syncing DaemonSet');
    });
  }

  #ownerOf(pod: KubeObject): KubeObject | undefined {
    const ref = controllerOf(pod);
    if (!ref || ref.kind !== 'DaemonSet') return undefined;
    const ds = this.#sets.store.getObject(pod.metadata?.namespace, ref.name);
    return ds && ds.metadata?.uid === ref.uid ? ds : undefined;
  }

  #enqueueSelecting(pod: KubeObject): void {
    for (const ds of this.#sets.store.byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')) {
      if (selectorOf(ds).matches(pod.metadata?.labels)) this.#queue.add(objectKey(ds));
    }
  }

  #podDeleted(pod: KubeObject): void {
    const owner = this.#ownerOf(pod);
    if (!owner) return;
    this.#expectations.deletionObserved(objectKey(owner));
    this.#queue.add(objectKey(owner));
  }

  async #sync(key: string): Promise<void> {
    const cached = this.#sets.store.get(key);
    if (!cached) {
      this.#expectations.forget(key);
      return;
    }
    const ds = withKind(cached);
    if (ds.metadata?.deletionTimestamp) return;
    const ns = ds.metadata?.namespace ?? '';
    const selector = selectorOf(ds);
    const canAdopt = recheckOwner(this.#ctx.client, RESOURCES.daemonSets, ds);
    const nodes = this.#nodes.store.list();
    const pods = await claimObjects({ client: this.#ctx.client, owner: ds, selector, ref: RESOURCES.pods, canAdopt }, this.#pods.store.byIndex(NAMESPACE_INDEX, ns));
    const revisions = (await claimObjects(
      { client: this.#ctx.client, owner: ds, selector, ref: RESOURCES.controllerRevisions, canAdopt },
      this.#revisions.store.byIndex(NAMESPACE_INDEX, ns),
    )) as ControllerRevision[];
    const history = await constructHistory(this.#ctx.client, ds, revisions, pods);
    const { hash } = history;

    if (!this.#expectations.satisfied(key)) {
      await this.#writeStatus(ds, calculateStatus(ds, nodes, podsByNode(pods), hash), history.collisionCount, false);
      return;
    }
    const plan = planManage(ds, nodes, podsByNode(pods), (node) => this.#inFailedBackoff(key, node));
    for (const { pod, node } of plan.failed) {
      const msg = `Found failed daemon pod ${pod.metadata?.namespace}/${pod.metadata?.name} on node ${node}, will try to kill it`;
      this.#ctx.recorder.event(ds, 'Warning', 'FailedDaemonPod', msg);
      this.#noteFailedDeletion(key, node);
    }
    let err: unknown;
    try {
      await this.#syncNodes(key, ds, plan.podsToDelete, plan.nodesNeedingPods, hash);
      if (this.#expectations.satisfied(key)) {
        if (daemonSpec(ds).updateStrategy?.type === 'RollingUpdate') {
          const old = planRollingUpdate(ds, nodes, podsByNode(pods), hash);
          await this.#syncNodes(key, ds, old, [], hash);
        }
        await cleanupHistory(this.#ctx.client, ds, history.old, pods);
      }
    } catch (e) {
      err = e;
    }
    const status = calculateStatus(ds, nodes, podsByNode(pods), hash);
    await this.#writeStatus(ds, status, history.collisionCount, true);
    if (err) throw err;
    const minReady = daemonSpec(ds).minReadySeconds ?? 0;
    if (minReady > 0 && status.numberReady !== status.numberAvailable) this.#queue.addAfter(key, minReady * 1000);
  }

  #inFailedBackoff(key: string, node: string): boolean {
    const b = this.#failedBackoff.get(`${key}/${node}`);
    if (!b || Date.now() >= b.until) return false;
    this.#queue.addAfter(key, b.until - Date.now() + 1);
    return true;
  }

  #noteFailedDeletion(key: string, node: string): void {
    const k = `${key}/${node}`;
    const prev = this.#failedBackoff.get(k);
    const delay = prev ? Math.min(prev.delay * 2, FAILED_BACKOFF_MAX_MS) : FAILED_BACKOFF_INITIAL_MS;
    this.#failedBackoff.set(k, { until: Date.now() + delay, delay });
  }

  /** syncNodes: create pods for nodes that need one and delete the given pods, at most a burst of each */
  async #syncNodes(key: string, ds: KubeObject, podsToDelete: readonly KubeObject[], nodesNeedingPods: readonly string[], hash: string): Promise<void> {
    const creates = nodesNeedingPods.slice(0, DAEMON_BURST_REPLICAS);
    const deletes = podsToDelete.slice(0, DAEMON_BURST_REPLICAS);
    if (creates.length === 0 && deletes.length === 0) return;
    this.#expectations.expect(key, creates.length, deletes.length);
    const template = this.#podTemplate(ds, hash);
    const errors: unknown[] = [];
    let next = 0;
    const { error } = await slowStartBatch(creates.length, 1, async () => {
      const node = creates[next++]!;
      try {
        await this.#createPod(ds, template, node);
      } catch (err) {
        this.#expectations.creationObserved(key);
        throw err;
      }
    });
    // creations never attempted after a failed batch are not awaited either
    for (let i = next; i < creates.length; i++) this.#expectations.creationObserved(key);
    if (error) errors.push(error);
    const results = await Promise.allSettled(deletes.map((pod) => this.#deletePod(ds, pod)));
    for (const r of results) {
      if (r.status === 'rejected') {
        this.#expectations.deletionObserved(key);
        errors.push(r.reason);
      }
    }
    if (errors.length) throw errors[0];
  }

  /** util.CreatePodTemplate: the template with the daemon tolerations and the revision labels */
  #podTemplate(ds: KubeObject, hash: string): KubeObject {
    const template = structuredClone(((ds.spec ?? {}) as { template?: KubeObject }).template ?? {});
    const labels: Record<string, string> = { ...(template.metadata?.labels ?? {}) };
    const generation = templateGeneration(ds);
    if (generation !== undefined) labels[TEMPLATE_GENERATION_LABEL] = generation;
    if (hash) labels[REVISION_LABEL] = hash;
    template.metadata = { ...(template.metadata ?? {}), labels };
    template.spec = withDaemonTolerations((template.spec ?? {}) as DaemonPodSpec);
    return template;
  }

  async #createPod(ds: KubeObject, template: KubeObject, node: string): Promise<void> {
    const pod = podFromTemplate(ds, template);
    pod.spec = withNodeNameAffinity(pod.spec as DaemonPodSpec, node);
    try {
      const created = await this.#ctx.client.create(RESOURCES.pods, ds.metadata?.namespace, pod);
      this.#ctx.recorder.event(ds, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata?.name}`);
    } catch (err) {
      if (isNamespaceTerminating(err)) {
        // no pod will come: stop waiting for it, but do not retry either (kube's NamespaceTerminatingCause)
        this.#expectations.creationObserved(objectKey(ds));
        return;
      }
      this.#ctx.recorder.event(ds, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(err)}`);
      throw err;
    }
  }

  async #deletePod(ds: KubeObject, pod: KubeObject): Promise<void> {
    try {
      await this.#ctx.client.delete(RESOURCES.pods, pod.metadata?.namespace, pod.metadata?.name ?? '');
      this.#ctx.recorder.event(ds, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata?.name}`);
    } catch (err) {
      if (isNotFound(err)) {
        this.#expectations.deletionObserved(objectKey(ds));
        return;
      }
      this.#ctx.recorder.event(ds, 'Warning', 'FailedDelete', `Error deleting: ${errorMessage(err)}`);
      throw err;
    }
  }

  async #writeStatus(ds: KubeObject, status: DaemonSetStatus, collisionCount: number | undefined, observe: boolean): Promise<void> {
    let current = ds;
    for (let attempt = 0; ; attempt++) {
      const old = (current.status ?? {}) as Record<string, unknown>;
      const next: Record<string, unknown> = { ...old, ...status };
      if (observe) next.observedGeneration = ds.metadata?.generation;
      if (collisionCount !== undefined) next.collisionCount = collisionCount;
      const keys = new Set([...Object.keys(status), 'observedGeneration', 'collisionCount']);
      if ([...keys].every((k) => old[k] === next[k])) return;
      try {
        await this.#ctx.client.update(RESOURCES.daemonSets, { ...current, status: next }, 'status');
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 3) throw err;
        try {
          current = withKind(await this.#ctx.client.get(RESOURCES.daemonSets, ds.metadata?.namespace, ds.metadata?.name ?? ''));
        } catch (getErr) {
          if (isNotFound(getErr)) return;
          throw getErr;
        }
      }
    }
  }
}
