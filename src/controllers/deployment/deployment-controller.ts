/**
 * kube's deployment controller (pkg/controller/deployment): watches Deployments, their
 * ReplicaSets and (for Recreate) their pods, claims the ReplicaSets its selector matches, and runs
 * one Rollout per sync: status only while deleting, scale only while paused or on a resize, else
 * the strategy's rollout.
 */
import type { Logger } from 'pino';
import { NAMESPACE_INDEX, OWNER_UID_INDEX, byNamespace, byOwnerUid } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { claimObjects, controllerOf, recheckOwner } from '../util/controller-ref';
import { selectorOf } from '../util/selectors';
import { Rollout } from './rollout';
import { specOf, statusOf } from './util';

export class DeploymentController {
  readonly #ctx: ControllerContext;
  readonly #queue = new WorkQueue<string>({ name: 'deployment' });
  readonly #deployments: SharedInformer;
  readonly #replicaSets: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #log: Logger;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    this.#deployments = ctx.informers.informerFor(RESOURCES.deployments);
    this.#replicaSets = ctx.informers.informerFor(RESOURCES.replicaSets);
    this.#pods = ctx.informers.informerFor(RESOURCES.pods);
    this.#deployments.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#replicaSets.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#pods.addIndexer(OWNER_UID_INDEX, byOwnerUid);
    const enqueue = (d: KubeObject) => this.#queue.add(objectKey(d));
    // --deployment-controller-sync-period: how often every deployment is looked at again
    this.#deployments.addEventHandler({ add: enqueue, update: (_o, d) => enqueue(d), delete: enqueue }, ctx.settings.deploymentControllerSyncPeriodMs);
    this.#replicaSets.addEventHandler({
      add: (rs) => this.#replicaSetChanged(rs),
      update: (old, rs) => {
        if (old.metadata?.resourceVersion === rs.metadata?.resourceVersion) return;
        const oldRef = controllerOf(old);
        if (oldRef && oldRef.uid !== controllerOf(rs)?.uid) this.#replicaSetChanged(old);
        this.#replicaSetChanged(rs, JSON.stringify(old.metadata?.labels) !== JSON.stringify(rs.metadata?.labels));
      },
      delete: (rs) => {
        const d = this.#ownerOf(rs);
        if (d) enqueue(d);
      },
    });
    this.#pods.addEventHandler({
      // Recreate waits for the old pods to go: a deleted pod may let it proceed
      delete: (pod) => {
        const ref = controllerOf(pod);
        if (!ref || ref.kind !== 'ReplicaSet') return;
        const rs = this.#replicaSets.store.getObject(pod.metadata?.namespace, ref.name);
        const d = rs && rs.metadata?.uid === ref.uid ? this.#ownerOf(rs) : undefined;
        if (d && specOf(d).strategy?.type === 'Recreate') enqueue(d);
      },
    });
  }

  #ownerOf(rs: KubeObject): KubeObject | undefined {
    const ref = controllerOf(rs);
    if (!ref || ref.kind !== 'Deployment') return undefined;
    const d = this.#deployments.store.getObject(rs.metadata?.namespace, ref.name);
    return d && d.metadata?.uid === ref.uid ? d : undefined;
  }

  #replicaSetChanged(rs: KubeObject, labelsChanged = true): void {
    if (controllerOf(rs)) {
      const d = this.#ownerOf(rs);
      if (d) this.#queue.add(objectKey(d));
      return;
    }
    if (!labelsChanged || rs.metadata?.deletionTimestamp) return;
    // an orphan: the deployments that select it may adopt it
    for (const d of this.#deployments.store.byIndex(NAMESPACE_INDEX, rs.metadata?.namespace ?? '')) {
      if (selectorOf(withKind(d)).matches(rs.metadata?.labels)) this.#queue.add(objectKey(d));
    }
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, this.#ctx.settings.concurrentDeploymentSyncs, (key) => this.#sync(key), (key, err) => {
      this.#log.error({ err, key }, 'error syncing deployment');
    });
  }

  async #sync(key: string): Promise<void> {
    const cached = this.#deployments.store.get(key);
    if (!cached) return;
    const d = withKind(cached);
    const selector = (specOf(d).selector ?? {}) as { matchLabels?: object; matchExpressions?: unknown[] };
    if (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0) {
      this.#ctx.recorder.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((statusOf(d).observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        await this.#ctx.client.update(RESOURCES.deployments, { ...d, status: { ...statusOf(d), observedGeneration: d.metadata?.generation } }, 'status');
      }
      return;
    }
    const rss = (
      await claimObjects(
        {
          client: this.#ctx.client,
          owner: d,
          selector: selectorOf(d),
          ref: RESOURCES.replicaSets,
          canAdopt: recheckOwner(this.#ctx.client, RESOURCES.deployments, d),
        },
        this.#replicaSets.store.byIndex(NAMESPACE_INDEX, d.metadata?.namespace ?? ''),
      )
    ).map((rs) => ({ ...rs, kind: 'ReplicaSet', apiVersion: 'apps/v1' }));
    const rollout = new Rollout(
      {
        client: this.#ctx.client,
        recorder: this.#ctx.recorder,
        logger: this.#log,
        cachedReplicaSet: (ns, name) => this.#replicaSets.store.getObject(ns, name),
        requeueAfter: (ms) => this.#queue.addAfter(key, ms),
      },
      d,
    );
    if (d.metadata?.deletionTimestamp) return rollout.syncStatusOnly(rss);
    await rollout.checkPausedConditions();
    if (specOf(d).paused) return rollout.syncScaleOnly(rss);
    if (await rollout.isScalingEvent(rss)) return rollout.syncScaleOnly(rss);
    if (specOf(d).strategy?.type === 'Recreate') {
      return rollout.recreate(rss, (uid) => this.#pods.store.byIndex(OWNER_UID_INDEX, uid));
    }
    return rollout.rolling(rss);
  }
}

function withKind(d: KubeObject): KubeObject {
  return d.kind && d.apiVersion ? d : { ...d, kind: 'Deployment', apiVersion: 'apps/v1' };
}
