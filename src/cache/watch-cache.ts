/**
 * The watch cache of one resource (kube's Cacher + watchCache): the current objects of a storage
 * prefix, decoded once, and a window of the most recent events, fed by one store watch. It serves
 * reads that accept a possibly stale answer (resourceVersion "0" = Any, and NotOlderThan) and watch
 * starts inside the window; consistent and Exact reads stay with the store (see the registry).
 *
 * The current objects are held as compact JSON bytes (one copy each, off the V8 heap: the memory of
 * a large collection is about its encoded size); reads decode them on demand, and a list hands out
 * the bytes so the JSON encoder can splice them without decoding. Objects and events handed out are
 * shared by every reader and watcher (marked with markShared, so their encodings are memoized once
 * per media type): callers must never mutate them.
 */
import type { Logger } from 'pino';
import type { Revision, Store, StoreEvent, StorageError, Watch } from '../storage/store';
import { prefixRange } from '../storage/revlog/key-range';
import { decodeShared, jsonBytes, markShared } from './encoded';
import { SortedKeys } from './sorted-keys';

export type CachedEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** one change as the cache saw it, decoded once */
export class CachedEvent {
  #prev?: Buffer | object;
  /** the wire event `{type, object}`, shared by every watcher that takes it unchanged */
  readonly wire: { type: CachedEventType; object: object };

  constructor(
    readonly type: CachedEventType,
    readonly key: string,
    readonly revision: Revision,
    /** ADDED/MODIFIED: the new state; DELETED: the last state, at the revision of the deletion */
    readonly object: object,
    /** the state before (MODIFIED, DELETED), as the cache held it */
    prev?: Buffer | object,
  ) {
    this.#prev = prev;
    this.wire = markShared({ type, object });
  }

  /** the state before (MODIFIED, DELETED); for selectors on both sides of a change (decoded once, on demand) */
  get prevObject(): object | undefined {
    if (Buffer.isBuffer(this.#prev)) this.#prev = decodeShared(this.#prev);
    return this.#prev;
  }
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
  /**
   * the kind's watch trigger value of an object (kube's IndexedTrigger): watchers that subscribe with
   * a trigger value get only the events whose object had or has that value
   */
  triggerOf?(object: object): string | undefined;
  logger?: Logger;
}

interface Entry {
  /** the object's compact JSON, as served */
  json: Buffer;
  revision: Revision;
}

interface Subscriber {
  prefix: string;
  listener: CacheListener;
  /** only events whose object's trigger value (before or after) is this one */
  trigger?: string;
}

export class WatchCache {
  readonly #o: WatchCacheOptions;
  readonly #objects = new Map<string, Entry>();
  readonly #keys = new SortedKeys();
  readonly #window: CachedEvent[] = [];
  readonly #subscribers = new Set<Subscriber>();
  /** the subscribers with a trigger value, by value (the others are in #untriggered) */
  readonly #byTrigger = new Map<string, Set<Subscriber>>();
  readonly #untriggered = new Set<Subscriber>();
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

  /** the object at key, as of revision() (decoded from the cache's bytes: shared, read-only) */
  get(key: string): { object: object; revision: Revision } | undefined {
    const e = this.#objects.get(key);
    return e && { object: decodeShared(e.json), revision: e.revision };
  }

  /** the compact JSON of the object at key and the revision that wrote it */
  encoded(key: string): Readonly<Entry> | undefined {
    return this.#objects.get(key);
  }

  /** the compact JSON of every object under prefix, in key order, as of the returned revision */
  list(prefix: string): { items: Buffer[]; revision: Revision } {
    const items: Buffer[] = [];
    for (const key of this.#keys.withPrefix(prefix)) items.push(this.#objects.get(key)!.json);
    return { items, revision: this.revision() };
  }

  /**
   * how many keys under prefix are >= fromKey at `revision` (the remainingItemCount of a page read
   * at that revision): the current count, with the window's creations and deletions after the
   * revision taken back. Undefined when the revision is outside what the cache knows.
   */
  countFrom(prefix: string, fromKey: string, revision: Revision): number | undefined {
    if (this.#failed || revision < this.#windowStart || revision > this.revision()) return undefined;
    const range = prefixRange(prefix, fromKey);
    let n = this.#keys.countBetween(range.from, range.to);
    for (let i = this.#window.length - 1; i >= 0 && this.#window[i].revision > revision; i--) {
      const e = this.#window[i];
      if (e.key < fromKey || !e.key.startsWith(prefix)) continue;
      if (e.type === 'ADDED') n--;
      else if (e.type === 'DELETED') n++;
    }
    return n;
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
  subscribe(after: Revision, prefix: string, listener: CacheListener, trigger?: string): CacheSubscription | undefined {
    if (after < this.#windowStart || this.#failed) return undefined;
    const sub: Subscriber = { prefix, listener, trigger: this.#o.triggerOf ? trigger : undefined };
    for (const e of this.#window) {
      if (e.revision > after && e.key.startsWith(prefix)) listener.onEvent(e);
    }
    this.#subscribers.add(sub);
    if (sub.trigger === undefined) this.#untriggered.add(sub);
    else {
      let set = this.#byTrigger.get(sub.trigger);
      if (!set) this.#byTrigger.set(sub.trigger, (set = new Set()));
      set.add(sub);
    }
    return { cancel: () => this.#unsubscribe(sub) };
  }

  #unsubscribe(sub: Subscriber): void {
    this.#subscribers.delete(sub);
    this.#untriggered.delete(sub);
    if (sub.trigger === undefined) return;
    const set = this.#byTrigger.get(sub.trigger);
    set?.delete(sub);
    if (set?.size === 0) this.#byTrigger.delete(sub.trigger);
  }

  /** take every subscriber away (they are told by the caller, or not at all) */
  #dropSubscribers(): Subscriber[] {
    const subs = [...this.#subscribers];
    this.#subscribers.clear();
    this.#untriggered.clear();
    this.#byTrigger.clear();
    return subs;
  }

  /** the subscribers an event is for: all, or with triggers the untriggered and those of its values */
  #audience(event: CachedEvent): Iterable<Subscriber> {
    const triggerOf = this.#o.triggerOf;
    if (!triggerOf || this.#byTrigger.size === 0) return this.#subscribers;
    const now = triggerOf(event.object);
    const before = event.type === 'ADDED' ? now : triggerOf(event.prevObject ?? event.object);
    const out: Subscriber[] = [...this.#untriggered];
    for (const value of before === now ? [now] : [now, before]) {
      const set = value === undefined ? undefined : this.#byTrigger.get(value);
      if (set) for (const s of set) out.push(s);
    }
    return out;
  }

  /**
   * stop following the store. With `reason`, current watchers get it as their error (they end, as
   * after a closed store) instead of being dropped silently: a cache retired while the server runs
   * (its kind replaced) must not leave watches open on nothing.
   */
  stop(reason?: StorageError): void {
    this.#stopped = true;
    this.#storeWatch?.cancel();
    const subs = this.#dropSubscribers();
    for (const w of this.#waiters.splice(0)) w.resolve(false);
    if (!reason) return;
    for (const s of subs) {
      try {
        s.listener.onError(reason);
      } catch (e) {
        this.#o.logger?.warn({ err: e }, 'watch cache listener threw');
      }
    }
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
      this.#objects.set(kv.key, { json: jsonBytes(markShared(this.#o.decode(kv.value, kv.modRevision))), revision: kv.modRevision });
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
    // nothing was committed between the list and the watch: a store that delivers at commit keeps
    // the cache exactly as fresh as itself from here on (no need to wait for a first event)
    if (this.#o.deliversAtCommit && res.revision === store.currentRevision()) this.#live = true;
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
      // the event's object memoizes the same bytes, so its watch frames reuse them
      this.#objects.set(ev.key, { json: jsonBytes(event.object), revision: ev.revision });
    }
    this.#window.push(event);
    if (this.#window.length > this.#o.windowSize) this.#windowStart = this.#window.shift()!.revision;
    for (const s of this.#audience(event)) {
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
    const prev = this.#objects.get(ev.key)?.json;
    if (ev.type === 'DELETED') {
      const last = markShared(this.#o.decode(ev.prevValue ?? ev.value, ev.revision));
      return new CachedEvent('DELETED', ev.key, ev.revision, last, prev ?? last);
    }
    const object = markShared(this.#o.decode(ev.value, ev.revision));
    const type: CachedEventType = ev.type === 'ADDED' || prev === undefined ? 'ADDED' : 'MODIFIED';
    return new CachedEvent(type, ev.key, ev.revision, object, type === 'MODIFIED' ? prev : undefined);
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
    const subs = this.#dropSubscribers();
    for (const s of subs) {
      try {
        s.listener.onError(err);
      } catch (e) {
        this.#o.logger?.warn({ err: e }, 'watch cache listener threw');
      }
    }
  }
}
