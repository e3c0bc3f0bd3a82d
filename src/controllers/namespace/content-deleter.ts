/**
 * Emptying a terminating namespace (kube's namespacedResourcesDeleter): every namespaced resource
 * the server serves with `delete` is cleared (deletecollection where served, else one DELETE per
 * object, Background propagation), what is left is counted, the namespace's conditions say why,
 * and once nothing remains the `kubernetes` finalizer is removed through namespaces/<name>/finalize.
 */
import type { Logger } from 'pino';
import { DiscoveryClient, GroupDiscoveryFailedError, withVerbs, type DiscoveredResource } from '../../client/discovery';
import { isConflict, isNotFound, ApiError } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import { resourcePath, type RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import { NamespaceConditionUpdater, type NamespaceCondition, type RemainingContent } from './conditions';

export const FINALIZER_KUBERNETES = 'kubernetes';
/** kube's wait for objects held by finalizers, in seconds */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** content is still there: look again after about `estimateSeconds` (kube's ResourcesRemainingError) */
export class ResourcesRemainingError extends Error {
  constructor(readonly estimateSeconds: number) {
    super(`some content remains in the namespace, estimate ${estimateSeconds} seconds before it is removed`);
  }
}

interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

interface ResourceOutcome {
  estimate: number;
  remaining: number;
  finalizers: Map<string, number>;
}

/** Go's GroupVersionResource.String(), as kube's messages print it */
function gvrString(r: DiscoveredResource): string {
  return `${r.group}/${r.version}, Resource=${r.resource}`;
}

export interface ContentDeleterOptions {
  client: RestClient;
  logger: Logger;
  now?: () => Date;
}

export class NamespaceContentDeleter {
  readonly #client: RestClient;
  readonly #discovery: DiscoveryClient;
  readonly #logger: Logger;
  readonly #now: () => Date;

  constructor(o: ContentDeleterOptions) {
    this.#client = o.client;
    this.#discovery = new DiscoveryClient(o.client);
    this.#logger = o.logger;
    this.#now = o.now ?? (() => new Date());
  }

  /** one pass over namespace `name`; throws ResourcesRemainingError while content remains */
  async delete(name: string): Promise<void> {
    let ns = await this.#getNamespace(name);
    if (!ns?.metadata?.deletionTimestamp) return;
    if (ns.status?.phase !== 'Terminating') {
      ns = await this.#retryOnConflict(name, ns, async (cur) => {
        if (cur.status?.phase === 'Terminating') return cur;
        return this.#client.update<Namespace>(RESOURCES.namespaces, { ...cur, status: { ...cur.status, phase: 'Terminating' } }, 'status');
      });
      if (!ns) return;
    }
    if (!(ns.spec?.finalizers ?? []).includes(FINALIZER_KUBERNETES)) return;
    const estimate = await this.#deleteAllContent(ns);
    if (estimate > 0) throw new ResourcesRemainingError(estimate);
    await this.#retryOnConflict(name, ns, async (cur) => {
      const finalizers = (cur.spec?.finalizers ?? []).filter((f) => f !== FINALIZER_KUBERNETES);
      return this.#client.update<Namespace>(RESOURCES.namespaces, { ...cur, spec: { ...cur.spec, finalizers } }, 'finalize');
    });
  }

  async #getNamespace(name: string): Promise<Namespace | undefined> {
    try {
      return await this.#client.get<Namespace>(RESOURCES.namespaces, undefined, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** run `fn` on the newest namespace until it does not conflict; undefined when the namespace is gone */
  async #retryOnConflict(name: string, ns: Namespace, fn: (cur: Namespace) => Promise<Namespace>): Promise<Namespace | undefined> {
    let cur: Namespace | undefined = ns;
    for (;;) {
      try {
        return await fn(cur);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        if (!isConflict(err)) throw err;
        cur = await this.#getNamespace(name);
        if (!cur) return undefined;
      }
    }
  }

  /** kube's deleteAllContent: the longest wait estimated, conditions written, errors thrown */
  async #deleteAllContent(ns: Namespace): Promise<number> {
    const name = ns.metadata!.name!;
    const conditions = new NamespaceConditionUpdater();
    const errors: string[] = [];
    let resources: DiscoveredResource[] = [];
    try {
      const result = await this.#discovery.preferredResources();
      resources = result.resources;
      if (result.failed.size) {
        // discovery errors are not fatal: work on what could be read, but do not finish
        const err = new GroupDiscoveryFailedError(result.failed);
        errors.push(err.message);
        conditions.discoveryFailed(result.failed.size, err.message);
      }
    } catch (err) {
      errors.push((err as Error).message);
      conditions.discoveryFailed(0, (err as Error).message);
    }
    const deletable = withVerbs(resources.filter((r) => r.namespaced), 'delete');
    const remaining: RemainingContent = { byResource: new Map(), byFinalizer: new Map() };
    const deletedAt = Date.parse(ns.metadata!.deletionTimestamp!);
    let estimate = 0;
    for (const r of deletable) {
      let outcome: ResourceOutcome;
      try {
        outcome = await this.#deleteResource(r, name, deletedAt);
      } catch (err) {
        const out = err as Error & { outcome?: ResourceOutcome };
        conditions.contentDeletionFailed(out.message);
        errors.push(out.message);
        if (!out.outcome) continue;
        outcome = out.outcome;
      }
      estimate = Math.max(estimate, outcome.estimate);
      if (outcome.remaining > 0) {
        remaining.byResource.set(`${r.resource}.${r.group}`, outcome.remaining);
        for (const [f, n] of outcome.finalizers) remaining.byFinalizer.set(f, (remaining.byFinalizer.get(f) ?? 0) + n);
      }
    }
    conditions.contentTotals(remaining);
    const status = { ...(ns.status ?? {}), conditions: [...(ns.status?.conditions ?? []).map((c) => ({ ...c }))] };
    if (conditions.update(status.conditions, this.#now().toISOString().replace(/\.\d+Z$/, 'Z'))) {
      try {
        await this.#client.update(RESOURCES.namespaces, { ...ns, status }, 'status');
      } catch (err) {
        this.#logger.info({ namespace: name, err: (err as Error).message }, 'could not write the namespace conditions');
      }
    }
    if (errors.length) throw new Error(errors.join(', '));
    return estimate;
  }

  /** kube's deleteAllContentForGroupVersionResource */
  async #deleteResource(r: DiscoveredResource, namespace: string, deletedAt: number): Promise<ResourceOutcome> {
    const estimate = r.group === '' && r.resource === 'pods' ? await this.#estimatePods(namespace, deletedAt) : 0;
    const fail = (err: unknown, outcome?: ResourceOutcome) => Object.assign(new Error((err as Error).message), { outcome: outcome ?? { estimate, remaining: 0, finalizers: new Map() } });
    try {
      if (!(await this.#deleteCollection(r, namespace))) await this.#deleteEach(r, namespace);
    } catch (err) {
      throw fail(err);
    }
    if (!r.verbs.includes('list')) return { estimate, remaining: 0, finalizers: new Map() };
    let items: KubeObject[];
    try {
      items = (await this.#client.list(r, namespace)).items;
    } catch (err) {
      throw fail(err);
    }
    const finalizers = new Map<string, number>();
    for (const item of items) for (const f of item.metadata?.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
    if (items.length === 0 || estimate > 0) return { estimate, remaining: items.length, finalizers };
    // objects held by finalizers are expected to go in time; anything else should have been deleted
    if (finalizers.size > 0) return { estimate: FINALIZER_ESTIMATE_SECONDS, remaining: items.length, finalizers };
    throw fail(new Error(`unexpected items still remain in namespace: ${namespace} for gvr: ${gvrString(r)}`), { estimate, remaining: items.length, finalizers });
  }

  async #deleteCollection(r: DiscoveredResource, namespace: string): Promise<boolean> {
    if (!r.verbs.includes('deletecollection')) return false;
    try {
      await this.#client.request('DELETE', resourcePath(r, namespace), { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
      return true;
    } catch (err) {
      // the server does not serve it after all: fall back to one DELETE per object
      if (err instanceof ApiError && (err.code === 405 || err.code === 404)) return false;
      throw err;
    }
  }

  async #deleteEach(r: DiscoveredResource, namespace: string): Promise<void> {
    if (!r.verbs.includes('list')) return;
    const { items } = await this.#client.list(r, namespace);
    for (const item of items) {
      try {
        await this.#client.delete(r, namespace, item.metadata?.name ?? '', { propagationPolicy: 'Background' });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  /** kube's estimate for pods: the longest grace period of a pod still running, if not yet past */
  async #estimatePods(namespace: string, deletedAt: number): Promise<number> {
    const { items } = await this.#client.list(RESOURCES.pods, namespace);
    let estimate = 0;
    for (const pod of items) {
      const phase = (pod.status as { phase?: string } | undefined)?.phase;
      if (phase === 'Succeeded' || phase === 'Failed') continue;
      const grace = (pod.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds;
      if (typeof grace === 'number' && grace > estimate) estimate = grace;
    }
    return Date.now() - deletedAt >= estimate * 1000 ? 0 : estimate;
  }
}
