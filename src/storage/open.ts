import type { Logger } from 'pino';
import { openSqliteStore } from './sqlite/open-sqlite-store';
import { acquireSqliteLock } from './sqlite/sqlite-lock';
import { openPostgresStore } from './postgres/open-postgres-store';
import type { PostgresTlsFiles } from './postgres/pg-connections';
import { parseStoreUrl, storeIdOf } from './store-url';
import type { Store } from './store';
import type { StoreLock } from './store-lock';
import { API_KEY_ROOT, PrefixedStore } from './prefixed-store';
import { RoutingStore } from './routing-store';
import type { ServersOverride } from './servers-overrides';

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
  /** PostgreSQL: --etcd-cafile, --etcd-certfile, --etcd-keyfile */
  tls?: PostgresTlsFiles;
}

/** open the store a URL names (see parseStoreUrl), creating and migrating its schema if needed */
export async function openStore(url: string, options: OpenStoreOptions = {}): Promise<Store> {
  const location = parseStoreUrl(url);
  const synchronous =
    options.synchronous === undefined || options.synchronous === true ? 'FULL' : options.synchronous === false ? 'NORMAL' : options.synchronous;
  if (location.dialect === 'postgres') {
    return openPostgresStore(location.url, location.id, { logger: options.logger, tls: options.tls, watchBufferSize: options.watchBufferSize });
  }
  return openSqliteStore(location.file, { logger: options.logger, synchronous, watchBufferSize: options.watchBufferSize });
}

/**
 * Take the one-process lock of the store a URL names before anything is written to it (see
 * store-lock.ts); throws StoreInUseError when another live process holds it. Release it after the
 * store is closed. A PostgreSQL database is shared by design: its lock holds nothing.
 */
export function lockStore(url: string, holder: { dataDir?: string } = {}): StoreLock {
  const location = parseStoreUrl(url);
  if (location.dialect === 'postgres') return Object.freeze({ database: location.id, release() {} });
  return acquireSqliteLock(location.file, { dataDir: holder.dataDir });
}

/** the distinct databases of --etcd-servers and --etcd-servers-overrides, the default first */
export function storeUrls(url: string, overrides: readonly { url: string }[]): string[] {
  const byId = new Map<string, string>([[storeIdOf(parseStoreUrl(url)), url]]);
  for (const o of overrides) {
    const id = storeIdOf(parseStoreUrl(o.url));
    if (!byId.has(id)) byId.set(id, o.url);
  }
  return [...byId.values()];
}

/**
 * lockStore for each database of storeUrls, as one lock (database: the default one); when one is
 * held elsewhere, the ones taken are released and StoreInUseError names the busy one
 */
export function lockStores(urls: readonly string[], holder: { dataDir?: string } = {}): StoreLock {
  const locks: StoreLock[] = [];
  try {
    for (const url of urls) locks.push(lockStore(url, holder));
  } catch (err) {
    for (const l of locks) l.release();
    throw err;
  }
  return {
    database: locks[0].database,
    release() {
      for (const l of locks) l.release();
    },
  };
}

export interface OpenStoresOptions extends OpenStoreOptions {
  /** --etcd-servers */
  url: string;
  /** --etcd-servers-overrides: resources kept in other databases */
  overrides?: readonly ServersOverride[];
  /** --etcd-prefix, normalised; '/registry' (or undefined) stores the API keys as they are */
  prefix?: string;
  /** layers put over each database's store (metrics, encryption), innermost first */
  wrap?: (store: Store, url: string) => Store;
}

export interface OpenedDatabase {
  readonly url: string;
  /** the SQLite file's path or the PostgreSQL database's id (no password) */
  readonly id: string;
  /** the SQLite file (undefined for PostgreSQL) */
  readonly file?: string;
  /** the database's store, prefixed and wrapped */
  readonly store: Store;
}

/**
 * Open the default store and one store per database the overrides name (resources sharing a URL
 * share a store), each under the key prefix and wrapped; with overrides, `store` routes keys to them.
 */
export async function openStores(options: OpenStoresOptions): Promise<{ store: Store; databases: OpenedDatabase[] }> {
  const { url, overrides = [], prefix, wrap = (s) => s, ...storeOptions } = options;
  const databases: OpenedDatabase[] = [];
  try {
    for (const u of storeUrls(url, overrides)) {
      let store = await openStore(u, storeOptions);
      if (prefix !== undefined && prefix !== API_KEY_ROOT) store = new PrefixedStore(store, prefix);
      const location = parseStoreUrl(u);
      databases.push({ url: u, id: storeIdOf(location), file: location.dialect === 'sqlite' ? location.file : undefined, store: wrap(store, u) });
    }
  } catch (err) {
    await Promise.all(databases.map((d) => d.store.close()));
    throw err;
  }
  if (overrides.length === 0) return { store: databases[0].store, databases };
  const byId = new Map(databases.map((d) => [d.id, d.store]));
  const routes = overrides.map((o) => ({ prefix: o.keyPrefix, store: byId.get(storeIdOf(parseStoreUrl(o.url)))! }));
  return { store: new RoutingStore({ fallback: databases[0].store, routes }), databases };
}
