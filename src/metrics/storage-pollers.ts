/**
 * The storage gauges kube refreshes on timers:
 * - apiserver_storage_objects{resource}: every --etcd-count-metric-poll-period, the store's count
 *   of each stored resource's key prefix (resource is kube's `<resource>[.<group>]`)
 * - apiserver_storage_db_total_size_in_bytes{endpoint} (and 1.20's etcd_db_total_size_in_bytes):
 *   every --etcd-db-metric-poll-interval, the size of the database files on disk (SQLite's main
 *   file plus its write-ahead log)
 * A period of 0 turns that poller off. Both run once at start, so the first scrape has figures.
 */
import fs from 'node:fs';
import type { Logger } from 'pino';
import type { Store } from '../storage/store';
import type { ApiServerMetrics } from './apiserver-metrics';

/** where one resource's objects are stored */
export interface StoredResource {
  /** kube's label value: `configmaps`, `deployments.apps` */
  resource: string;
  /** the key prefix every object of the resource lives under */
  prefix: string;
}

export interface StoragePollersOptions {
  store: Store;
  metrics: ApiServerMetrics;
  /** the resources to count, asked again at every poll (custom resources come and go) */
  resources: () => StoredResource[];
  /** 0 = no object counts */
  countPeriodMs: number;
  /** 0 = no database size */
  dbIntervalMs: number;
  /** the database files whose sizes add up to the database size (none for a remote database) */
  dbFiles: string[];
  /** the endpoint label: the storage URL */
  endpoint: string;
  logger?: Logger;
}

export interface StoragePollers {
  /** run both polls now (tests, and the first figures at start) */
  pollNow(): Promise<void>;
  stop(): void;
}

/** the files SQLite keeps for one database */
export function sqliteFiles(file: string): string[] {
  return [file, `${file}-wal`];
}

/** the bytes on disk of files, missing ones counting 0 */
export function filesSize(files: string[]): number {
  let total = 0;
  for (const f of files) {
    try {
      total += fs.statSync(f).size;
    } catch {
      // a WAL that was checkpointed away, or not created yet
    }
  }
  return total;
}

export function startStoragePollers(o: StoragePollersOptions): StoragePollers {
  let stopped = false;
  let counting: Promise<void> | undefined;
  const timers: NodeJS.Timeout[] = [];

  async function countObjects(): Promise<void> {
    const seen = new Set<string>();
    for (const r of o.resources()) {
      if (stopped) return;
      if (seen.has(r.prefix)) continue;
      seen.add(r.prefix);
      try {
        o.metrics.storageObjects.set({ resource: r.resource }, await o.store.count(r.prefix));
      } catch (err) {
        // kube logs and keeps the last figure; the next poll tries again
        o.logger?.warn({ err, resource: r.resource }, 'Counting stored objects failed');
      }
    }
  }

  // polls never overlap: a slow count skips ticks instead of piling up
  const pollCounts = (): Promise<void> => (counting ??= countObjects().finally(() => (counting = undefined)));

  function pollSize(): void {
    const bytes = filesSize(o.dbFiles);
    o.metrics.storageDbSize.set({ endpoint: o.endpoint }, bytes);
    o.metrics.etcdDbSize.set({ endpoint: o.endpoint }, bytes);
  }

  if (o.countPeriodMs > 0) {
    void pollCounts();
    timers.push(setInterval(() => void pollCounts(), o.countPeriodMs));
  }
  if (o.dbIntervalMs > 0 && o.dbFiles.length > 0) {
    pollSize();
    timers.push(setInterval(pollSize, o.dbIntervalMs));
  }
  for (const t of timers) t.unref();

  return {
    async pollNow() {
      if (o.countPeriodMs > 0) await pollCounts();
      if (o.dbIntervalMs > 0 && o.dbFiles.length > 0) pollSize();
    },
    stop() {
      stopped = true;
      for (const t of timers) clearInterval(t);
    },
  };
}
