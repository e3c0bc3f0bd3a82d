/**
 * kube's ResourceQuota controller (pkg/controller/resourcequota): keeps every quota's status.hard
 * equal to spec.hard and status.used equal to the namespace's use, measured from the informers of
 * the kinds each quota counts. The ResourceQuota admission adds to status.used as objects are
 * created; this controller is what gives use back:
 *
 * - quotas whose spec differs from their status, or with a hard resource of no recorded use, go
 *   through a queue of their own first (kube's missingUsageQueue), so a new quota is soon enforced;
 * - deletes of counted objects, pods that end and services that change type requeue the quotas of
 *   their namespace that count them (kube's replenishment controller);
 * - every quota is recalculated each --resource-quota-sync-period.
 */
import type { Logger } from 'pino';
import type { QuotaKind } from '../../admission/plugins/quota-usage';
import { isResourceOf } from '../../admission/plugins/quota-usage';
import { DiscoveryClient } from '../../client/discovery';
import { isNotFound } from '../../client/errors';
import { NAMESPACE_INDEX, byNamespace } from '../../client/indexer';
import type { SharedInformer } from '../../client/informer';
import { RESOURCES } from '../../client/resources';
import { objectKey, type KubeObject, type ResourceRef } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerContext } from '../types';
import { calculateStatus, hardOf, kindsOf, needsPriority, podCounts, sameResources } from './usage';

/** how long a discovery read answers which version serves a `count/<resource>.<group>` */
const DISCOVERY_TTL_MS = 30_000;

const kindId = (k: QuotaKind): string => (k.group ? `${k.resource}.${k.group}` : k.resource);

export class ResourceQuotaController {
  readonly #ctx: ControllerContext;
  readonly #log: Logger;
  readonly #queue = new WorkQueue<string>({ name: 'resourcequota_primary' });
  readonly #priority = new WorkQueue<string>({ name: 'resourcequota_priority' });
  readonly #quotas: SharedInformer;
  /** informers of counted kinds, by `resource.group`, created as quotas ask for them */
  readonly #counted = new Map<string, SharedInformer>();
  readonly #discovery: DiscoveryClient;
  #discovered: { at: number; refs: Map<string, ResourceRef> } | undefined;

  constructor(ctx: ControllerContext) {
    this.#ctx = ctx;
    this.#log = ctx.logger;
    this.#discovery = new DiscoveryClient(ctx.client);
    this.#quotas = ctx.informers.informerFor(RESOURCES.resourceQuotas);
    this.#quotas.addIndexer(NAMESPACE_INDEX, byNamespace);
    this.#quotas.addEventHandler({
      add: (q) => this.#enqueue(q),
      update: (old, q) => {
        // kube reacts to spec changes only; the period recalculates the rest
        if (!sameResources(hardOf(old), hardOf(q)) || needsPriority(q)) this.#enqueue(q);
      },
      delete: (q) => this.#queue.add(objectKey(q)),
    });
  }

  async run(): Promise<void> {
    const { signal, settings } = this.#ctx;
    signal.addEventListener('abort', () => {
      this.#queue.shutDown();
      this.#priority.shutDown();
    }, { once: true });
    if (!(await this.#ctx.informers.waitForCacheSync(signal))) return;
    const period = setInterval(() => {
      for (const q of this.#quotas.store.list()) this.#queue.add(objectKey(q));
    }, settings.resourceQuotaSyncPeriodMs);
    period.unref();
    signal.addEventListener('abort', () => clearInterval(period), { once: true });
    const onError = (key: string, err: unknown) => this.#log.error({ err, key }, 'error syncing ResourceQuota');
    const sync = (key: string) => this.#sync(key);
    const workers = settings.concurrentResourceQuotaSyncs;
    await Promise.all([runWorkers(this.#queue, workers, sync, onError), runWorkers(this.#priority, workers, sync, onError)]);
  }

  #enqueue(quota: KubeObject): void {
    (needsPriority(quota) ? this.#priority : this.#queue).add(objectKey(quota));
  }

  /** requeue the quotas of a namespace that count objects of `kind` (kube's replenishQuota) */
  #replenish(kind: QuotaKind, obj: KubeObject): void {
    const namespace = obj.metadata?.namespace;
    if (!namespace) return;
    for (const q of this.#quotas.store.byIndex(NAMESPACE_INDEX, namespace)) {
      if (Object.keys(hardOf(q)).some((n) => isResourceOf(kind, n))) this.#queue.add(objectKey(q));
    }
  }

  /** whether an update of a counted object can lower its use (kube's per-evaluator update checks) */
  #updateFrees(kind: QuotaKind, old: KubeObject, obj: KubeObject): boolean {
    if (kind.group !== '') return false;
    if (kind.resource === 'pods') return podCounts(old, Date.now()) && (!podCounts(obj, Date.now()) || !!obj.metadata?.deletionTimestamp);
    if (kind.resource === 'services') return (old.spec as { type?: string } | undefined)?.type !== (obj.spec as { type?: string } | undefined)?.type;
    if (kind.resource === 'persistentvolumeclaims') return JSON.stringify(old.spec) !== JSON.stringify(obj.spec);
    return false;
  }

  async #refOf(kind: QuotaKind): Promise<ResourceRef | undefined> {
    const known = Object.values(RESOURCES).find((r) => r.group === kind.group && r.resource === kind.resource);
    if (known) return known;
    const now = Date.now();
    if (!this.#discovered || now - this.#discovered.at > DISCOVERY_TTL_MS) {
      const { resources } = await this.#discovery.preferredResources();
      this.#discovered = { at: now, refs: new Map(resources.filter((r) => r.verbs.includes('list') && r.verbs.includes('watch')).map((r) => [kindId(r), r])) };
    }
    return this.#discovered.refs.get(kindId(kind));
  }

  /** the synced informer of a counted kind, started on first use; undefined when the server does not serve it */
  async #informerOf(kind: QuotaKind): Promise<SharedInformer | undefined> {
    const id = kindId(kind);
    let informer = this.#counted.get(id);
    if (!informer) {
      const ref = await this.#refOf(kind);
      if (!ref) return undefined;
      informer = this.#counted.get(id);
      if (!informer) {
        informer = this.#ctx.informers.informerFor(ref);
        informer.addIndexer(NAMESPACE_INDEX, byNamespace);
        informer.addEventHandler({
          update: (old, obj) => {
            if (this.#updateFrees(kind, old, obj)) this.#replenish(kind, obj);
          },
          delete: (obj) => this.#replenish(kind, obj),
        });
        this.#counted.set(id, informer);
      }
    }
    await informer.waitForSync(this.#ctx.signal);
    return informer;
  }

  async #sync(key: string): Promise<void> {
    const cached = this.#quotas.store.get(key);
    if (!cached) return;
    const namespace = cached.metadata?.namespace ?? '';
    const objects = new Map<string, readonly KubeObject[]>();
    for (const kind of kindsOf(cached)) {
      const informer = await this.#informerOf(kind);
      objects.set(kindId(kind), informer ? informer.store.byIndex(NAMESPACE_INDEX, namespace) : []);
    }
    // the newest copy: the admission may have charged it while the informers were read
    const quota = this.#quotas.store.get(key) ?? cached;
    const status = calculateStatus(quota, (kind) => objects.get(kindId(kind)) ?? []);
    const current = (quota.status ?? {}) as { hard?: Record<string, string>; used?: Record<string, string> };
    if (sameResources(current.hard, status.hard) && sameResources(current.used, status.used)) return;
    try {
      await this.#ctx.client.update(RESOURCES.resourceQuotas, { ...quota, apiVersion: 'v1', kind: 'ResourceQuota', status }, 'status');
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}
