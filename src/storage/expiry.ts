/**
 * --event-ttl: kube-apiserver writes every Event on an etcd lease of that TTL, renewed by each write,
 * so an event disappears that long after its last write. The SQL log has no leases; instead a
 * periodic sweep lists the prefix and deletes, through the store (watchers see DELETED), each key
 * whose last write is older than the TTL. A delete carries the revision the sweep read, so a write
 * that lands in between wins and restarts the clock.
 *
 * When was a key last written? A key the sweep has already seen is dated by the sweep that first saw
 * its current revision (at most one interval late, so it lives at most one interval longer). A key
 * seen for the first time (every key after a restart) is dated by the caller's `writtenAt`, which
 * reads the object's own timestamps; those survive restarts with the object.
 */
import type { Logger } from 'pino';
import { isStorageError } from './store';
import type { KeyValue, Revision, Store } from './store';

export interface ExpiryOptions {
  store: Store;
  /** the keys that expire, e.g. `/registry/core/events/` */
  prefix: string;
  ttlMs: number;
  /** the time (ms since the epoch) the value was written, from what it records; undefined: unknown (dated now) */
  writtenAt: (kv: KeyValue) => number | undefined;
  /** default: a quarter of the TTL, between 1 s and 1 min */
  intervalMs?: number;
  clock?: () => number;
  logger?: Logger;
}

export interface Expiry {
  /** one sweep now; resolves to the number of keys deleted */
  sweep(): Promise<number>;
  stop(): void;
}

const PAGE = 500;

export function sweepInterval(ttlMs: number): number {
  return Math.min(60_000, Math.max(1000, Math.floor(ttlMs / 4)));
}

export function startExpiry(options: ExpiryOptions): Expiry {
  const { store, prefix, ttlMs, writtenAt, logger } = options;
  const clock = options.clock ?? Date.now;
  /** key -> the revision seen and when it was (taken to be) written */
  let seen = new Map<string, { revision: Revision; at: number }>();
  let running: Promise<number> | undefined;
  let stopped = false;

  const dateOf = (kv: KeyValue, now: number): number => {
    const before = seen.get(kv.key);
    if (before && before.revision === kv.modRevision) return before.at;
    if (before) return now;
    let at: number | undefined;
    try {
      at = writtenAt(kv);
    } catch {
      at = undefined;
    }
    return at === undefined || !Number.isFinite(at) ? now : Math.min(at, now);
  };

  const sweepOnce = async (): Promise<number> => {
    const now = clock();
    const next = new Map<string, { revision: Revision; at: number }>();
    const expired: KeyValue[] = [];
    let startKey: string | undefined;
    for (;;) {
      const page = await store.list(prefix, { startKey, limit: PAGE, countRemaining: false });
      for (const kv of page.items) {
        const at = dateOf(kv, now);
        if (now - at >= ttlMs) expired.push(kv);
        else next.set(kv.key, { revision: kv.modRevision, at });
      }
      if (!page.more || page.items.length === 0) break;
      startKey = `${page.items[page.items.length - 1].key}\u0000`;
    }
    seen = next;
    let deleted = 0;
    for (const kv of expired) {
      if (stopped) break;
      try {
        await store.delete(kv.key, kv.modRevision);
        deleted++;
      } catch (err) {
        // written again since the list (its clock restarts) or deleted by someone else
        if (isStorageError(err, 'Conflict') || isStorageError(err, 'NotFound')) continue;
        throw err;
      }
    }
    if (deleted > 0) logger?.debug({ prefix, deleted }, 'expired keys deleted');
    return deleted;
  };

  const sweep = (): Promise<number> => {
    running ??= sweepOnce().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    sweep().catch((err) => {
      if (!stopped) logger?.warn({ err, prefix }, 'expiry sweep failed; retrying at the next interval');
    });
  }, options.intervalMs ?? sweepInterval(ttlMs));
  timer.unref();
  return {
    sweep,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * the newest time an object records about its writes (Events: lastTimestamp, eventTime,
 * series.lastObservedTime, the managedFields times, creationTimestamp); undefined when none parses
 */
export function newestRecordedTime(obj: unknown): number | undefined {
  const o = (obj ?? {}) as {
    metadata?: { creationTimestamp?: unknown; managedFields?: Array<{ time?: unknown }> };
    lastTimestamp?: unknown;
    eventTime?: unknown;
    series?: { lastObservedTime?: unknown };
  };
  const candidates = [
    o.metadata?.creationTimestamp,
    o.lastTimestamp,
    o.eventTime,
    o.series?.lastObservedTime,
    ...(Array.isArray(o.metadata?.managedFields) ? o.metadata!.managedFields.map((m) => m?.time) : []),
  ];
  let newest: number | undefined;
  for (const c of candidates) {
    if (typeof c !== 'string') continue;
    const t = Date.parse(c);
    if (Number.isFinite(t) && (newest === undefined || t > newest)) newest = t;
  }
  return newest;
}
