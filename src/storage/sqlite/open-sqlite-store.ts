import type { Logger } from 'pino';
import { openSqliteConnections } from './sqlite-connections';
import { SqliteStore } from './sqlite-store';

export interface OpenSqliteStoreOptions {
  logger?: Logger;
  synchronous?: 'FULL' | 'NORMAL';
  watchBufferSize?: number;
  checkpointIntervalMs?: number;
  progressIntervalMs?: number;
  compactBatchSize?: number;
}

/** open (creating and migrating if needed) a SQLite database file as a Store */
export async function openSqliteStore(file: string, options: OpenSqliteStoreOptions = {}): Promise<SqliteStore> {
  const { writer, reader } = await openSqliteConnections(file, {
    synchronous: options.synchronous ?? 'FULL',
    logger: options.logger,
  });
  try {
    return new SqliteStore({ ...options, writer, reader });
  } catch (err) {
    reader.close();
    writer.close();
    throw err;
  }
}
