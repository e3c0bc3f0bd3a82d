import type { Logger } from 'pino';
import { openSqliteStore } from './sqlite/open-sqlite-store';
import { acquireSqliteLock } from './sqlite/sqlite-lock';
import { parseStoreUrl } from './store-url';
import type { Store } from './store';
import type { StoreLock } from './store-lock';

export { parseStoreUrl, StoreUrlError } from './store-url';
export type { StoreLocation } from './store-url';
export { StoreInUseError } from './store-lock';
export type { StoreHolder, StoreLock } from './store-lock';

export interface OpenStoreOptions {
  logger?: Logger;
  /**
   * SQLite synchronous mode: FULL (default) makes each commit durable before it is acknowledged;
   * NORMAL may lose the newest commits on power loss (not on a process crash). `true` means FULL and
   * `false` NORMAL.
   */
  synchronous?: 'FULL' | 'NORMAL' | boolean;
  /** committed events kept in memory for watches starting in the recent past (default 10000) */
  watchBufferSize?: number;
}

/** open the store a URL names (see parseStoreUrl), creating and migrating its schema if needed */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url);
  const synchronous =
    options.synchronous === undefined || options.synchronous === true ? 'FULL' : options.synchronous === false ? 'NORMAL' : options.synchronous;
  return openSqliteStore(location.file, { logger: options.logger, synchronous, watchBufferSize: options.watchBufferSize });
}

/**
 * Take the one-process lock of the store a URL names before anything is written to it (see
 * store-lock.ts); throws StoreInUseError when another live process holds it. Release it after the
 * store is closed.
 */
export function lockStore(url: string, holder: { dataDir?: string } = {}): StoreLock {
  const location = parseStoreUrl(url);
  return acquireSqliteLock(location.file, { dataDir: holder.dataDir });
}
