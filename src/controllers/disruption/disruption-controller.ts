/**
 * kube's disruption controller (pkg/controller/disruption, 1.20): the status of every
 * PodDisruptionBudget, which the API server's eviction subresource reads and decrements.
 *
 * A sync counts the budget's pods (its selector; an empty one selects nothing, as policy/v1beta1),
 * the expected count (the pods' controllers' replicas when a percentage or maxUnavailable asks for
 * it, else the pods), the healthy ones (ready, not being deleted, not just evicted), and writes
 * disruptionsAllowed = currentHealthy - desiredHealthy (never below 0, 0 without expected pods).
 * When the expected count cannot be computed (a pod without controller, a controller not found)
 * the budget fails safe: no disruption allowed.
 */
import type { Logger } from 'pino';
import { labelSelectorFromObject, LabelSelector, type LabelSelectorObject } from '../../api/selectors';
import { DiscoveryClient } from '../../client/discovery';
import { isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject, type OwnerReference } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { controllerOf } from '../util/controller-ref';
import { budgetStatus, countHealthy, desiredHealthyOf, needsScale, pendingDisruptions, specOf, type BudgetStatus } from './budget';

/** kube runs the disruption controller with one worker */
const WORKERS = 1;

const groupOf = (apiVersion: string | undefined): string => (apiVersion?.includes('/') ? apiVersion.split('/')[0] : '');

class ExpectedCountError extends Error {}

function budgetSelector(pdb: KubeObject): LabelSelector {
  const sel = specOf(pdb).selector as LabelSelectorObject | undefined;
  if (!sel || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0)) return LabelSelector.nothing();
  try {
    return labelSelectorFromObject(sel);
  } catch {
    return LabelSelector.nothing();
  }
}

export class DisruptionController {
  readonly #ctx: ControllerContext;
  readonly #log: Logger;
  readonly #queue = new WorkQueue<string>({ name: 'disruption' });
  readonly #budgets: SharedInformer;
  readonly #pods: SharedInformer;
  readonly #replicaSets: SharedInformer;
  readonly #deployments: SharedInformer;
  readonly #rcs: SharedInformer;
  readonly #statefulSets: SharedInformer;
  readonly #discovery: DiscoveryClient;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    this.#discovery = new DiscoveryClient(ctx.client);
    const informer = (ref: (typeof RESOURCES)[keyof typeof RESOURCES]) => {
      const i = ctx.informers.informerFor(ref);
      i.addIndexer(NAMESPACE_INDEX, byNamespace);
      return i;
    };
    this.#budgets = informer(RESOURCES.podDisruptionBudgets);
    this.#pods = informer(RESOURCES.pods);
    this.#replicaSets = informer(RESOURCES.replicaSets);
    this.#deployments = informer(RESOURCES.deployments);
    this.#rcs = informer(RESOURCES.replicationControllers);
    this.#statefulSets = informer(RESOURCES.statefulSets);
    this.#budgets.addEventHandler({
      add: (pdb) => this.#queue.add(objectKey(pdb)),
      update: (_old, pdb) => this.#queue.add(objectKey(pdb)),
      delete: (pdb) => this.#queue.add(objectKey(pdb)),
    });
    this.#pods.addEventHandler({
      add: (pod) => this.#podChanged(pod),
      update: (old, pod) => {
        if (old.metadata?.resourceVersion !== pod.metadata?.resourceVersion) this.#podChanged(pod);
      },
      delete: (pod) => this.#podChanged(pod),
    });
  }

  async run(): Promise<void> {
    const { signal } = this.#ctx;
    signal.addEventListener('abort', () => this.#queue.shutDown(), { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    await runWorkers(this.#queue, WORKERS, (key) => this.#sync(key), (key, err) => {
      this.#log.error({ err, key }, 'error syncing PodDisruptionBudget');
    });
  }

  #podChanged(pod: KubeObject): void {
    const labels = pod.metadata?.labels ?? {};
    for (const pdb of this.#budgets.store.byIndex(NAMESPACE_INDEX, pod.metadata?.namespace ?? '')) {
      if (budgetSelector(pdb).matches(labels)) this.#queue.add(objectKey(pdb));
    }
  }

  #withKind(pdb: KubeObject): KubeObject {
    return { ...pdb, apiVersion: 'policy/v1beta1', kind: 'PodDisruptionBudget' };
  }

  async #sync(key: string): Promise<void> {
    const cached = this.#budgets.store.get(key);
    if (!cached) return;
    const pdb = this.#withKind(cached);
    const namespace = pdb.metadata?.namespace ?? '';
    const selector = budgetSelector(pdb);
    const pods = this.#pods.store.byIndex(NAMESPACE_INDEX, namespace).filter((p) => selector.matches(p.metadata?.labels ?? {}));
    if (pods.length === 0) this.#ctx.recorder.event(pdb, 'Normal', 'NoPods', 'No matching pods found');

    let counts: { expectedCount: number; desiredHealthy: number };
    try {
      const spec = specOf(pdb);
      counts = desiredHealthyOf(spec, pods.length, needsScale(spec) ? await this.#expectedScale(pdb, pods) : undefined);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#ctx.recorder.event(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${message}`);
      this.#log.info({ key, err: message }, 'PodDisruptionBudget fails safe');
      await this.#failSafe(pdb);
      return;
    }

    const now = Date.now();
    const recorded = ((pdb.status ?? {}) as { disruptedPods?: Record<string, string> }).disruptedPods;
    const { pending, expired, recheckAt } = pendingDisruptions(pods, recorded, now);
    for (const pod of expired) {
      this.#ctx.recorder.event({ ...pod, apiVersion: 'v1', kind: 'Pod' }, 'Warning', 'NotDeleted', `Pod was expected by PDB ${key} to be deleted but it wasn't`);
    }
    const status = budgetStatus({ generation: pdb.metadata?.generation, pending, currentHealthy: countHealthy(pods, pending), ...counts });
    await this.#writeStatus(pdb, status);
    if (recheckAt !== undefined) this.#queue.addAfter(key, Math.max(0, recheckAt - now) + 100);
  }

  /** kube's failSafe: no disruption allowed, and the generation marked seen */
  async #failSafe(pdb: KubeObject): Promise<void> {
    const current = (pdb.status ?? {}) as Partial<BudgetStatus>;
    await this.#writeStatus(pdb, {
      disruptionsAllowed: 0,
      currentHealthy: current.currentHealthy ?? 0,
      desiredHealthy: current.desiredHealthy ?? 0,
      expectedPods: current.expectedPods ?? 0,
      disruptedPods: current.disruptedPods,
      observedGeneration: pdb.metadata?.generation,
    });
  }

  async #writeStatus(pdb: KubeObject, status: BudgetStatus): Promise<void> {
    const current = (pdb.status ?? {}) as Partial<BudgetStatus>;
    const same =
      current.disruptionsAllowed === status.disruptionsAllowed &&
      current.currentHealthy === status.currentHealthy &&
      current.desiredHealthy === status.desiredHealthy &&
      current.expectedPods === status.expectedPods &&
      current.observedGeneration === status.observedGeneration &&
      JSON.stringify(current.disruptedPods ?? {}) === JSON.stringify(status.disruptedPods ?? {});
    if (same) return;
    try {
      await this.#ctx.client.update(RESOURCES.podDisruptionBudgets, { ...pdb, status: { ...current, ...status } }, 'status');
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }

  /** kube's getExpectedScale: the sum of the replicas of the pods' distinct controllers */
  async #expectedScale(pdb: KubeObject, pods: readonly KubeObject[]): Promise<number> {
    const scales = new Map<string, number>();
    for (const pod of pods) {
      const ref = controllerOf(pod);
      if (!ref) {
        const message = `found no controller ref for pod ${JSON.stringify(pod.metadata?.name ?? '')}`;
        this.#ctx.recorder.event(pdb, 'Warning', 'NoControllerRef', message);
        throw new ExpectedCountError(message);
      }
      if (scales.has(ref.uid)) continue;
      const found = this.#localScale(pod.metadata?.namespace ?? '', ref) ?? (await this.#scaleSubresource(pod.metadata?.namespace ?? '', ref));
      if (!found) {
        const message = `found no controllers for pod ${JSON.stringify(pod.metadata?.name ?? '')}`;
        this.#ctx.recorder.event(pdb, 'Warning', 'NoControllers', message);
        throw new ExpectedCountError(message);
      }
      scales.set(found.uid, found.replicas);
    }
    return [...scales.values()].reduce((a, b) => a + b, 0);
  }

  /** kube's finders over its listers: a ReplicaSet (or the Deployment controlling it), a ReplicationController, a StatefulSet */
  #localScale(namespace: string, ref: OwnerReference): { uid: string; replicas: number } | undefined {
    const group = groupOf(ref.apiVersion);
    const replicasOf = (o: KubeObject) => ((o.spec ?? {}) as { replicas?: number }).replicas ?? 1;
    const owned = (informer: SharedInformer, r: OwnerReference) => {
      const o = informer.store.getObject(namespace, r.name);
      return o && o.metadata?.uid === r.uid ? o : undefined;
    };
    if (ref.kind === 'ReplicaSet' && group === 'apps') {
      const rs = owned(this.#replicaSets, ref);
      if (!rs) return undefined;
      const parent = controllerOf(rs);
      if (parent?.kind === 'Deployment' && groupOf(parent.apiVersion) === 'apps') {
        const d = owned(this.#deployments, parent);
        return d ? { uid: d.metadata?.uid ?? '', replicas: replicasOf(d) } : undefined;
      }
      return { uid: rs.metadata?.uid ?? '', replicas: replicasOf(rs) };
    }
    const informer = ref.kind === 'ReplicationController' && group === '' ? this.#rcs : ref.kind === 'StatefulSet' && group === 'apps' ? this.#statefulSets : undefined;
    const o = informer && owned(informer, ref);
    return o ? { uid: o.metadata?.uid ?? '', replicas: replicasOf(o) } : undefined;
  }

  /** kube's getScaleController: any other controller that serves the scale subresource */
  async #scaleSubresource(namespace: string, ref: OwnerReference): Promise<{ uid: string; replicas: number } | undefined> {
    const group = groupOf(ref.apiVersion);
    const { resources } = await this.#discovery.preferredResources();
    const resource = resources.find((r) => r.group === group && r.kind === ref.kind && r.namespaced);
    if (!resource) return undefined;
    try {
      // only the scale is read (the controller's role allows `get */scale`); it carries the owner's uid
      const scale = await this.#ctx.client.get(resource, namespace, ref.name, 'scale');
      if (scale.metadata?.uid !== ref.uid) return undefined;
      return { uid: ref.uid, replicas: ((scale.spec ?? {}) as { replicas?: number }).replicas ?? 0 };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }
}
