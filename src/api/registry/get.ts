/**
 * GET of one object. resourceVersion: unset = most recent; "0" = any (we serve the newest);
 * other = not older than (wait for the revision up to freshnessWaitMs, then 504 as kube's cacher).
 */
import { errors } from '../errors';
import type { KubeObject } from '../kind';
import type { GetOptions, Target } from './types';
import type { RegistryContext } from './context';
import { readCurrent } from './context';
import { parseResourceVersion, waitFresh } from './resource-version';

export async function get(ctx: RegistryContext, target: Target, options: GetOptions): Promise<KubeObject> {
  const rv = options.resourceVersion ?? '';
  if (rv !== '' && rv !== '0') {
    const minimum = parseResourceVersion(rv);
    await waitFresh(ctx.store, minimum, ctx.freshnessWaitMs);
  }
  const { obj } = await readCurrent(ctx, target);
  if (!obj.metadata) throw errors.internal('stored object has no metadata');
  return obj;
}
