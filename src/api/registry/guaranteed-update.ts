/**
 * kube's GuaranteedUpdate loop: read the newest object, compute the new one, write it with the
 * read revision as precondition; on a concurrent writer (store Conflict) read again and retry.
 * A failed client precondition is an ApiError thrown by `compute` and is never retried.
 * No-op updates are not written (kube returns the current object with its resourceVersion), and an
 * update that removes the last finalizer of an object being deleted removes it from storage.
 */
import { isStorageError } from '../../storage/store';
import type { KubeObject } from '../kind';
import type { Target, WriteOptions, WriteResult } from './types';
import { admitAndValidate } from '../../admission/attributes';
import type { Current, RegistryContext } from './context';
import { readCurrent } from './context';
import { storageForm, storedResponse } from './codec';
import { jsonEqual } from '../json-value';
import { translateError } from './storage-errors';
import { withoutManagedFieldTimes } from './managed';

const MAX_ATTEMPTS = 16;

export interface UpdateStep {
  target: Target;
  dryRun: boolean;
  /** the new object from the current one, prepared and validated; throws ApiError to stop */
  compute(current: Current): KubeObject | Promise<KubeObject>;
  /**
   * the request's admission (UPDATE of the object or of a subresource), run on each computed object
   * with the stored one as oldObject, so a retry admits the fresh state; absent for internal updates
   */
  admission?: { subresource?: string; options: WriteOptions; optionsKind?: 'UpdateOptions' | 'PatchOptions' };
}

/**
 * kube's ShouldDeleteDuringUpdate: no finalizers left on an object whose deletion has no grace left.
 * Namespaces also need an empty spec.finalizers (kube's namespace store adds that condition).
 */
function shouldDeleteDuringUpdate(next: KubeObject, old: KubeObject): boolean {
  if ((next.metadata?.finalizers ?? []).length > 0) return false;
  const specFinalizers = (next.spec as { finalizers?: unknown } | undefined)?.finalizers;
  if (next.kind === 'Namespace' && Array.isArray(specFinalizers) && specFinalizers.length > 0) return false;
  const oldMeta = old.metadata ?? {};
  if (!oldMeta.deletionTimestamp) return false;
  return !oldMeta.deletionGracePeriodSeconds;
}

export async function guaranteedUpdate(ctx: RegistryContext, step: UpdateStep): Promise<WriteResult> {
  const { kind } = step.target;
  const name = step.target.name ?? '';
  for (let attempt = 0; ; attempt++) {
    const current = await readCurrent(ctx, step.target);
    const next = await step.compute(current);
    // what admission plugins (webhooks) warn about, for this attempt's answer
    const warnings: string[] = [];
    if (step.admission) {
      const { subresource, options, optionsKind } = step.admission;
      await admitAndValidate(ctx.admission, {
        operation: 'UPDATE', kind, subresource, namespace: step.target.namespace, name, object: next, oldObject: current.obj, options, optionsKind, warnings,
      });
    }
    const answer = (result: WriteResult): WriteResult => (warnings.length > 0 ? { ...result, warnings } : result);
    if (!step.dryRun && !shouldDeleteDuringUpdate(next, current.obj)) await kind.strategy.beforeStore?.(next, current.obj);
    const nextStored = storageForm(kind, next);
    try {
      if (shouldDeleteDuringUpdate(next, current.obj)) {
        if (!step.dryRun) await ctx.store.delete(current.key, current.kv.modRevision);
        // kube answers the PUT with the object of the request, not a Status
        return answer({ object: next, created: false });
      }
      // the stored forms compared as values (jsonEqual ignores key order and undefined fields, as
      // comparing their JSON decoded again would)
      // (a stale stored form, e.g. encrypted with a retired key, is rewritten even then)
      if (!current.kv.stale && jsonEqual(withoutManagedFieldTimes(nextStored), withoutManagedFieldTimes(storageForm(kind, current.obj)))) {
        return answer({ object: current.obj, created: false });
      }
      if (step.dryRun) {
        next.metadata = { ...(next.metadata ?? {}), resourceVersion: String(current.kv.modRevision) };
        return answer({ object: next, created: false });
      }
      const kv = await ctx.store.update(current.key, JSON.stringify(nextStored), current.kv.modRevision);
      return answer({ object: storedResponse(kind, next, kv.value, kv.modRevision), created: false });
    } catch (err) {
      if (isStorageError(err, 'Conflict') && attempt < MAX_ATTEMPTS) continue;
      // a concurrent delete between our read and our write: the object is gone
      throw translateError(err, kind, name);
    }
  }
}
