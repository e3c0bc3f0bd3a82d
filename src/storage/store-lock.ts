/**
 * One process per database where the dialect needs it: a store that learns of commits only from its
 * own writer (SQLite) must have one writer process, or each process's cache misses the other's
 * writes. The lock is taken before anything is written and held for the life of the process. A
 * PostgreSQL store follows the log for other servers' writes, so its lock holds nothing.
 */

/** who holds a store's lock, as its holder recorded it */
export interface StoreHolder {
  readonly pid: number;
  /** the holder's --data-dir, when it said */
  readonly dataDir?: string;
  readonly host?: string;
  /** when the holder took the lock (ISO 8601) */
  readonly since?: string;
}

/** a held lock; release() is idempotent (exiting the process releases it too, kill -9 included) */
export interface StoreLock {
  readonly database: string;
  release(): void;
}

/** the lock is held by another live process; the message is one line naming it */
export class StoreInUseError extends Error {
  readonly database: string;
  readonly holder?: StoreHolder;

  constructor(database: string, holder: StoreHolder | undefined) {
    const who = holder
      ? `another Ballast API server (pid ${holder.pid}${holder.host ? ` on ${holder.host}` : ''}${holder.dataDir ? `, data dir ${holder.dataDir}` : ''})`
      : 'another process';
    super(`the database ${database} is in use by ${who}; stop it first, or give this server its own --data-dir or --etcd-servers`);
    this.name = 'StoreInUseError';
    this.database = database;
    this.holder = holder;
  }
}
