/**
 * LIST: the resourceVersion x resourceVersionMatch x paging matrix of spec 4.7, consistent paging
 * with continue tokens, and label/field selectors applied while paging (as kube's etcd3 GetList:
 * keep reading pages until `limit` matching items or the end; the token points after the last key
 * read).
 */
import { apiVersionOf } from '../scheme';
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { WatchCache } from '../../cache/watch-cache';
import { lazyList } from '../../cache/encoded';
import { asFreshAsStore, asObject, cacheFor, decoderFor, loadedCache, waitCacheFresh } from './cached';
import type { ReadItem } from './cached';
import type { KeyValue, ListResult } from '../../storage/store';
import type { KubeList, ListOptions, Target } from './types';
import type { RegistryContext } from './context';
import { forKind } from './context';
import { collectionPrefix } from './keys';
import { decodeContinue, encodeContinue } from './continue-token';
import { checkExact, parseResourceVersion, validateListOptions, waitFresh } from './resource-version';
import { buildSelection } from './selection';
import type { Selection } from './selection';
import { translateError } from './storage-errors';

/** kube's message for a continue token whose revision was compacted (a fresh token comes with it) */
export const INCONSISTENT_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** where and how a list reads: the plan the rv matrix produces */
interface ListPlan {
  /** undefined = the newest revision */
  revision?: number;
  startKey?: string;
  /** the request came with a continue token (compaction answers with a fresh token) */
  continuing: boolean;
  /** served from the watch cache (Any, NotOlderThan without limit) */
  cache?: WatchCache;
}

async function plan(ctx: RegistryContext, kind: KindDefinition, prefix: string, o: ListOptions): Promise<ListPlan> {
  validateListOptions(o);
  const rv = o.resourceVersion ?? '';
  const limited = (o.limit ?? 0) > 0;
  if (o.continue) {
    const pos = decodeContinue(o.continue, prefix);
    // rv=0 with continue is tolerated and the token wins (spec 4.7: "treated as Continue Token, Exact")
    if (rv !== '' && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    return { revision: pos.revision > 0 ? pos.revision : undefined, startKey: pos.startKey, continuing: true };
  }
  if (rv === '') {
    // Most Recent: a consistent read from the store, or the same state from a cache that holds it
    const cache = o.newestFromCache && !limited ? await cacheFor(ctx, kind) : undefined;
    return cache && asFreshAsStore(ctx, cache) ? { continuing: false, cache } : { continuing: false };
  }
  const parsed = parseResourceVersion(rv);
  const match = o.resourceVersionMatch ?? '';
  if (rv === '0') {
    // Any: kube 1.32's cacher serves it from memory and ignores limit (the whole list, no continue)
    const cache = await cacheFor(ctx, kind);
    return { continuing: false, cache };
  }
  if (match === 'Exact' || (match === '' && limited)) {
    await checkExact(ctx.store, parsed, ctx.freshnessWaitMs);
    return { revision: parsed, continuing: false };
  }
  // NotOlderThan (explicit, or legacy rv without limit): from the cache unless paged
  const cache = limited ? undefined : await cacheFor(ctx, kind);
  if (cache) {
    await waitCacheFresh(ctx, cache, parsed);
    return { continuing: false, cache };
  }
  await waitFresh(ctx.store, parsed, ctx.freshnessWaitMs);
  return { continuing: false };
}

/** how many keys one store read asks for while filtering (kube grows its etcd page the same way) */
const MAX_PAGE = 10000;

export async function list(ctx: RegistryContext, target: Target, o: ListOptions): Promise<KubeList> {
  ctx = forKind(ctx, target.kind);
  const kind = target.kind;
  const prefix = collectionPrefix(kind, target.namespace);
  const selection = buildSelection(kind, o.labelSelector, o.fieldSelector);
  const p = await plan(ctx, kind, prefix, o);
  if (p.cache) return listFromCache(kind, p.cache, prefix, selection);
  const limit = o.limit && o.limit > 0 ? o.limit : 0;
  // a page's remainingItemCount: a binary search in the watch cache's keys instead of a count of
  // the rest of the range in the database (which grows with the collection)
  const counter = limit > 0 && selection.everything ? loadedCache(ctx, kind) : undefined;
  // the store need not count when the cache is as fresh as the store (it then knows the count at
  // the page's revision); the cache may still count a page at an older revision the store does not
  const storeCounts = counter === undefined || !asFreshAsStore(ctx, counter);
  try {
    const page = await readPage(ctx, prefix, p, limit, selection, decoderFor(ctx, kind), storeCounts);
    const meta: KubeList['metadata'] = { resourceVersion: String(page.revision) };
    const out = lazyList({ apiVersion: apiVersionOf(kind), kind: kind.listKind, metadata: meta }, page.items) as KubeList;
    if (page.nextKey !== undefined) {
      meta.continue = encodeContinue(page.nextKey, prefix, page.revision);
      // kube only reports the count when no selector filters: it counts keys, not matches
      const remaining = selection.everything ? (page.remaining ?? counter?.countFrom(prefix, page.nextKey, page.revision)) : undefined;
      if (remaining !== undefined) meta.remainingItemCount = remaining;
    }
    return out;
  } catch (err) {
    if ((err as { code?: string }).code === 'Compacted' && p.continuing && p.startKey !== undefined) {
      throw errors.expired(INCONSISTENT_CONTINUE, encodeContinue(p.startKey, prefix, -1));
    }
    throw translateError(err, kind, '', ctx.store.currentRevision());
  }
}

/** the list from the cache's objects (shared: read-only for the caller), kept encoded until read */
function listFromCache(kind: KindDefinition, cache: WatchCache, prefix: string, selection: Selection): KubeList {
  const { items, revision } = cache.list(prefix);
  const selected: ReadItem[] = selection.everything ? items : items.map(asObject).filter((obj) => selection.matches(obj));
  return lazyList({ apiVersion: apiVersionOf(kind), kind: kind.listKind, metadata: { resourceVersion: String(revision) } }, selected) as KubeList;
}

export interface Page {
  items: ReadItem[];
  revision: number;
  /** the key to continue at when more keys exist after the last one read */
  nextKey?: string;
  remaining?: number;
}

/**
 * read matching items at one revision from startKey: all of them (limit 0), or until `limit`
 * matches; pins the revision after the first store read so later pages see the same snapshot
 */
export async function readPage(
  ctx: RegistryContext,
  prefix: string,
  p: { revision?: number; startKey?: string },
  limit: number,
  selection: Selection,
  decode: (kv: KeyValue) => ReadItem,
  countRemaining = true,
): Promise<Page> {
  const items: ReadItem[] = [];
  let revision = p.revision;
  let startKey = p.startKey;
  let pageSize = limit;
  for (;;) {
    const res: ListResult = await ctx.store.list(prefix, { revision, startKey, limit: pageSize, countRemaining });
    revision = res.revision;
    for (let i = 0; i < res.items.length; i++) {
      const item = decode(res.items[i]);
      if (selection.everything) items.push(item);
      else {
        const obj = asObject(item);
        if (selection.matches(obj)) items.push(obj);
      }
      if (limit > 0 && items.length >= limit) {
        const moreAfter = i < res.items.length - 1 || res.more;
        if (!moreAfter) return { items, revision };
        const remaining = i === res.items.length - 1 && res.remaining !== undefined ? res.remaining : undefined;
        return { items, revision, nextKey: res.items[i].key + '\x00', remaining };
      }
    }
    if (limit === 0 || !res.more || res.items.length === 0) return { items, revision };
    startKey = res.items[res.items.length - 1].key + '\x00';
    // filtering: ask for more per read, as kube doubles its etcd page up to a cap
    pageSize = Math.min(pageSize * 2, MAX_PAGE);
  }
}
