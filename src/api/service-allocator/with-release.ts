/**
 * Values the allocator handed to a service write that did not store anything (a refused or failed
 * create or update, a dry run) go back at once instead of staying reserved until they expire, as
 * kube's service storage releases them when the write fails.
 */
import { withVerbs } from '../registry/with-verbs';
import type { Registry, Target } from '../registry/types';
import type { LiveServiceAllocator } from './live';

export function withAllocationRelease<R extends Registry>(registry: R, allocator: LiveServiceAllocator): R {
  const isService = (t: Target): boolean => t.kind.group === '' && t.kind.resource === 'services';
  const keyOf = (t: Target, body?: unknown): string => {
    const meta = (body as { metadata?: { name?: string; generateName?: string } } | undefined)?.metadata;
    return `${t.namespace ?? ''}/${t.name ?? meta?.name ?? ''}`;
  };
  async function releasing<T>(t: Target, key: string, dryRun: boolean, write: () => Promise<T>): Promise<T> {
    if (!isService(t)) return write();
    try {
      const result = await write();
      if (dryRun) allocator.release(key);
      else allocator.settled(key);
      return result;
    } catch (err) {
      allocator.release(key);
      throw err;
    }
  }
  const verbs: Partial<Registry> = {
    create: (t, body, o) => releasing(t, keyOf(t, body), o.dryRun, () => registry.create(t, body, o)),
    update: (t, body, o) => releasing(t, keyOf(t, body), o.dryRun, () => registry.update(t, body, o)),
    patch: (t, type, body, o) => releasing(t, keyOf(t), o.dryRun, () => registry.patch(t, type, body, o)),
  };
  // everything else (bootstrap, close, idle, ...) is the wrapped registry's own
  return withVerbs(registry, verbs);
}
