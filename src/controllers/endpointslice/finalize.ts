/**
 * kube's reconciler.finalize for both slice controllers: turn creates into updates of slices that
 * would otherwise be deleted (same address type), then create, update and delete through the API,
 * recording each write in the tracker. Every error is gathered and thrown at the end, so one bad
 * slice does not keep the others from being written.
 */
import { isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject } from '../../client/types';
import { formatTriggerTime, LAST_CHANGE_TRIGGER_TIME } from '../util/trigger-time';
import type { SlicePlan } from './reconciler';
import type { EndpointSlice } from './slice-util';
import type { EndpointSliceTracker } from './tracker';
import { errorMessage, isNamespaceTerminating } from '../util/errors';

export interface FinalizeOptions {
  client: RestClient;
  tracker: EndpointSliceTracker;
  /** the service (or Endpoints) the slices are for */
  owner: KubeObject;
  plan: SlicePlan;
  /** may this slice, planned for deletion, be reused for a new one? */
  canReuse: (old: EndpointSlice, wanted: EndpointSlice) => boolean;
  /** ms since the epoch, 0 for none; undefined: leave the annotation as planned (mirroring) */
  triggerTime?: number;
  /** the service is being deleted: create nothing (the garbage collector is removing slices) */
  noCreates?: boolean;
}

function withTriggerTime(slice: EndpointSlice, time: number | undefined): EndpointSlice {
  if (time === undefined) return slice;
  const annotations = { ...(slice.metadata?.annotations ?? {}) };
  if (time) annotations[LAST_CHANGE_TRIGGER_TIME] = formatTriggerTime(time);
  else delete annotations[LAST_CHANGE_TRIGGER_TIME];
  return { ...slice, metadata: { ...slice.metadata, annotations } };
}

export async function finalizeSlices(o: FinalizeOptions): Promise<void> {
  const create = [...o.plan.create];
  const update = [...o.plan.update];
  const remove = [...o.plan.delete];
  for (let i = 0; i < remove.length && create.length > 0; ) {
    const old = remove[i]!;
    const wanted = create[create.length - 1]!;
    if (old.addressType === wanted.addressType && o.canReuse(old, wanted)) {
      create.pop();
      const { generateName: _unused, ...meta } = wanted.metadata ?? {};
      update.push({ ...wanted, metadata: { ...meta, name: old.metadata?.name, resourceVersion: old.metadata?.resourceVersion } });
      remove.splice(i, 1);
    } else {
      i++;
    }
  }
  const ns = o.owner.metadata?.namespace;
  const errors: string[] = [];
  if (!o.noCreates) {
    for (const slice of create) {
      try {
        o.tracker.update(await o.client.create(RESOURCES.endpointSlices, ns, withTriggerTime(slice, o.triggerTime)));
      } catch (err) {
        // a namespace being deleted refuses new objects: nothing to retry (kube's NamespaceTerminatingCause)
        if (isNamespaceTerminating(err)) return;
        errors.push(`Error creating EndpointSlice for Service ${ns}/${o.owner.metadata?.name}: ${errorMessage(err)}`);
      }
    }
  }
  for (const slice of update) {
    try {
      o.tracker.update(await o.client.update(RESOURCES.endpointSlices, withTriggerTime(slice, o.triggerTime)));
    } catch (err) {
      errors.push(`Error updating ${slice.metadata?.name} EndpointSlice for Service ${ns}/${o.owner.metadata?.name}: ${errorMessage(err)}`);
    }
  }
  for (const slice of remove) {
    try {
      o.tracker.expectDeletion(slice);
      await o.client.delete(RESOURCES.endpointSlices, ns, slice.metadata?.name ?? '');
    } catch (err) {
      if (isNotFound(err)) {
        o.tracker.forget(slice);
        continue;
      }
      o.tracker.forget(slice);
      errors.push(`Error deleting ${slice.metadata?.name} EndpointSlice for Service ${ns}/${o.owner.metadata?.name}: ${errorMessage(err)}`);
    }
  }
  if (errors.length > 0) throw new Error(errors.join('; '));
}
