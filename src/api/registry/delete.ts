/**
 * DELETE of one object: kube's generic store Delete with BeforeDelete (preconditions, graceful
 * deletion), updateForGracefulDeletionAndFinalizers (finalizers, deletionTimestamp) and the final
 * removal from storage. An object with finalizers (after the propagation policy's orphan /
 * foregroundDeletion finalizer is applied) only gets deletionTimestamp and stays until its last
 * finalizer is removed by an update; graceful kinds (pods on a node) get deletionTimestamp =
 * now + grace and stay for their agent to finish. Namespaces have their own flow (namespace-finalizer.ts).
 *
 * There is no garbage collector yet: orphan/foregroundDeletion finalizers stay until one exists,
 * exactly as in a kube-apiserver whose controller manager runs without the GC.
 */
import { isStorageError } from '../../storage/store';
import type { KindDefinition, KubeObject } from '../kind';
import type { Status } from '../errors';
import type { DeleteOptions, DeleteResult, Target } from './types';
import type { Current, RegistryContext } from './context';
import { kindOptions, namespaceKind, readCurrent } from './context';
import { clone, decodeStored, encodeForStorage } from './codec';
import { jsonEqual } from '../json-value';
import { timestamp } from './meta';
import { translateError } from './storage-errors';
import { checkDeletePreconditions, gcFinalizers, returnsDeletedObject, validateDeleteOptions } from './delete-options';
import { deleteNamespace } from './namespace-finalizer';
import { forbidden } from './namespace-lifecycle';
import { admitAndValidate } from '../../admission/attributes';

const MAX_ATTEMPTS = 16;

/** kube's finalizeDelete: the object for ReturnDeletedObject kinds, else a Success Status */
export function finalizeDelete(kind: KindDefinition, obj: KubeObject): KubeObject | Status {
  if (returnsDeletedObject(kind)) return obj;
  // kube leaves `code` out of this Status; the HTTP status comes from DeleteResult.code
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: obj.metadata?.name ?? '', group: kind.group, kind: kind.resource, uid: obj.metadata?.uid ?? '' },
  } as unknown as Status;
}

interface GracefulDecision {
  graceful: boolean;
  /** a graceful deletion is already under way and the request does not shorten it */
  pending: boolean;
  grace: number;
}

/**
 * kube's rest.BeforeDelete for one object (mutates obj): graceful kinds get deletionTimestamp =
 * now + grace; an object already terminating may only have its grace period shortened
 */
function beforeDelete(kind: KindDefinition, obj: KubeObject, o: DeleteOptions, now: Date): GracefulDecision {
  const meta = obj.metadata!;
  // kube: a negative grace period is read as 1 second
  const requested = o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds < 0 ? 1 : o.gracePeriodSeconds;
  if (!kind.deleteGracePeriod) return { graceful: false, pending: false, grace: 0 };
  if (meta.deletionTimestamp) {
    const existing = meta.deletionGracePeriodSeconds ?? 0;
    if (existing <= 0) return { graceful: false, pending: false, grace: 0 };
    if (requested === undefined || requested >= existing) return { graceful: false, pending: true, grace: existing };
    // shorten: move the deadline back by the old grace, forward by the new one, never into the past
    let period = requested;
    let deadline = new Date(Date.parse(meta.deletionTimestamp) - existing * 1000 + period * 1000);
    if (deadline.getTime() < now.getTime()) {
      deadline = now;
      if (period !== 0) period = 1;
    }
    meta.deletionTimestamp = timestamp(deadline);
    meta.deletionGracePeriodSeconds = period;
    return { graceful: true, pending: false, grace: period };
  }
  // the kind's default applies when the request names none; undefined means "delete at once"
  // (kube's pod strategy: unscheduled or finished pods get a zero grace period)
  const defaultGrace = kind.deleteGracePeriod(obj);
  const grace = defaultGrace === undefined ? 0 : requested ?? defaultGrace;
  meta.deletionTimestamp = timestamp(new Date(now.getTime() + grace * 1000));
  meta.deletionGracePeriodSeconds = grace;
  if ((meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  return { graceful: true, pending: false, grace };
}

/** kube's markAsDeleting: deletionTimestamp now (or earlier), grace 0, generation bumped once */
function markAsDeleting(obj: KubeObject, now: Date): void {
  const meta = obj.metadata!;
  if (!meta.deletionTimestamp && (meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
  if (!meta.deletionTimestamp || Date.parse(meta.deletionTimestamp) > now.getTime()) meta.deletionTimestamp = timestamp(now);
  meta.deletionGracePeriodSeconds = 0;
}

function responseCode(o: DeleteOptions, deleted: boolean): 200 | 202 {
  // kube: 202 only when the object stays and the client asked for orphanDependents=false
  return !deleted && o.orphanDependents === false ? 202 : 200;
}

/** write the deletion state; dry-run answers with the would-be object at the current revision */
async function writeDeletionState(ctx: RegistryContext, kind: KindDefinition, current: Current, obj: KubeObject, dryRun: boolean): Promise<Current> {
  if (jsonEqual(JSON.parse(encodeForStorage(kind, obj)), JSON.parse(encodeForStorage(kind, current.obj)))) return current;
  if (dryRun) return { ...current, obj: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(current.kv.modRevision) } } };
  const kv = await ctx.store.update(current.key, encodeForStorage(kind, obj), current.kv.modRevision);
  return { key: current.key, kv, obj: decodeStored(kind, kv.value, kv.modRevision) };
}

/** DELETE of one named object: the kind's refusals (KindDefinition.deleteForbidden), then deleteObject */
export async function deleteNamed(ctx: RegistryContext, target: Target, options: DeleteOptions): Promise<DeleteResult> {
  const why = target.kind.deleteForbidden?.(target.name ?? '');
  if (why !== undefined) throw forbidden(target.kind, target.name ?? '', why);
  return deleteObject(ctx, target, options);
}

export async function deleteObject(ctx: RegistryContext, target: Target, options: DeleteOptions): Promise<DeleteResult> {
  validateDeleteOptions(options);
  if (ctx.admission) {
    // kube admits a DELETE (also each object of a deletecollection) with the stored object as oldObject
    const current = await readCurrent(ctx, target);
    await admitAndValidate(ctx.admission, { operation: 'DELETE', kind: target.kind, namespace: target.namespace, name: target.name, oldObject: current.obj, options });
  }
  const nsKind = namespaceKind(ctx.scheme);
  if (nsKind && target.kind.storage.group === nsKind.storage.group && target.kind.storage.resource === nsKind.storage.resource) {
    return deleteNamespace(ctx, target, options);
  }
  return deleteGeneric(ctx, target, options);
}

/** the generic store's delete (also the last step of a namespace's deletion) */
export async function deleteGeneric(ctx: RegistryContext, target: Target, options: DeleteOptions): Promise<DeleteResult> {
  const { kind } = target;
  for (let attempt = 0; ; attempt++) {
    let current = await readCurrent(ctx, target);
    try {
      checkDeletePreconditions(kind, current.obj, options);
      const now = ctx.clock();
      const obj = clone(current.obj);
      // a kind's own Delete step (CustomResourceDefinition: its cleanup finalizer)
      if (!obj.metadata?.deletionTimestamp) kindOptions(kind).prepareForDelete?.(obj, now);
      const decision = beforeDelete(kind, obj, options, now);
      if (decision.pending) return { code: responseCode(options, false), body: finalizeDelete(kind, current.obj) };
      const hadFinalizers = (obj.metadata?.finalizers ?? []).length > 0;
      // kube without the garbage collector neither adds nor removes orphan/foregroundDeletion finalizers
      const gc = ctx.enableGarbageCollection === false ? { changed: false, finalizers: obj.metadata?.finalizers ?? [] } : gcFinalizers(kind, obj, options);
      if (decision.graceful || hadFinalizers || gc.changed) {
        obj.metadata!.finalizers = gc.finalizers;
        if (obj.metadata!.finalizers.length === 0) delete obj.metadata!.finalizers;
        const pendingFinalizers = gc.finalizers.length > 0;
        if (!decision.graceful && pendingFinalizers) markAsDeleting(obj, now);
        if (decision.graceful || pendingFinalizers) {
          current = await writeDeletionState(ctx, kind, current, obj, options.dryRun);
          if (pendingFinalizers || decision.grace > 0) return { code: responseCode(options, false), body: current.obj };
          if (options.dryRun) return { code: 200, body: finalizeDelete(kind, current.obj) };
        }
      }
      if (options.dryRun) return { code: 200, body: finalizeDelete(kind, current.obj) };
      const kv = await ctx.store.delete(current.key, current.kv.modRevision);
      return { code: 200, body: finalizeDelete(kind, decodeStored(kind, kv.value, kv.modRevision)) };
    } catch (err) {
      // a concurrent writer changed the object between our read and write: read and decide again
      if (isStorageError(err, 'Conflict') && attempt < MAX_ATTEMPTS) continue;
      throw translateError(err, kind, target.name ?? '');
    }
  }
}
