/**
 * A shared informer (client-go's reflector + DeltaFIFO + sharedIndexInformer, folded into one
 * loop): list the resource, keep the list in an Indexer, then watch from the list's
 * resourceVersion with bookmarks, and tell every handler what changed. When the server says the
 * resourceVersion is too old (410 Expired, as an HTTP answer or an ERROR event), relist and report
 * the difference; when the connection drops, watch again from the last version seen, backing off
 * while the server is unreachable. Handlers that asked for it get every object again each resync
 * period (as update(obj, obj)), the way controllers re-check their world.
 */
import type { Logger } from 'pino';
import { ApiError, isResourceExpired } from './errors';
import { Indexer, type IndexFunc } from './indexer';
import type { RestClient } from './rest-client';
import { sleep } from './sleep';
import { objectKey, type KubeObject, type ResourceRef } from './types';

export interface EventHandlers<T extends KubeObject = KubeObject> {
  add?(obj: T, isInInitialList: boolean): void;
  update?(oldObj: T, newObj: T): void;
  /** `finalStateUnknown`: the object vanished while we were not watching (seen at a relist) */
  delete?(obj: T, finalStateUnknown: boolean): void;
}

export interface InformerOptions<T extends KubeObject = KubeObject> {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  indexers?: Record<string, IndexFunc<T>>;
  /** default resync period of handlers, in ms (0: none) */
  resyncMs?: number;
  /** objects per page of the initial list */
  pageSize?: number;
  logger?: Logger;
  /** client-go's minWatchTimeout: each watch asks for a random timeout between this and twice this (seconds) */
  minWatchTimeoutSeconds?: number;
}

interface Listener<T extends KubeObject> {
  handlers: EventHandlers<T>;
  resyncMs: number;
  nextResync: number;
}

const BACKOFF_INITIAL_MS = 800;
const BACKOFF_MAX_MS = 30_000;

export class SharedInformer<T extends KubeObject = KubeObject> {
  readonly ref: ResourceRef;
  readonly store: Indexer<T>;
  readonly #client: RestClient;
  readonly #opts: InformerOptions<T>;
  readonly #listeners: Listener<T>[] = [];
  #synced = false;
  #syncWaiters: (() => void)[] = [];
  #resourceVersion = '';
  #running = false;

  constructor(client: RestClient, ref: ResourceRef, opts: InformerOptions<T> = {}) {
    this.#client = client;
    this.ref = ref;
    this.#opts = opts;
    this.store = new Indexer<T>(opts.indexers ?? {});
  }

  /** add a handler; one added after the initial list gets an add for every object already known */
  addEventHandler(handlers: EventHandlers<T>, resyncMs = this.#opts.resyncMs ?? 0): void {
    const listener: Listener<T> = { handlers, resyncMs, nextResync: Date.now() + resyncMs };
    this.#listeners.push(listener);
    if (this.#synced) for (const obj of this.store.list()) handlers.add?.(obj, true);
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.store.addIndexer(name, fn);
  }

  get hasSynced(): boolean {
    return this.#synced;
  }

  /** the resourceVersion of the last list, watch event or bookmark */
  get lastSyncResourceVersion(): string {
    return this.#resourceVersion;
  }

  /** resolves once the initial list is in the store and every handler has seen it */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.#synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => resolve(this.#synced);
      this.#syncWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** list and watch until the signal aborts */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error(`informer for ${this.ref.resource} is already running`);
    this.#running = true;
    const resync = this.#startResync(signal);
    let backoff = BACKOFF_INITIAL_MS;
    let needList = true;
    try {
      while (!signal.aborted) {
        try {
          if (needList) {
            await this.#listAll(signal);
            needList = false;
          }
          await this.#watchOnce(signal);
          backoff = BACKOFF_INITIAL_MS;
        } catch (err) {
          if (signal.aborted) break;
          if (isResourceExpired(err)) {
            this.#opts.logger?.debug({ resource: this.ref.resource }, 'watch resourceVersion expired: listing again');
            needList = true;
            continue;
          }
          this.#opts.logger?.info({ resource: this.ref.resource, err: (err as Error).message }, 'list or watch failed; retrying');
          await sleep(backoff * (1 + Math.random()), signal);
          backoff = Math.min(BACKOFF_MAX_MS, backoff * 2);
        }
      }
    } finally {
      clearInterval(resync);
      this.#running = false;
      for (const w of this.#syncWaiters.splice(0)) w();
    }
  }

  async #listAll(signal: AbortSignal): Promise<void> {
    const items: T[] = [];
    let cont: string | undefined;
    let rv = '';
    const limit = this.#opts.pageSize ?? 500;
    for (;;) {
      let page;
      try {
        page = await this.#client.list<T>(this.ref, this.#opts.namespace, {
          labelSelector: this.#opts.labelSelector,
          fieldSelector: this.#opts.fieldSelector,
          limit,
          continue: cont,
          signal,
        });
      } catch (err) {
        // the continue token outlived compaction: start over with one full list, as client-go does
        if (cont && isResourceExpired(err)) {
          items.length = 0;
          cont = undefined;
          page = await this.#client.list<T>(this.ref, this.#opts.namespace, { labelSelector: this.#opts.labelSelector, fieldSelector: this.#opts.fieldSelector, signal });
        } else {
          throw err;
        }
      }
      items.push(...page.items);
      rv = page.metadata?.resourceVersion ?? rv;
      cont = page.metadata?.continue || undefined;
      if (!cont) break;
    }
    const before = new Map(this.store.list().map((o) => [objectKey(o), o]));
    const gone = this.store.replace(items);
    this.#resourceVersion = rv;
    const initial = !this.#synced;
    for (const obj of items) {
      const old = before.get(objectKey(obj));
      if (!old) this.#emit((h) => h.add?.(obj, initial));
      else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.#emit((h) => h.update?.(old, obj));
    }
    for (const obj of gone) this.#emit((h) => h.delete?.(obj, true));
    if (!this.#synced) {
      this.#synced = true;
      for (const w of this.#syncWaiters.splice(0)) w();
    }
  }

  async #watchOnce(signal: AbortSignal): Promise<void> {
    const min = this.#opts.minWatchTimeoutSeconds ?? 300;
    const events = this.#client.watch<T>(this.ref, this.#opts.namespace, {
      resourceVersion: this.#resourceVersion,
      labelSelector: this.#opts.labelSelector,
      fieldSelector: this.#opts.fieldSelector,
      allowWatchBookmarks: true,
      timeoutSeconds: Math.floor(min * (1 + Math.random())),
      signal,
    });
    for await (const e of events) {
      if (e.type === 'ERROR') {
        const status = e.object as unknown as { code?: number; reason?: string; message?: string };
        throw new ApiError(status.code ?? 500, { kind: 'Status', ...status });
      }
      const rv = e.object.metadata?.resourceVersion;
      if (e.type === 'BOOKMARK') {
        if (rv) this.#resourceVersion = rv;
        continue;
      }
      const obj = e.object;
      if (e.type === 'ADDED' || e.type === 'MODIFIED') {
        const old = this.store.upsert(obj);
        if (old) this.#emit((h) => h.update?.(old, obj));
        else this.#emit((h) => h.add?.(obj, false));
      } else if (e.type === 'DELETED') {
        const old = this.store.remove(obj);
        this.#emit((h) => h.delete?.(old ?? obj, false));
      }
      if (rv) this.#resourceVersion = rv;
    }
  }

  #emit(call: (h: EventHandlers<T>) => void): void {
    for (const l of this.#listeners) {
      try {
        call(l.handlers);
      } catch (err) {
        this.#opts.logger?.error({ resource: this.ref.resource, err }, 'event handler failed');
      }
    }
  }

  #startResync(signal: AbortSignal): NodeJS.Timeout {
    const timer = setInterval(() => {
      if (signal.aborted || !this.#synced) return;
      const now = Date.now();
      for (const l of this.#listeners) {
        if (l.resyncMs <= 0 || now < l.nextResync) continue;
        l.nextResync = now + l.resyncMs;
        for (const obj of this.store.list()) {
          try {
            l.handlers.update?.(obj, obj);
          } catch (err) {
            this.#opts.logger?.error({ resource: this.ref.resource, err }, 'event handler failed on resync');
          }
        }
      }
    }, 1000);
    timer.unref();
    return timer;
  }
}
