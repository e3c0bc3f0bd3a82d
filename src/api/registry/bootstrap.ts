/**
 * What kube's bootstrap controller ensures at start: the system namespaces exist. Namespaces left
 * Terminating by a previous run are handed to the namespace finalizer again.
 */
import { isApiError } from '../errors';
import type { RegistryContext } from './context';
import { namespaceKind } from './context';
import { decodeStored } from './codec';
import { collectionPrefix } from './keys';
import { create } from './create';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function bootstrap(ctx: RegistryContext, resumeTermination: (name: string) => void): Promise<void> {
  const kind = namespaceKind(ctx.scheme);
  if (!kind) return;
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await create(ctx, { kind }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { dryRun: false });
    } catch (err) {
      if (!isApiError(err) || err.code !== 409) throw err;
    }
  }
  const { items } = await ctx.store.list(collectionPrefix(kind));
  for (const kv of items) {
    const ns = decodeStored(kind, kv.value, kv.modRevision);
    if (ns.metadata?.deletionTimestamp && ns.metadata.name) resumeTermination(ns.metadata.name);
  }
}
