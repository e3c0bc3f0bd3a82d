/**
 * GET of one object. resourceVersion: unset = Most Recent (a consistent read from the store); "0" =
 * Any and other = NotOlderThan, served from the watch cache as kube's cacher does (waiting up to
 * freshnessWaitMs for the cache to reach the revision, then 504). Without a cache for the kind, the
 * store answers and a NotOlderThan read waits for the store instead.
 */
import { errors } from '../errors';
import type { KubeObject } from '../kind';
import type { GetOptions, Target } from './types';
import type { RegistryContext } from './context';
import { forKind, readCurrent, requireName, requireNamespace } from './context';
import { cacheFor, waitCacheFresh } from './cached';
import { objectKey } from './keys';
import { parseResourceVersion, waitFresh } from './resource-version';
import { qualifiedResource } from './storage-errors';

export async function get(ctx: RegistryContext, target: Target, options: GetOptions): Promise<KubeObject> {
  ctx = forKind(ctx, target.kind);
  const rv = options.resourceVersion ?? '';
  if (rv !== '') {
    const minimum = rv === '0' ? 0 : parseResourceVersion(rv);
    const name = requireName(target);
    const key = objectKey(target.kind, requireNamespace(target), name);
    const cache = await cacheFor(ctx, target.kind);
    if (cache) {
      await waitCacheFresh(ctx, cache, minimum);
      const entry = cache.get(key);
      if (!entry) throw errors.notFound(qualifiedResource(target.kind), name);
      // shared with the cache's other readers: read-only from here on
      return entry.object as KubeObject;
    }
    if (minimum > 0) await waitFresh(ctx.store, minimum, ctx.freshnessWaitMs);
  }
  const { obj } = await readCurrent(ctx, target);
  if (!obj.metadata) throw errors.internal('stored object has no metadata');
  return obj;
}
