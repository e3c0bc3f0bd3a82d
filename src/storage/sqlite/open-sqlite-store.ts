import { openSqliteConnections } from './sqlite-connections';
import { SqliteStore, type SqliteStoreOptions } from './sqlite-store';

export interface OpenSqliteStoreOptions extends Omit<SqliteStoreOptions, 'writer' | 'reader'> {
  /** FULL (default): every acknowledged commit is on disk; NORMAL: the newest may be lost on power loss */
  synchronous?: 'FULL' | 'NORMAL';
}

/** open (creating and migrating if needed) a SQLite database file as a Store */
export async function openSqliteStore(file: string, options: OpenSqliteStoreOptions = {}): Promise<SqliteStore> {
  const { synchronous = 'FULL', ...storeOptions } = options;
  const { writer, reader } = await openSqliteConnections(file, { synchronous, logger: options.logger });
  try {
    return new SqliteStore({ ...storeOptions, writer, reader, file });
  } catch (err) {
    reader.close();
    writer.close();
    throw err;
  }
}
