/**
 * kube's NamespaceLifecycle admission, as far as the registry needs it: objects can only be created
 * in a namespace that exists and is not being terminated, and the system namespaces cannot be deleted.
 */
import { ApiError, errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { RegistryContext } from './context';
import { namespaceKind } from './context';
import { asFreshAsStore, cacheFor } from './cached';
import { decodeStored } from './codec';
import { objectKey } from './keys';
import { translateError } from './storage-errors';

/** namespaces kube's lifecycle plugin refuses to delete */
export const IMMORTAL_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

function qualified(kind: KindDefinition): string {
  return kind.group ? `${kind.resource}.${kind.group}` : kind.resource;
}

/** kube's admission.NewForbidden wording: `<resource> "<name>" is forbidden: <why>` */
export function forbidden(kind: KindDefinition, name: string, why: string): ApiError {
  const message = name ? `${qualified(kind)} "${name}" is forbidden: ${why}` : `${qualified(kind)} is forbidden: ${why}`;
  return new ApiError(403, 'Forbidden', message, { name, group: kind.group, kind: kind.resource });
}

export async function checkNamespaceForCreate(ctx: RegistryContext, kind: KindDefinition, namespace: string, name: string): Promise<void> {
  const nsKind = namespaceKind(ctx.scheme);
  if (!kind.namespaced || !nsKind) return;
  const key = objectKey(nsKind, undefined, namespace);
  let ns: KubeObject;
  // the namespaces' watch cache when it is exactly as fresh as the store (a point read per create
  // otherwise); kube's admission reads its informer the same way
  const cache = await cacheFor(ctx, nsKind).catch(() => undefined);
  const cached = cache && asFreshAsStore(ctx, cache) ? cache.get(key) : undefined;
  if (cached) ns = cached.object as KubeObject;
  else {
    let kv;
    try {
      kv = await ctx.store.get(key);
    } catch (err) {
      throw translateError(err, nsKind, namespace);
    }
    if (!kv) throw errors.notFound({ group: '', resource: 'namespaces' }, namespace);
    ns = decodeStored(nsKind, kv.value, kv.modRevision);
  }
  const phase = (ns.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Terminating' || ns.metadata?.deletionTimestamp) {
    const err = forbidden(kind, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    err.status.details!.causes = [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }];
    throw err;
  }
}
