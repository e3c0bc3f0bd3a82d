/**
 * kube's ControllerExpectations: after a sync creates or deletes N pods, the controller waits to
 * see N adds (or deletes) in its informer before it trusts its cache again, so a second sync does
 * not create the same pods twice. Expectations older than five minutes are ignored (a watch event
 * may have been lost) and the controller syncs anyway.
 */

export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

interface Expectation {
  add: number;
  del: number;
  at: number;
  /** uids of pods whose deletion we wait to observe (kube's UIDTrackingControllerExpectations) */
  deleting: Set<string>;
}

export class ControllerExpectations {
  readonly #items = new Map<string, Expectation>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** true when the controller may sync `key`: nothing pending, or the expectations expired */
  satisfied(key: string): boolean {
    const e = this.#items.get(key);
    if (!e) return true;
    if (e.add <= 0 && e.del <= 0) return true;
    return this.#now() - e.at > EXPECTATIONS_TIMEOUT_MS;
  }

  expectCreations(key: string, n: number): void {
    this.#items.set(key, { add: n, del: 0, at: this.#now(), deleting: new Set() });
  }

  expectDeletions(key: string, uids: readonly string[]): void {
    this.#items.set(key, { add: 0, del: uids.length, at: this.#now(), deleting: new Set(uids) });
  }

  creationObserved(key: string): void {
    const e = this.#items.get(key);
    if (e) e.add -= 1;
  }

  /** a pod was seen deleted; counted once per uid we wait for (or once when not tracking uids) */
  deletionObserved(key: string, uid?: string): void {
    const e = this.#items.get(key);
    if (!e) return;
    if (uid !== undefined && e.deleting.size > 0) {
      if (!e.deleting.delete(uid)) return;
    }
    e.del -= 1;
  }

  /** give up waiting for `n` creations that failed (kube's CreationObserved per failure) */
  lowerCreations(key: string, n: number): void {
    const e = this.#items.get(key);
    if (e) e.add -= n;
  }

  forget(key: string): void {
    this.#items.delete(key);
  }
}
