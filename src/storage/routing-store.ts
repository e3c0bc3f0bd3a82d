/**
 * --etcd-servers-overrides: some resources live in stores of their own. Each store keeps its own
 * revision sequence, as separate etcd clusters do for kube-apiserver, so the resourceVersions of an
 * overridden resource come from its store. Keyed calls (get, create, update, delete) and prefix calls
 * (list, count, watch) go to the store whose route prefix begins the key or prefix (the longest
 * such), the default store otherwise. Revision-wide calls (currentRevision, compactRevision,
 * waitForRevision, compact) answer for the default store: callers that read the revisions of a
 * resource ask storeFor(prefix) for its store first.
 */
import type { KeyValue, ListOptions, ListResult, Revision, Store, Watch, WatchOptions } from './store';

export interface StoreRoute {
  /** a key prefix such as `/registry/core/events/` */
  readonly prefix: string;
  readonly store: Store;
}

export class RoutingStore implements Store {
  readonly #fallback: Store;
  /** longest prefix first, so the most specific route wins */
  readonly #routes: readonly StoreRoute[];

  constructor(options: { fallback: Store; routes: readonly StoreRoute[] }) {
    this.#fallback = options.fallback;
    this.#routes = [...options.routes].sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** every store, the default first */
  stores(): Store[] {
    return [this.#fallback, ...this.#routes.map((r) => r.store)];
  }

  storeFor(prefix: string): Store {
    return this.#routes.find((r) => prefix.startsWith(r.prefix))?.store ?? this.#fallback;
  }

  currentRevision(): Revision {
    return this.#fallback.currentRevision();
  }
  compactRevision(): Revision {
    return this.#fallback.compactRevision();
  }
  get(key: string, revision?: Revision): Promise<KeyValue | undefined> {
    return this.storeFor(key).get(key, revision);
  }
  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.storeFor(prefix).list(prefix, options);
  }
  count(prefix: string): Promise<number> {
    return this.storeFor(prefix).count(prefix);
  }
  create(key: string, value: string): Promise<KeyValue> {
    return this.storeFor(key).create(key, value);
  }
  update(key: string, value: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.storeFor(key).update(key, value, expectedRevision);
  }
  delete(key: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.storeFor(key).delete(key, expectedRevision);
  }
  watch(options: WatchOptions): Watch {
    return this.storeFor(options.prefix).watch(options);
  }
  waitForRevision(revision: Revision, timeoutMs: number): Promise<boolean> {
    return this.#fallback.waitForRevision(revision, timeoutMs);
  }
  async ping(): Promise<void> {
    await Promise.all(this.stores().map((s) => s.ping()));
  }
  async writable(): Promise<void> {
    await Promise.all(this.stores().map((s) => s.writable?.()));
  }
  compact(revision: Revision): Promise<number> {
    return this.#fallback.compact(revision);
  }
  async close(): Promise<void> {
    await Promise.all(this.stores().map((s) => s.close()));
  }
}
