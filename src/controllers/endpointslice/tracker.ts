/**
 * What this controller last wrote of each slice, by service (kube's endpointSliceTracker, with the
 * generation checks kube added in 1.21 so that a sync never acts on an informer cache older than
 * its own writes: the cause of kube 1.20's duplicate slices). Shared with the mirroring controller.
 */
import type { EventHandlers } from '../../client/informer';
import type { KubeObject } from '../../client/types';
import { MANAGED_BY_LABEL } from './slice-util';

/** the informer's cache is behind our own writes: try again shortly */
export class StaleCacheError extends Error {
  constructor(what: string) {
    super(`EndpointSlice informer cache is out of date for ${what}`);
    this.name = 'StaleCacheError';
  }
}

const DELETED = -1;

export class EndpointSliceTracker {
  /** service key -> slice uid -> generation written (DELETED: deletion requested) */
  readonly #byService = new Map<string, Map<string, number>>();
  readonly #serviceKey: (slice: KubeObject) => string | undefined;

  constructor(serviceKey: (slice: KubeObject) => string | undefined) {
    this.#serviceKey = serviceKey;
  }

  #slices(slice: KubeObject, create: boolean): Map<string, number> | undefined {
    const key = this.#serviceKey(slice);
    if (!key) return undefined;
    let m = this.#byService.get(key);
    if (!m && create) this.#byService.set(key, (m = new Map()));
    return m;
  }

  /** we wrote this slice (the server's answer) */
  update(slice: KubeObject): void {
    const uid = slice.metadata?.uid;
    if (uid) this.#slices(slice, true)!.set(uid, slice.metadata?.generation ?? 0);
  }

  /** we asked for this slice's deletion */
  expectDeletion(slice: KubeObject): void {
    const uid = slice.metadata?.uid;
    if (uid) this.#slices(slice, true)!.set(uid, DELETED);
  }

  /** the slice is gone already (a delete answered 404): nothing to wait for */
  forget(slice: KubeObject): void {
    this.#slices(slice, false)?.delete(slice.metadata?.uid ?? '');
  }

  /** an informer add or update: does it show a change that is not ours? */
  shouldSync(slice: KubeObject): boolean {
    const uid = slice.metadata?.uid ?? '';
    const known = this.#slices(slice, false)?.get(uid);
    return known === undefined || (slice.metadata?.generation ?? 0) > known;
  }

  /** an informer delete: true when we did not ask for it (someone else deleted our slice) */
  handleDeletion(slice: KubeObject): boolean {
    const m = this.#slices(slice, false);
    const uid = slice.metadata?.uid ?? '';
    const known = m?.get(uid);
    m?.delete(uid);
    return known !== DELETED;
  }

  /** the cache misses one of our writes: a slice we created or updated, or holds one we deleted */
  stale(serviceKey: string, cached: readonly KubeObject[]): boolean {
    const m = this.#byService.get(serviceKey);
    if (!m) return false;
    const byUid = new Map(cached.map((s) => [s.metadata?.uid ?? '', s]));
    for (const [uid, generation] of m) {
      const s = byUid.get(uid);
      if (generation === DELETED) {
        if (s) return true;
      } else if (!s || (s.metadata?.generation ?? 0) < generation) {
        return true;
      }
    }
    return false;
  }

  forgetService(serviceKey: string): void {
    this.#byService.delete(serviceKey);
  }
}

/**
 * The slice events both slice controllers act on: changes to their own slices that the tracker
 * has not already seen as their own writes, and any slice changing hands (its managed-by label)
 */
export function trackedSliceHandlers(tracker: EndpointSliceTracker, ours: (slice: KubeObject) => boolean, queue: (slice: KubeObject) => void): EventHandlers {
  return {
    add: (s) => {
      if (ours(s) && tracker.shouldSync(s)) queue(s);
    },
    update: (old, s) => {
      const handedOver = old.metadata?.labels?.[MANAGED_BY_LABEL] !== s.metadata?.labels?.[MANAGED_BY_LABEL];
      if (handedOver || (ours(s) && tracker.shouldSync(s))) queue(s);
    },
    delete: (s) => {
      if (ours(s) && tracker.handleDeletion(s)) queue(s);
    },
  };
}
