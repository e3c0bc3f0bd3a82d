/**
 * WATCH, with kube's start modes (spec 4.7): rv unset or "0" = Get State and Start at Most Recent /
 * Any (synthetic ADDED events for the current objects, then changes); another rv = Start at Exact
 * (changes after it; a compacted rv is a 410 ERROR event on the open stream, as kube sends it);
 * sendInitialEvents (with resourceVersionMatch=NotOlderThan) for the watch-list mode, ending the
 * initial events with a BOOKMARK annotated `k8s.io/initial-events-end`.
 *
 * Selectors apply to both sides of a change, as kube's cacher does: an object that stops matching
 * is sent as DELETED (its new state), one that starts matching as ADDED. BOOKMARKs (when allowed)
 * carry only metadata.resourceVersion, at most every bookmarkIntervalMs, and only when the
 * revision moved.
 *
 * Events are delivered after the returned promise resolves; errors known before the stream starts
 * (options, selectors, resourceVersion syntax, a future rv never reached) reject it instead.
 */
import { ApiError, errors } from '../errors';
import type { Status } from '../errors';
import { apiVersionOf } from '../scheme';
import { isStorageError } from '../../storage/store';
import type { StorageError, StoreEvent } from '../../storage/store';
import type { CachedEvent, WatchCache } from '../../cache/watch-cache';
import { asObject, cacheFor, decoderFor } from './cached';
import type { KubeObject } from '../kind';
import type { ApiWatchEvent, ListOptions, Target, WatchHandle, WatchSink } from './types';
import type { RegistryContext } from './context';
import { forKind } from './context';
import { decodeStored } from './codec';
import { collectionPrefix } from './keys';
import { parseResourceVersion, validateWatchOptions, waitFresh } from './resource-version';
import { buildSelection } from './selection';
import type { Selection } from './selection';
import { translateError } from './storage-errors';

export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** kube's watch error for a start revision older than the history kept */
export function tooOldResourceVersion(requested: number, oldest: number): ApiError {
  return errors.expired(`too old resource version: ${requested} (${oldest})`);
}

interface StartPlan {
  /** list the current state and send it as ADDED events first */
  initial: boolean;
  /** Exact start revision (events after it); undefined = the revision of the initial list / newest */
  after?: number;
}

async function plan(ctx: RegistryContext, o: ListOptions): Promise<StartPlan> {
  validateWatchOptions(o);
  const rv = o.resourceVersion ?? '';
  const explicit = rv !== '' && rv !== '0' ? parseResourceVersion(rv) : undefined;
  if (o.sendInitialEvents !== undefined) {
    // watch-list: resourceVersionMatch=NotOlderThan; the state is read no older than rv
    if (explicit !== undefined) await waitFresh(ctx.store, explicit, ctx.freshnessWaitMs);
    if (o.sendInitialEvents) return { initial: true };
    return { initial: false, after: explicit ?? ctx.store.currentRevision() };
  }
  if (explicit === undefined) return { initial: true };
  if (explicit >= ctx.store.compactRevision()) await waitFresh(ctx.store, explicit, ctx.freshnessWaitMs);
  return { initial: false, after: explicit };
}

/**
 * kube's cacheWatcher.convertToWatchEvent: selectors on both sides of a change. DELETED carries the
 * last state; MODIFIED that starts matching is ADDED, that stops matching is DELETED (new state).
 */
function convertChange(sel: Selection, type: 'ADDED' | 'MODIFIED' | 'DELETED', cur: KubeObject, prev?: KubeObject): ApiWatchEvent | undefined {
  if (type === 'DELETED') return sel.matches(cur) ? { type: 'DELETED', object: cur } : undefined;
  const curMatches = sel.matches(cur);
  if (type === 'ADDED') return curMatches ? { type: 'ADDED', object: cur } : undefined;
  // without a selector an update is an update: the previous state is not even decoded then
  if (sel.everything) return { type: 'MODIFIED', object: cur };
  if (prev === undefined) return curMatches ? { type: 'ADDED', object: cur } : undefined;
  const prevMatches = sel.matches(prev);
  if (curMatches && prevMatches) return { type: 'MODIFIED', object: cur };
  if (curMatches) return { type: 'ADDED', object: cur };
  if (prevMatches) return { type: 'DELETED', object: cur };
  return undefined;
}

class WatchStream implements WatchHandle {
  readonly #ctx: RegistryContext;
  readonly #target: Target;
  readonly #sink: WatchSink;
  readonly #selection: Selection;
  readonly #bookmarks: boolean;
  #storeWatch?: { cancel(): void };
  #timer?: NodeJS.Timeout;
  #done = false;
  /** every event up to this revision has been delivered */
  #revision = 0;
  #bookmarked = 0;

  constructor(ctx: RegistryContext, target: Target, sink: WatchSink, selection: Selection, bookmarks: boolean) {
    this.#ctx = ctx;
    this.#target = target;
    this.#sink = sink;
    this.#selection = selection;
    this.#bookmarks = bookmarks;
  }

  cancel(): void {
    if (this.#done) return;
    this.#done = true;
    this.#storeWatch?.cancel();
    if (this.#timer) clearInterval(this.#timer);
  }

  /** the ERROR event then the end of the stream */
  fail(status: Status): void {
    if (this.#done) return;
    this.#send({ type: 'ERROR', object: status });
    this.#end();
  }

  #end(): void {
    if (this.#done) return;
    this.cancel();
    this.#sink.end();
  }

  #send(event: ApiWatchEvent): void {
    if (this.#done) return;
    if (!this.#sink.send(event)) this.cancel();
  }

  bookmark(revision: number, initialEnd = false): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (initialEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    this.#bookmarked = revision;
    this.#send({ type: 'BOOKMARK', object: { apiVersion: apiVersionOf(this.#target.kind), kind: this.#target.kind.kind, metadata } });
  }

  sendInitial(objects: KubeObject[], revision: number, endBookmark: boolean): void {
    for (const obj of objects) {
      if (this.#done) return;
      if (this.#selection.matches(obj)) this.#send({ type: 'ADDED', object: obj });
    }
    this.#revision = revision;
    if (endBookmark && this.#bookmarks) this.bookmark(revision, true);
  }

  start(after: number, prefix: string): void {
    if (this.#done) return;
    this.#revision = Math.max(this.#revision, after);
    try {
      this.#storeWatch = this.#ctx.store.watch({
        afterRevision: after,
        prefix,
        onEvent: (ev) => this.#onEvent(ev),
        onError: (err) => this.#onError(err, after),
        onProgress: (rev) => {
          if (rev > this.#revision) this.#revision = rev;
        },
      });
    } catch (err) {
      this.#onError(err as StorageError, after);
      return;
    }
    this.#startBookmarks();
  }

  #startBookmarks(): void {
    if (this.#bookmarks) {
      this.#timer = setInterval(() => {
        if (this.#revision > this.#bookmarked) this.bookmark(this.#revision);
      }, this.#ctx.bookmarkIntervalMs);
      this.#timer.unref();
    }
  }

  #decode(value: string, revision: number): KubeObject {
    return decodeStored(this.#target.kind, value, revision);
  }

  #onEvent(ev: StoreEvent): void {
    if (this.#done) return;
    try {
      const event = this.#convert(ev);
      if (event) this.#send(event);
      this.#revision = Math.max(this.#revision, ev.revision);
    } catch (err) {
      this.fail(translateError(err, this.#target.kind).status);
    }
  }

  /** kube's cacheWatcher.convertToWatchEvent: selectors on the old and the new state */
  #convert(ev: StoreEvent): ApiWatchEvent | undefined {
    if (ev.type === 'DELETED') {
      // the last state, at the revision of the deletion (kube's etcd watcher sets it so)
      return convertChange(this.#selection, 'DELETED', this.#decode(ev.prevValue ?? ev.value, ev.revision));
    }
    const cur = this.#decode(ev.value, ev.revision);
    const type = ev.type === 'ADDED' || ev.prevValue === undefined ? 'ADDED' : 'MODIFIED';
    const prev = type === 'MODIFIED' && !this.#selection.everything ? this.#decode(ev.prevValue!, ev.revision) : undefined;
    return convertChange(this.#selection, type, cur, prev);
  }

  /** follow the watch cache from after (its window, then live events); false when after is older than the window */
  startCached(cache: WatchCache, after: number, prefix: string): boolean {
    if (this.#done) return true;
    this.#revision = Math.max(this.#revision, after);
    const field = this.#target.kind.watchTriggerField;
    const sub = cache.subscribe(
      after,
      prefix,
      {
        onEvent: (e) => this.#onCached(e),
        onError: (err) => this.#onError(err, after),
        onProgress: (rev) => {
          if (rev > this.#revision) this.#revision = rev;
        },
      },
      field === undefined ? undefined : this.#selection.pinned(field),
    );
    if (!sub) return false;
    this.#storeWatch = sub;
    this.#startBookmarks();
    return true;
  }

  #onCached(e: CachedEvent): void {
    if (this.#done || e.revision <= this.#revision) return;
    const obj = e.object as KubeObject;
    // unfiltered: the cache's shared event, encoded once for every watcher
    const event = this.#selection.everything ? (e.wire as ApiWatchEvent) : convertChange(this.#selection, e.type, obj, e.prevObject as KubeObject | undefined);
    if (event) this.#send(event);
    this.#revision = e.revision;
  }

  #onError(err: StorageError, after: number): void {
    if (this.#done) return;
    if (isStorageError(err, 'Closed')) {
      this.#end();
      return;
    }
    if (isStorageError(err, 'Compacted') || isStorageError(err, 'TooSlow')) {
      // the client relists and watches again, as after any 410
      const from = isStorageError(err, 'Compacted') ? after : this.#revision;
      this.fail(tooOldResourceVersion(from, this.#ctx.store.compactRevision()).status);
      return;
    }
    this.fail(translateError(err, this.#target.kind).status);
  }
}

export async function watch(ctx: RegistryContext, target: Target, o: ListOptions, sink: WatchSink): Promise<WatchHandle> {
  ctx = forKind(ctx, target.kind);
  const selection = buildSelection(target.kind, o.labelSelector, o.fieldSelector);
  const p = await plan(ctx, o);
  const prefix = collectionPrefix(target.kind, target.namespace);
  const stream = new WatchStream(ctx, target, sink, selection, o.allowWatchBookmarks === true);
  // kube's cacher serves every watch start it can from its window; older ones read the store's history
  const cache = await cacheFor(ctx, target.kind);
  const follow = (after: number) => {
    if (cache && stream.startCached(cache, after, prefix)) return;
    if (after < ctx.store.compactRevision()) stream.fail(tooOldResourceVersion(after, ctx.store.compactRevision()).status);
    else stream.start(after, prefix);
  };
  if (!p.initial) {
    const after = p.after!;
    setImmediate(() => follow(after));
    return stream;
  }
  let objects: KubeObject[];
  let revision: number;
  if (cache && o.resourceVersion === '0') {
    // Any: the initial state from memory (shared objects)
    const res = cache.list(prefix);
    objects = res.items.map(asObject);
    revision = res.revision;
  } else {
    try {
      const res = await ctx.store.list(prefix);
      revision = res.revision;
      const decode = decoderFor(ctx, target.kind);
      objects = res.items.map((kv) => asObject(decode(kv)));
    } catch (err) {
      throw translateError(err, target.kind, '', ctx.store.currentRevision());
    }
  }
  setImmediate(() => {
    stream.sendInitial(objects, revision, o.sendInitialEvents === true);
    follow(revision);
  });
  return stream;
}
