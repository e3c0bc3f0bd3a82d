/**
 * The watch caches of a server, one per served kind version over its storage location, started on
 * first use (kube starts every cacher at startup; starting lazily keeps start-to-ready short with a
 * large database, at the cost of the first cached read of a resource paying for the initial list).
 * Sizes follow kube's flags: --watch-cache=false turns every cache off, --watch-cache-sizes
 * `resource[.group]#size` sets one resource's window (0 = no cache for it), and
 * --default-watch-cache-size the others' (0 = no cache).
 */
import type { Logger } from 'pino';
import type { Store } from '../storage/store';
import { StorageError } from '../storage/store';
import { WatchCache } from './watch-cache';

export interface WatchCacheSettings {
  /** --watch-cache (default true) */
  enabled: boolean;
  /** --default-watch-cache-size (default 100) */
  defaultSize: number;
  /** --watch-cache-sizes, parsed: `resource` or `resource.group` -> size */
  sizes: ReadonlyMap<string, number>;
  /** the store delivers watch events inside each commit (see WatchCacheOptions.deliversAtCommit) */
  deliversAtCommit?: boolean;
}

export const DEFAULT_WATCH_CACHE_SETTINGS: WatchCacheSettings = Object.freeze({ enabled: true, defaultSize: 100, sizes: new Map() });

/** parse --watch-cache-sizes entries (`deployments.apps#1000`); throws on a malformed one */
export function parseWatchCacheSizes(entries: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const entry of entries) {
    if (entry === '') continue;
    const m = /^([a-z0-9.-]+)#(\d+)$/.exec(entry.trim());
    if (!m) throw new Error(`invalid value of watch cache size: ${entry} (expected resource[.group]#size)`);
    sizes.set(m[1], Number(m[2]));
  }
  return sizes;
}

/** what the registry needs to know about a kind to cache it */
export interface CacheableKind {
  /** `resource` for the core group, else `resource.group` (the flag's spelling) */
  qualifiedResource: string;
  /** one cache per served version: e.g. `apps/v1/Deployment` */
  id: string;
  prefix: string;
  decode(value: string, revision: number): object;
  /** see WatchCacheOptions.triggerOf */
  triggerOf?(object: object): string | undefined;
  /**
   * what the cache was made for (a KindDefinition): a cache made for another owner under the same
   * id is replaced, so a kind redefined at runtime (a custom resource's new schema) never reads
   * through its predecessor's decoder
   */
  owner?: object;
}

export interface WatchCachesOptions {
  store: Store;
  settings: WatchCacheSettings;
  /** see WatchCacheOptions.deliversAtCommit */
  deliversAtCommit?: boolean;
  logger?: Logger;
}

export class WatchCaches {
  readonly #o: WatchCachesOptions;
  readonly #caches = new Map<string, WatchCache>();
  readonly #owners = new Map<string, object | undefined>();

  constructor(options: WatchCachesOptions) {
    this.#o = options;
  }

  /** the window size for a resource, 0 when it is not cached */
  sizeFor(qualifiedResource: string): number {
    const s = this.#o.settings;
    if (!s.enabled) return 0;
    return s.sizes.get(qualifiedResource) ?? s.defaultSize;
  }

  /** the (loaded) cache of a kind, or undefined when the kind is not cached */
  async forKind(kind: CacheableKind): Promise<WatchCache | undefined> {
    let cache = this.#caches.get(kind.id);
    if (cache && this.#owners.get(kind.id) !== kind.owner) {
      this.drop(kind.id);
      cache = undefined;
    }
    if (!cache) {
      const size = this.sizeFor(kind.qualifiedResource);
      if (size <= 0) return undefined;
      cache = new WatchCache({
        // with --etcd-servers-overrides the kind's store has revisions of its own
        store: this.#o.store.storeFor?.(kind.prefix) ?? this.#o.store,
        prefix: kind.prefix,
        windowSize: size,
        decode: kind.decode,
        triggerOf: kind.triggerOf,
        deliversAtCommit: this.#o.deliversAtCommit ?? this.#o.settings.deliversAtCommit,
        logger: this.#o.logger,
      });
      this.#caches.set(kind.id, cache);
      this.#owners.set(kind.id, kind.owner);
    }
    await cache.ready();
    return cache;
  }

  /** the cache of a kind if it is already loaded and following the store (never starts one) */
  loaded(id: string): WatchCache | undefined {
    const cache = this.#caches.get(id);
    return cache?.isReady() ? cache : undefined;
  }

  /** the ids of the caches started */
  ids(): string[] {
    return [...this.#caches.keys()];
  }

  /** the owner a cache was made for */
  ownerOf(id: string): object | undefined {
    return this.#owners.get(id);
  }

  /** retire one cache: its watchers end (and re-watch, as after any closed stream); the next read starts a new one */
  drop(id: string): void {
    const cache = this.#caches.get(id);
    if (!cache) return;
    this.#caches.delete(id);
    this.#owners.delete(id);
    cache.stop(new StorageError('Closed', `watch cache ${id} retired`));
  }

  stop(): void {
    for (const c of this.#caches.values()) c.stop();
    this.#caches.clear();
    this.#owners.clear();
  }
}
