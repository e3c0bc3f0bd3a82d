import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import type { Logger } from 'pino';
import { sqliteMigrationProvider } from '../../../migrations/sqlite';
import { StorageError } from '../store';

export interface SqliteConnectionOptions {
  /** FULL (default) makes every commit durable at once; NORMAL may lose the last commits on power loss */
  synchronous: 'FULL' | 'NORMAL';
  logger?: Logger;
}

export interface SqliteConnections {
  writer: Database.Database;
  reader: Database.Database;
}

const BUSY_TIMEOUT_MS = 5000;
/** the WAL file is truncated back to this size after a checkpoint resets it */
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

/**
 * Open (creating if needed) and migrate the database file, then open the single writer connection
 * and a reader connection. WAL lets the reader run while the writer commits.
 */
export async function openSqliteConnections(file: string, options: SqliteConnectionOptions): Promise<SqliteConnections> {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  await migrate(file, options.logger);

  const writer = new Database(file);
  try {
    writer.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    writer.pragma('journal_mode = WAL');
    writer.pragma(`synchronous = ${options.synchronous}`);
    writer.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    // checkpoints run on a timer, not inside whichever commit crosses the WAL size threshold
    writer.pragma('wal_autocheckpoint = 0');
  } catch (err) {
    writer.close();
    throw err;
  }
  const reader = new Database(file);
  reader.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  reader.pragma('query_only = ON');
  return { writer, reader };
}

async function migrate(file: string, logger: Logger | undefined): Promise<void> {
  const conn = new Database(file);
  conn.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // auto_vacuum can only be chosen before the first table exists (kysely's own tables included)
  if (Number(conn.pragma('page_count', { simple: true })) === 0) conn.pragma('auto_vacuum = INCREMENTAL');
  conn.pragma('journal_mode = WAL');
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: conn }) });
  try {
    const { error, results } = await new Migrator({ db, provider: sqliteMigrationProvider }).migrateToLatest();
    for (const r of results ?? []) logger?.info({ migration: r.migrationName, status: r.status }, 'storage migration');
    if (error) throw new StorageError('Unavailable', `migrating ${file} failed`, { cause: error });
  } finally {
    await db.destroy();
  }
}
