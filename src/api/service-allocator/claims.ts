/**
 * Allocated service values claimed in storage, so API servers sharing one database (PostgreSQL)
 * never hand the same cluster IP or node port to two services created at the same moment. Each
 * server's allocator picks from what its informer knows; before the service is stored, each new
 * value is claimed by creating `/registry/ranges/serviceips/<ip>` (or `.../servicenodeports/<port>`):
 * creating a key is atomic in the revision log, so of two servers picking the same value only one
 * claim succeeds, and the other picks again. kube keeps its allocation in storage for the same
 * reason (a RangeAllocation bitmap in 1.20, IPAddress objects later).
 *
 * A claim names its service (namespace/name and uid). It goes when the service gives the value up
 * (deleted, changed; every server's informer sees it and removes the claim if it still names that
 * service), when the write that made it fails, and otherwise by repair: a claim whose service does
 * not hold its value is removed once it is older than a write can take.
 */
import type { Logger } from 'pino';
import { isStorageError, type Store } from '../../storage/store';

export type ClaimKind = 'ip' | 'port';

export const CLAIM_PREFIX: Readonly<Record<ClaimKind, string>> = {
  ip: '/registry/ranges/serviceips/',
  port: '/registry/ranges/servicenodeports/',
};

/** a claim younger than this may belong to a write still in flight on some server */
export const CLAIM_GRACE_MS = 60_000;

interface Claim {
  /** namespace/name of the service */
  owner: string;
  uid?: string;
  /** when it was made (ms since the epoch) */
  at: number;
}

export interface AllocationClaimsOptions {
  store: Store;
  /** does the service `owner` hold this value, as this server's informer knows it? */
  holds(kind: ClaimKind, value: string, owner: string): boolean;
  clock?: () => number;
  logger?: Logger;
}

function parse(value: string): Claim | undefined {
  try {
    const c = JSON.parse(value) as Partial<Claim>;
    return typeof c.owner === 'string' ? { owner: c.owner, uid: typeof c.uid === 'string' ? c.uid : undefined, at: Number(c.at) || 0 } : undefined;
  } catch {
    return undefined;
  }
}

export class AllocationClaims {
  readonly #o: AllocationClaimsOptions;
  readonly #clock: () => number;

  constructor(options: AllocationClaimsOptions) {
    this.#o = options;
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * claim value for the service `owner`: true when the claim is (now) the service's, false when
   * another service holds it or another write claimed it moments ago
   */
  async claim(kind: ClaimKind, value: string, owner: string, uid: string | undefined): Promise<boolean> {
    const key = CLAIM_PREFIX[kind] + value;
    const record = JSON.stringify({ owner, uid, at: this.#clock() });
    const { store } = this.#o;
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await store.create(key, record);
        return true;
      } catch (err) {
        if (!isStorageError(err, 'Exists')) throw err;
      }
      const current = await store.get(key);
      if (!current) continue; // removed meanwhile: create again
      const claim = parse(current.value);
      // a retried write of the same service, or the same name asking again (a second create fails
      // as AlreadyExists on its own): nothing to take
      if (claim?.owner === owner) return true;
      if (claim && this.#o.holds(kind, value, claim.owner)) return false;
      if (claim && this.#clock() - claim.at < CLAIM_GRACE_MS) return false;
      // a claim nobody holds and too old to be a write in flight: left behind, take it over
      try {
        await store.update(key, record, current.modRevision);
        return true;
      } catch (err) {
        if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'NotFound')) throw err;
      }
    }
    return false;
  }

  /** remove the claim of value if it still names this service */
  async unclaim(kind: ClaimKind, value: string, owner: string, uid: string | undefined): Promise<void> {
    const key = CLAIM_PREFIX[kind] + value;
    const { store } = this.#o;
    const current = await store.get(key);
    const claim = current && parse(current.value);
    if (!current || !claim || claim.owner !== owner || (uid !== undefined && claim.uid !== undefined && claim.uid !== uid)) return;
    try {
      await store.delete(key, current.modRevision);
    } catch (err) {
      if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'NotFound')) throw err;
    }
  }

  /** remove the claims no service holds that are older than the grace period; returns how many */
  async repair(): Promise<number> {
    let removed = 0;
    for (const kind of ['ip', 'port'] as const) {
      const { items } = await this.#o.store.list(CLAIM_PREFIX[kind]);
      for (const kv of items) {
        const value = kv.key.slice(CLAIM_PREFIX[kind].length);
        const claim = parse(kv.value);
        if (claim && (this.#o.holds(kind, value, claim.owner) || this.#clock() - claim.at < CLAIM_GRACE_MS)) continue;
        try {
          await this.#o.store.delete(kv.key, kv.modRevision);
          removed++;
        } catch (err) {
          if (!isStorageError(err, 'Conflict') && !isStorageError(err, 'NotFound')) throw err;
        }
      }
    }
    if (removed > 0) this.#o.logger?.info({ removed }, 'removed service allocation claims no service holds');
    return removed;
  }
}
