import type { Logger } from 'pino';
import { clientConfig, migratePostgres, openPool, pgFailure, type PostgresTlsFiles } from './pg-connections';
import { PostgresReader } from './postgres-reader';
import { PostgresStore, type PostgresStoreOptions } from './postgres-store';

export interface OpenPostgresStoreOptions extends Omit<PostgresStoreOptions, 'pool' | 'clientConfig' | 'initial' | 'id'> {
  tls?: PostgresTlsFiles;
  poolSize?: number;
  logger?: Logger;
}

/** connect to a postgres:// URL, create or migrate the schema, and open the database as a Store */
export async function openPostgresStore(url: string, id: string, options: OpenPostgresStoreOptions = {}): Promise<PostgresStore> {
  const { tls, poolSize, ...storeOptions } = options;
  const config = clientConfig(url, { tls, logger: options.logger });
  const pool = openPool(config, { poolSize, logger: options.logger });
  try {
    try {
      await pool.query('SELECT 1');
    } catch (err) {
      throw pgFailure(err, `connecting to ${id} failed`);
    }
    await migratePostgres(pool, id, options.logger);
    const initial = await new PostgresReader(pool).state();
    return new PostgresStore({ ...storeOptions, pool, clientConfig: config, initial, id });
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw pgFailure(err, `opening ${id} failed`);
  }
}
