/**
 * The registry's door to the watch cache (src/cache): which kinds are cached, and the cache of one.
 * Which reads use it follows kube 1.32's cacher (shouldDelegateList): resourceVersion "0" (Any,
 * limit ignored: the whole list, no continue token) and NotOlderThan without a limit are served from
 * the cache; unset (Most Recent, a consistent read), Exact, continue tokens and NotOlderThan with a
 * limit go to the store. Gets with any resourceVersion are served from the cache.
 */
import { apiVersionOf } from '../scheme';
import { decodeItem } from '../../cache/encoded';
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { KeyValue } from '../../storage/store';
import type { WatchCache } from '../../cache/watch-cache';
import type { RegistryContext } from './context';
import { decodeStored } from './codec';
import { kindPrefix } from './keys';
import { objectFields } from './selection';
import { translateError } from './storage-errors';

/** the loaded cache of the kind, or undefined when caching is off for it */
export async function cacheFor(ctx: RegistryContext, kind: KindDefinition): Promise<WatchCache | undefined> {
  if (!ctx.caches) return undefined;
  try {
    return await ctx.caches.forKind({
      qualifiedResource: kind.storage.group ? `${kind.storage.resource}.${kind.storage.group}` : kind.storage.resource,
      id: cacheId(kind),
      prefix: kindPrefix(kind),
      decode: (value, revision) => decodeStored(kind, value, revision),
      triggerOf: kind.watchTriggerField === undefined ? undefined : triggerOf(kind, kind.watchTriggerField),
      owner: kind,
    });
  } catch (err) {
    throw translateError(err, kind, '', ctx.store.currentRevision());
  }
}

/** the kind's watch trigger value of a cached (shared) object: its field, as field selectors see it */
function triggerOf(kind: KindDefinition, field: string): (object: object) => string | undefined {
  return (object) => objectFields(kind, object as KubeObject)[field];
}

/** a row read from the store as served: an object, or the cache's JSON bytes of the same state */
export type ReadItem = KubeObject | Buffer;

/**
 * a decoder for rows read from the store that reuses the cache's encoding when the cache holds the
 * same key at the same revision (same stored bytes, so the same object): Most Recent and Exact reads
 * stay store reads, without decoding and re-encoding what memory has. Bytes are decoded only when
 * something needs the object (see lazyList, asObject).
 */
export function decoderFor(ctx: RegistryContext, kind: KindDefinition): (kv: KeyValue) => ReadItem {
  const cache = loadedCache(ctx, kind);
  if (!cache) {
    // a collection read once is read again (kube keeps a cacher for every resource): start its cache
    // in the background so later reads find it; this read does not wait for it
    if (ctx.caches) cacheFor(ctx, kind).catch(() => undefined);
    return (kv) => decodeStored(kind, kv.value, kv.modRevision);
  }
  return (kv) => {
    const hit = cache.encoded(kv.key);
    return hit && hit.revision === kv.modRevision ? hit.json : decodeStored(kind, kv.value, kv.modRevision);
  };
}

/** the object of a read item (cache bytes decode into a shared, read-only object) */
export const asObject = (item: ReadItem): KubeObject => decodeItem(item) as KubeObject;

export const cacheId = (kind: KindDefinition) => `${apiVersionOf(kind)}/${kind.kind}`;

/** the kind's cache if it is loaded and following the store (never starts one), and made for this kind */
export const loadedCache = (ctx: RegistryContext, kind: KindDefinition): WatchCache | undefined =>
  ctx.caches?.ownerOf(cacheId(kind)) === kind ? ctx.caches.loaded(cacheId(kind)) : undefined;

/** the cache reflects every commit the store has made (so it can answer for the newest state) */
export const asFreshAsStore = (ctx: RegistryContext, cache: WatchCache): boolean => cache.revision() >= ctx.store.currentRevision();

/** wait until the cache reflects revision (kube's cacher waits up to 3 s), else 504 Too large resource version */
export async function waitCacheFresh(ctx: RegistryContext, cache: WatchCache, revision: number): Promise<void> {
  if (cache.revision() >= revision) return;
  if (!(await cache.waitFresh(revision, ctx.freshnessWaitMs))) throw errors.tooLargeResourceVersion(revision, cache.revision());
}
