/**
 * kube's assume cache (pkg/controller/volume/scheduling/scheduler_assume_cache.go): the informer's
 * objects, overlaid with versions the scheduler assumed in memory (a volume it chose for a claim, a
 * claim it gave a node) so that the next pod sees them before the API server does. An assumed
 * object gives way once the informer holds a newer resourceVersion, or when it is restored.
 */
import type { Indexer } from '../../../client/indexer';
import type { KubeObject } from '../../../client/types';

/** a resourceVersion as a number (they are decimal revisions); 0 when absent */
export function versionOf(obj: KubeObject | undefined): number {
  const rv = obj?.metadata?.resourceVersion;
  const n = rv ? Number(rv) : 0;
  return Number.isFinite(n) ? n : 0;
}

const keyOf = (obj: KubeObject) => (obj.metadata?.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata?.name ?? '');

export class AssumeCache {
  readonly #store: () => Indexer;
  readonly #assumed = new Map<string, KubeObject>();
  /** the type name kube prints in errors, e.g. `v1.PersistentVolume` */
  readonly description: string;

  constructor(store: () => Indexer, description: string) {
    this.#store = store;
    this.description = description;
  }

  /** the informer's object, ignoring assumptions (kube's GetAPIObj) */
  getAPI(key: string): KubeObject | undefined {
    return this.#store().get(key);
  }

  /** the newest object: an assumption unless the informer has caught up with it */
  get(key: string): KubeObject | undefined {
    const api = this.getAPI(key);
    const assumed = this.#assumed.get(key);
    if (!assumed) return api;
    if (!api || versionOf(api) > versionOf(assumed)) {
      this.#assumed.delete(key);
      return api;
    }
    return assumed;
  }

  /** every object, assumptions overlaid */
  list(): KubeObject[] {
    const store = this.#store();
    if (this.#assumed.size === 0) return store.list();
    return store.list().map((obj) => (this.#assumed.has(keyOf(obj)) ? this.get(keyOf(obj)) ?? obj : obj));
  }

  /** kube's Assume: refused for an unknown object or one older than what is stored */
  assume(obj: KubeObject): void {
    const key = keyOf(obj);
    const stored = this.get(key);
    if (!stored) throw new Error(`could not find ${this.description} "${key}"`);
    if (versionOf(obj) < versionOf(stored)) {
      throw new Error(`${this.description} "${key}" is out of sync (stored: ${versionOf(stored)}, assume: ${versionOf(obj)})`);
    }
    this.#assumed.set(key, obj);
  }

  /** drop the assumption: the informer's object counts again */
  restore(key: string): void {
    this.#assumed.delete(key);
  }

  isAssumed(key: string): boolean {
    return this.#assumed.has(key);
  }
}

export { keyOf as objectKeyOf };
