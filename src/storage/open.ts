import path from 'node:path';
import type { Logger } from 'pino';
import { openSqliteStore } from './sqlite/open-sqlite-store';
import type { Store } from './store';

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

/** where a store lives, from its URL */
export type StoreLocation = { dialect: 'sqlite'; file: string };

/**
 * Parse a storage URL:
 * - `sqlite:///abs/path.db` -> /abs/path.db
 * - `sqlite://relative/path.db` -> relative/path.db (against the working directory)
 * - a bare path (no scheme) -> that path
 * Other schemes throw (postgres:// is not served yet).
 */
export function parseStoreUrl(url: string): StoreLocation {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/.exec(url);
  if (!match) {
    if (url === '') throw new Error('storage URL is empty: expected sqlite:///path/to/state.db');
    return { dialect: 'sqlite', file: path.resolve(url) };
  }
  const [, scheme, rest] = match;
  switch (scheme.toLowerCase()) {
    case 'sqlite':
    case 'sqlite3':
      if (rest === '' || rest === '/') throw new Error(`storage URL ${url} names no file: expected sqlite:///path/to/state.db`);
      return { dialect: 'sqlite', file: path.resolve(decodeURIComponent(rest)) };
    case 'postgres':
    case 'postgresql':
      throw new Error(`storage URL ${url}: PostgreSQL storage is not available yet; use sqlite:///path/to/state.db`);
    default:
      throw new Error(`storage URL ${url}: unknown scheme "${scheme}" (expected sqlite:///path/to/state.db)`);
  }
}

/** open the store a URL names (see parseStoreUrl), creating and migrating its schema if needed */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url);
  const synchronous =
    options.synchronous === undefined || options.synchronous === true ? 'FULL' : options.synchronous === false ? 'NORMAL' : options.synchronous;
  return openSqliteStore(location.file, { logger: options.logger, synchronous, watchBufferSize: options.watchBufferSize });
}
