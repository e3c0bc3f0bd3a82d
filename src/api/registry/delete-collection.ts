/**
 * DELETE of a collection, as kube's generic store DeleteCollection: list with the request's options
 * (every page, unless the client set a limit: then one page), delete each listed object by the
 * single-object rules (NotFound ignored: someone else deleted it), and answer with the list of the
 * objects as they were listed.
 */
import { isApiError } from '../errors';
import type { DeleteOptions, KubeList, ListOptions, Target } from './types';
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
    for (const item of page.items) {
      try {
        await deleteObject(ctx, { kind: target.kind, namespace: item.metadata?.namespace, name: item.metadata?.name }, { ...options });
      } catch (err) {
        if (!isApiError(err) || err.code !== 404) throw err;
      }
    }
    if (hasLimit) return page;
    if (!result) result = { ...page, metadata: { resourceVersion: page.metadata.resourceVersion }, items: [] };
    result.items.push(...page.items);
    if (!page.metadata.continue) return result;
    opts = { ...opts, continue: page.metadata.continue, resourceVersion: undefined, resourceVersionMatch: undefined };
  }
}
