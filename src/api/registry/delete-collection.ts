/**
 * DELETE of a collection, as kube's generic store DeleteCollection: list with the request's options
 * (every page, unless the client set a limit: then one page), delete each listed object by the
 * single-object rules (NotFound ignored: someone else deleted it), and answer with the list of the
 * objects as they were listed. Like kube, --delete-collection-workers objects are deleted at once;
 * the first failure (other than NotFound) stops handing out more objects and is the answer.
 */
import { isApiError } from '../errors';
import type { DeleteOptions, KubeList, ListOptions, Target } from './types';
import type { KubeObject } from '../kind';
import type { RegistryContext } from './context';
import { list } from './list';
import { deleteObject } from './delete';
import { validateDeleteOptions } from './delete-options';

export async function deleteCollection(ctx: RegistryContext, target: Target, listOptions: ListOptions, options: DeleteOptions): Promise<KubeList> {
  validateDeleteOptions(options);
  const hasLimit = (listOptions.limit ?? 0) > 0;
  let opts: ListOptions = { ...listOptions };
  let result: KubeList | undefined;
  for (;;) {
    const page = await list(ctx, target, opts);
    await deleteAll(ctx, target, page.items, options);
    if (hasLimit) return page;
    if (!result) result = { ...page, metadata: { resourceVersion: page.metadata.resourceVersion }, items: [] };
    result.items.push(...page.items);
    if (!page.metadata.continue) return result;
    opts = { ...opts, continue: page.metadata.continue, resourceVersion: undefined, resourceVersionMatch: undefined };
  }
}

/** delete items with up to ctx.deleteCollectionWorkers deletes in flight; rejects with the first failure */
async function deleteAll(ctx: RegistryContext, target: Target, items: readonly KubeObject[], options: DeleteOptions): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    // kube's distributor stops handing out objects once a worker has reported an error
    while (!failure && next < items.length) {
      const item = items[next++];
      try {
        await deleteObject(ctx, { kind: target.kind, namespace: item.metadata?.namespace, name: item.metadata?.name }, { ...options });
      } catch (err) {
        if (isApiError(err) && err.code === 404) continue;
        failure ??= { err };
        return;
      }
    }
  };
  const workers = Math.max(1, Math.min(ctx.deleteCollectionWorkers ?? 1, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  if (failure) throw failure.err;
}
