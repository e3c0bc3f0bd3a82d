/**
 * The collector's decisions (kube's GarbageCollector: attemptToDeleteItem, processDeletingDependents,
 * attemptToOrphan). Every decision reads the object live from the API first: the graph may lag
 * behind the server, never lead it.
 */
import type { Logger } from 'pino';
import type { DiscoveredResource } from '../../client/discovery';
import { isConflict, isNotFound } from '../../client/errors';
import type { EventRecorder } from '../../client/events';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject, OwnerReference } from '../../client/types';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, hasFinalizer, type DependencyGraph, type GraphNode, type ObjectIdentity } from './graph';

/** a cluster-scoped dependent naming a namespaced owner: retrying cannot help (kube's marker error) */
export class NamespacedOwnerOfClusterScopedObjectError extends Error {}

/** the node was found gone and removed from the graph: nothing to retry */
export class VirtualDeleteError extends Error {}

const ABSENT_OWNER_CACHE_SIZE = 500;
const CONFLICT_RETRIES = 5;

export interface GarbageCollectorOptions {
  client: RestClient;
  graph: DependencyGraph;
  recorder: EventRecorder;
  logger: Logger;
  /** attemptToDelete again (the workers' queue) */
  enqueueDelete(node: GraphNode): void;
}

export class GarbageCollector {
  readonly #o: GarbageCollectorOptions;
  /** served resources by `group/kind` (any version maps to the preferred one) */
  #byGroupKind = new Map<string, DiscoveredResource>();
  /** owners verified absent, by `namespace/uid` (kube's absentOwnerCache, an LRU) */
  readonly #absentOwners = new Map<string, true>();

  constructor(o: GarbageCollectorOptions) {
    this.#o = o;
  }

  /** the served resources; those of group/versions discovery could not read this time are kept */
  setResources(resources: readonly DiscoveredResource[], unreadable: ReadonlySet<string> = new Set()): void {
    const next = new Map(resources.map((r) => [`${r.group}/${r.kind}`, r]));
    for (const [key, r] of this.#byGroupKind) {
      if (!next.has(key) && unreadable.has(r.group ? `${r.group}/${r.version}` : r.version)) next.set(key, r);
    }
    this.#byGroupKind = next;
  }

  /** whether apiVersion/kind is namespaced; undefined when the server does not serve it */
  isNamespaced(apiVersion: string, kind: string): boolean | undefined {
    return this.#resourceOf(apiVersion, kind)?.namespaced;
  }

  #resourceOf(apiVersion: string, kind: string): DiscoveredResource | undefined {
    const slash = apiVersion.indexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    return this.#byGroupKind.get(`${group}/${kind}`);
  }

  #mustResource(id: { apiVersion: string; kind: string }): DiscoveredResource {
    const r = this.#resourceOf(id.apiVersion, id.kind);
    if (!r) throw new Error(`unable to get REST mapping for ${id.apiVersion}/${id.kind}`);
    return r;
  }

  async #getLive(id: ObjectIdentity): Promise<KubeObject | undefined> {
    const r = this.#mustResource(id);
    try {
      return await this.#o.client.get(r, r.namespaced ? id.namespace : undefined, id.name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** kube's attemptToDeleteItem */
  async attemptToDelete(item: GraphNode): Promise<void> {
    if (item.beingDeleted && !item.deletingDependents) return;
    const latest = await this.#getLive(item.identity);
    if (!latest || latest.metadata?.uid !== item.identity.uid) {
      // gone, or replaced by another object of the same name: drop the node, re-check its dependents
      item.observed = true;
      this.#o.graph.removeNode(item);
      throw new VirtualDeleteError();
    }
    if (item.deletingDependents) return this.#processDeletingDependents(item);
    const refs = latest.metadata?.ownerReferences ?? [];
    if (refs.length === 0) return;
    const { solid, dangling, waiting } = await this.#classify(item, refs);
    const log = this.#o.logger.child({ object: item.identity });
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      // kube: drop the references to absent owners and to owners waiting for us; the solid one keeps us
      const drop = new Set([...dangling, ...waiting].map((r) => r.uid));
      log.debug({ drop: [...drop] }, 'removing dangling and waiting owner references');
      await this.#patchOwnerRefs(item.identity, (rs) => rs.filter((r) => !drop.has(r.uid)));
      return;
    }
    if (waiting.length > 0 && item.dependents.size > 0) {
      // an owner waits for us and we have dependents: delete in the foreground too, so the owner
      // waits for our dependents through us; a dependent already deleting its own dependents could
      // make a cycle, so our blocking references are released first (kube's circle detection)
      if ([...item.dependents].some((d) => d.deletingDependents)) {
        await this.#patchOwnerRefs(item.identity, (rs) => rs.map((r) => (waiting.some((w) => w.uid === r.uid) ? { ...r, blockOwnerDeletion: false } : r)));
      }
      log.debug('deleting object with Foreground propagation');
      await this.#delete(item.identity, 'Foreground');
      return;
    }
    // no owner keeps the object: collect it as its own finalizers ask
    const policy = hasFinalizer(latest, ORPHAN_FINALIZER) ? 'Orphan' : hasFinalizer(latest, FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
    log.debug({ policy }, 'deleting object whose owners are all gone');
    await this.#delete(item.identity, policy);
  }

  /** an owner deleted in the foreground: free it once no blocking dependent is left */
  async #processDeletingDependents(item: GraphNode): Promise<void> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.#removeFinalizer(item.identity, FOREGROUND_FINALIZER);
      return;
    }
    for (const dep of blocking) if (!dep.deletingDependents) this.#o.enqueueDelete(dep);
  }

  /** kube's attemptToOrphan: drop every dependent's reference to the owner, then the orphan finalizer */
  async attemptToOrphan(owner: GraphNode): Promise<void> {
    const dependents = [...owner.dependents];
    const failures: unknown[] = [];
    await Promise.all(
      dependents.map(async (dep) => {
        try {
          await this.#patchOwnerRefs(dep.identity, (rs) => rs.filter((r) => r.uid !== owner.identity.uid));
        } catch (err) {
          failures.push(err);
        }
      }),
    );
    if (failures.length) throw new Error(`orphaning ${owner.identity.kind} ${owner.identity.name}: ${failures.map((e) => (e as Error).message).join('; ')}`);
    await this.#removeFinalizer(owner.identity, ORPHAN_FINALIZER);
  }

  /** solid owners exist and are not being deleted in the foreground; dangling ones are gone */
  async #classify(item: GraphNode, refs: readonly OwnerReference[]): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const owner = await this.#ownerOf(item, ref);
      if (!owner) dangling.push(ref);
      else if (owner.metadata?.deletionTimestamp && hasFinalizer(owner, FOREGROUND_FINALIZER)) waiting.push(ref);
      else solid.push(ref);
    }
    return { solid, dangling, waiting };
  }

  /** the live owner named by `ref`, or undefined when it is absent (kube's isDangling) */
  async #ownerOf(item: GraphNode, ref: OwnerReference): Promise<KubeObject | undefined> {
    const r = this.#mustResource(ref);
    if (r.namespaced && item.identity.namespace === '') {
      throw new NamespacedOwnerOfClusterScopedObjectError(`cluster-scoped ${item.identity.kind} ${item.identity.name} names a namespaced owner ${ref.kind} ${ref.name}`);
    }
    const namespace = r.namespaced ? item.identity.namespace : '';
    const cacheKey = `${namespace}/${ref.uid}`;
    if (this.#absentOwners.has(cacheKey)) return undefined;
    let owner: KubeObject | undefined;
    try {
      owner = await this.#o.client.get(r, r.namespaced ? namespace : undefined, ref.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!owner || owner.metadata?.uid !== ref.uid) {
      this.#rememberAbsent(cacheKey);
      return undefined;
    }
    return owner;
  }

  #rememberAbsent(key: string): void {
    this.#absentOwners.delete(key);
    this.#absentOwners.set(key, true);
    if (this.#absentOwners.size > ABSENT_OWNER_CACHE_SIZE) this.#absentOwners.delete(this.#absentOwners.keys().next().value as string);
  }

  async #delete(id: ObjectIdentity, propagationPolicy: 'Orphan' | 'Background' | 'Foreground'): Promise<void> {
    const r = this.#mustResource(id);
    try {
      await this.#o.client.delete(r, r.namespaced ? id.namespace : undefined, id.name, { propagationPolicy, preconditions: { uid: id.uid } });
    } catch (err) {
      // gone already, or replaced (the uid precondition failed): nothing of ours to delete
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
  }

  /** rewrite an object's ownerReferences from its newest state (a merge patch guarded by resourceVersion) */
  async #patchOwnerRefs(id: ObjectIdentity, change: (refs: OwnerReference[]) => OwnerReference[]): Promise<void> {
    const r = this.#mustResource(id);
    const ns = r.namespaced ? id.namespace : undefined;
    for (let attempt = 0; ; attempt++) {
      const live = await this.#getLive(id);
      if (!live || live.metadata?.uid !== id.uid) return;
      const before = live.metadata?.ownerReferences ?? [];
      const after = change([...before]);
      if (JSON.stringify(after) === JSON.stringify(before)) return;
      try {
        await this.#o.client.patch(r, ns, id.name, 'merge', {
          metadata: { ownerReferences: after.length ? after : null, uid: id.uid, resourceVersion: live.metadata?.resourceVersion },
        });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= CONFLICT_RETRIES) throw err;
      }
    }
  }

  async #removeFinalizer(id: ObjectIdentity, finalizer: string): Promise<void> {
    const r = this.#mustResource(id);
    const ns = r.namespaced ? id.namespace : undefined;
    for (let attempt = 0; ; attempt++) {
      const live = await this.#getLive(id);
      if (!live || live.metadata?.uid !== id.uid || !hasFinalizer(live, finalizer)) return;
      const finalizers = (live.metadata?.finalizers ?? []).filter((f) => f !== finalizer);
      try {
        await this.#o.client.patch(r, ns, id.name, 'merge', { metadata: { finalizers: finalizers.length ? finalizers : null, resourceVersion: live.metadata?.resourceVersion } });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= CONFLICT_RETRIES) throw err;
      }
    }
  }
}
