/**
 * The watch cache of one resource (kube's Cacher + watchCache): the current objects of a storage
 * prefix, decoded once, and a window of the most recent events, fed by one store watch. It serves
 * reads that accept a possibly stale answer (resourceVersion "0" = Any, and NotOlderThan) and watch
 * starts inside the window; consistent and Exact reads stay with the store (see the registry).
 *
 * Objects and events handed out are shared by every reader and watcher (marked with markShared, so
 * their encodings are memoized once per media type): callers must never mutate them.
 */
import type { Logger } from 'pino';
import type { Revision, Store, StoreEvent, StorageError, Watch } from '../storage/store';
import { markShared } from './encoded';
import { SortedKeys } from './sorted-keys';

export type CachedEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** one change as the cache saw it, decoded once */
export interface CachedEvent {
  readonly type: CachedEventType;
  readonly key: string;
  readonly revision: Revision;
  /** ADDED/MODIFIED: the new state; DELETED: the last state, at the revision of the deletion */
  readonly object: object;
  /** the state before (MODIFIED, DELETED); for selectors on both sides of a change */
  readonly prevObject?: object;
  /** the wire event `{type, object}`, shared by every watcher that takes it unchanged */
  readonly wire: { type: CachedEventType; object: object };
}

export interface CacheListener {
  onEvent(event: CachedEvent): void;
  /** the cache lost its store watch (compaction, fell behind, store closing): no events follow */
  onError(err: StorageError): void;
  /** every event up to revision has been delivered */
  onProgress?(revision: Revision): void;
}

export interface CacheSubscription {
  cancel(): void;
}

export interface WatchCacheOptions {
  store: Store;
  /** the storage prefix this cache mirrors (a resource's location, ending in '/') */
  prefix: string;
  /** events kept for watches that start in the recent past (kube's --watch-cache-sizes) */
  windowSize: number;
  /** stored value + revision -> the object served (decoding, defaulting, resourceVersion) */
  decode(value: string, revision: Revision): object;
  /**
   * the store calls onEvent synchronously inside each commit, before any other code runs (the SQLite
   * store does): once caught up, the cache is then exactly as fresh as store.currentRevision().
   * Otherwise the cache only knows the revisions its events and progress notifications told it.
   */
  deliversAtCommit?: boolean;
  logger?: Logger;
}

interface Entry {
  object: object;
  revision: Revision;
}

interface Subscriber {
  prefix: string;
  listener: CacheListener;
}

export class WatchCache {
  readonly #o: WatchCacheOptions;
  readonly #objects = new Map<string, Entry>();
  readonly #keys = new SortedKeys();
  readonly #window: CachedEvent[] = [];
  readonly #subscribers = new Set<Subscriber>();
  #waiters: { revision: Revision; resolve: (ok: boolean) => void }[] = [];
  #storeWatch?: Watch;
  #loading?: Promise<void>;
  /** every event up to here has been applied */
  #revision = 0;
  /** the window holds every event after this revision */
  #windowStart = 0;
  /** the store watch delivers commits as they happen: the cache is as fresh as the store */
  #live = false;
  #failed = false;
  #stopped = false;

  constructor(options: WatchCacheOptions) {
    this.#o = options;
  }

  /** load the current state and start following the store (once; again after a failure) */
  ready(): Promise<void> {
    if (this.#stopped) return Promise.reject(new Error('watch cache stopped'));
    if (!this.#loading || this.#failed) this.#loading = this.#load();
    return this.#loading;
  }

  /** loaded and following the store */
  isReady(): boolean {
    return this.#loading !== undefined && !this.#failed && !this.#stopped && this.#storeWatch !== undefined;
  }

  /** the newest revision the cache is known to reflect */
  revision(): Revision {
    return this.#live ? Math.max(this.#revision, this.#o.store.currentRevision()) : this.#revision;
  }

  /** kube's waitUntilFreshAndBlock: resolves true once the cache reflects revision, false after timeoutMs */
  waitFresh(revision: Revision, timeoutMs: number): Promise<boolean> {
    if (this.revision() >= revision) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = { revision, resolve };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(this.revision() >= revision);
      }, timeoutMs);
      waiter.resolve = (ok) => {
        clearTimeout(timer);
        resolve(ok);
      };
      this.#waiters.push(waiter);
    });
  }

  /** the object at key, as of revision() */
  get(key: string): { object: object; revision: Revision } | undefined {
    return this.#objects.get(key);
  }

  /** every object under prefix, in key order, as of the returned revision */
  list(prefix: string): { objects: object[]; revision: Revision } {
    const objects: object[] = [];
    for (const key of this.#keys.withPrefix(prefix)) objects.push(this.#objects.get(key)!.object);
    return { objects, revision: this.revision() };
  }

  get size(): number {
    return this.#objects.size;
  }

  /** the oldest revision a watch may start after and be served from the window */
  windowStart(): Revision {
    return this.#windowStart;
  }

  /**
   * deliver events after `after` under prefix: first those in the window, then live ones. Returns
   * undefined when after is older than the window (the caller reads the store's history instead).
   */
  subscribe(after: Revision, prefix: string, listener: CacheListener): CacheSubscription | undefined {
    if (after < this.#windowStart || this.#failed) return undefined;
    const sub: Subscriber = { prefix, listener };
    for (const e of this.#window) {
      if (e.revision > after && e.key.startsWith(prefix)) listener.onEvent(e);
    }
    this.#subscribers.add(sub);
    return { cancel: () => this.#subscribers.delete(sub) };
  }

  stop(): void {
    this.#stopped = true;
    this.#storeWatch?.cancel();
    this.#subscribers.clear();
    for (const w of this.#waiters.splice(0)) w.resolve(false);
  }

  async #load(): Promise<void> {
    this.#storeWatch?.cancel();
    this.#failed = false;
    this.#live = false;
    this.#objects.clear();
    this.#keys.clear();
    this.#window.length = 0;
    const { store, prefix } = this.#o;
    const res = await store.list(prefix);
    for (const kv of res.items) {
      this.#objects.set(kv.key, { object: markShared(this.#o.decode(kv.value, kv.modRevision)), revision: kv.modRevision });
    }
    this.#keys.reset(res.items.map((kv) => kv.key));
    this.#revision = res.revision;
    this.#windowStart = res.revision;
    this.#storeWatch = store.watch({
      afterRevision: res.revision,
      prefix,
      onEvent: (ev) => this.#apply(ev),
      onError: (err) => this.#fail(err),
      onProgress: (rev) => this.#progress(rev, true, true),
    });
  }

  #apply(ev: StoreEvent): void {
    let event: CachedEvent;
    try {
      event = this.#toCached(ev);
    } catch (err) {
      // a value that does not decode is skipped (kube's cacher logs and drops it too)
      this.#o.logger?.error({ err, key: ev.key }, 'watch cache: cannot decode a stored object');
      this.#progress(ev.revision, false, false);
      return;
    }
    if (event.type === 'DELETED') {
      this.#objects.delete(ev.key);
      this.#keys.delete(ev.key);
    } else {
      if (!this.#objects.has(ev.key)) this.#keys.insert(ev.key);
      this.#objects.set(ev.key, { object: event.object, revision: ev.revision });
    }
    this.#window.push(event);
    if (this.#window.length > this.#o.windowSize) this.#windowStart = this.#window.shift()!.revision;
    for (const s of this.#subscribers) {
      if (!ev.key.startsWith(s.prefix)) continue;
      try {
        s.listener.onEvent(event);
      } catch (err) {
        this.#o.logger?.warn({ err }, 'watch cache listener threw');
      }
    }
    // an event at the store's newest revision means the store watch is delivering as commits happen
    this.#progress(ev.revision, ev.revision >= this.#o.store.currentRevision(), false);
  }

  #toCached(ev: StoreEvent): CachedEvent {
    const prev = this.#objects.get(ev.key)?.object;
    if (ev.type === 'DELETED') {
      const last = markShared(this.#o.decode(ev.prevValue ?? ev.value, ev.revision));
      return { type: 'DELETED', key: ev.key, revision: ev.revision, object: last, prevObject: prev ?? last, wire: markShared({ type: 'DELETED', object: last }) };
    }
    const object = markShared(this.#o.decode(ev.value, ev.revision));
    const type: CachedEventType = ev.type === 'ADDED' || prev === undefined ? 'ADDED' : 'MODIFIED';
    return { type, key: ev.key, revision: ev.revision, object, prevObject: type === 'MODIFIED' ? prev : undefined, wire: markShared({ type, object }) };
  }

  /** the cache reflects revision; live: the store watch has caught up; broadcast: tell watchers (bookmarks) */
  #progress(revision: Revision, live: boolean, broadcast: boolean): void {
    if (live && this.#o.deliversAtCommit) this.#live = true;
    if (revision > this.#revision) this.#revision = revision;
    const now = this.revision();
    if (this.#waiters.length > 0) {
      const due = this.#waiters.filter((w) => w.revision <= now);
      this.#waiters = this.#waiters.filter((w) => w.revision > now);
      for (const w of due) w.resolve(true);
    }
    if (!broadcast) return;
    for (const s of this.#subscribers) s.listener.onProgress?.(now);
  }

  #fail(err: StorageError): void {
    // the next reader reloads; current watchers end (they relist, as after any 410)
    this.#failed = true;
    this.#live = false;
    const subs = [...this.#subscribers];
    this.#subscribers.clear();
    for (const s of subs) {
      try {
        s.listener.onError(err);
      } catch (e) {
        this.#o.logger?.warn({ err: e }, 'watch cache listener threw');
      }
    }
  }
}
