/**
 * An informer's local copy of a resource: objects by key (`namespace/name`), plus secondary
 * indexes kept in step with every change (client-go's cache.Indexer). Objects are shared, not
 * copied: whoever reads them must not change them.
 */
import { objectKey, type KubeObject } from './types';

/** the index values of an object (none, one or several) */
export type IndexFunc<T extends KubeObject = KubeObject> = (obj: T) => string[];

export const NAMESPACE_INDEX = 'namespace';
export const OWNER_UID_INDEX = 'ownerUid';
export const NODE_NAME_INDEX = 'nodeName';

/** by namespace (client-go's MetaNamespaceIndexFunc) */
export const byNamespace: IndexFunc = (obj) => (obj.metadata?.namespace ? [obj.metadata.namespace] : []);

/** by the uid of each owner */
export const byOwnerUid: IndexFunc = (obj) => (obj.metadata?.ownerReferences ?? []).map((r) => r.uid).filter((u) => !!u);

/** pods by spec.nodeName (unscheduled pods are not indexed) */
export const byNodeName: IndexFunc = (obj) => {
  const spec = obj.spec as { nodeName?: unknown } | undefined;
  return typeof spec?.nodeName === 'string' && spec.nodeName !== '' ? [spec.nodeName] : [];
};

export class Indexer<T extends KubeObject = KubeObject> {
  readonly #items = new Map<string, T>();
  readonly #indexers: Map<string, IndexFunc<T>>;
  /** index name -> value -> keys */
  readonly #indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc<T>> = {}) {
    this.#indexers = new Map(Object.entries(indexers));
    for (const name of this.#indexers.keys()) this.#indices.set(name, new Map());
  }

  /** add another index; existing objects are indexed at once */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.#indexers.has(name)) return;
    this.#indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.#indices.set(name, index);
    for (const [key, obj] of this.#items) for (const v of fn(obj)) addTo(index, v, key);
  }

  get size(): number {
    return this.#items.size;
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  getObject(namespace: string | undefined, name: string): T | undefined {
    return this.#items.get(namespace ? `${namespace}/${name}` : name);
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  /** the objects whose index `name` holds `value` */
  byIndex(name: string, value: string): T[] {
    const index = this.#indices.get(name);
    if (!index) throw new Error(`index "${name}" does not exist`);
    const keys = index.get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const obj = this.#items.get(k);
      if (obj) out.push(obj);
    }
    return out;
  }

  /** add or replace; returns the object it replaced */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.#items.get(key);
    if (old) this.#unindex(key, old);
    this.#items.set(key, obj);
    this.#index(key, obj);
    return old;
  }

  /** remove by the object's key; returns what was stored */
  remove(obj: T): T | undefined {
    return this.removeKey(objectKey(obj));
  }

  removeKey(key: string): T | undefined {
    const old = this.#items.get(key);
    if (!old) return undefined;
    this.#unindex(key, old);
    this.#items.delete(key);
    return old;
  }

  /** replace everything (after a list); returns the objects that are gone */
  replace(objs: readonly T[]): T[] {
    const incoming = new Set(objs.map(objectKey));
    const gone: T[] = [];
    for (const [key, obj] of this.#items) if (!incoming.has(key)) gone.push(obj);
    this.#items.clear();
    for (const index of this.#indices.values()) index.clear();
    for (const obj of objs) {
      const key = objectKey(obj);
      this.#items.set(key, obj);
      this.#index(key, obj);
    }
    return gone;
  }

  #index(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      for (const v of fn(obj)) addTo(index, v, key);
    }
  }

  #unindex(key: string, obj: T): void {
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      for (const v of fn(obj)) {
        const keys = index.get(v);
        keys?.delete(key);
        if (keys && keys.size === 0) index.delete(v);
      }
    }
  }
}

function addTo(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}
