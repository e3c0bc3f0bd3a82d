import fs from 'node:fs';
import { Kysely, Migrator, PostgresDialect } from 'kysely';
import pg from 'pg';
import { parse as parseConnectionString } from 'pg-connection-string';
import type { Logger } from 'pino';
import { migrationProvider } from '../../../migrations';
import { StorageError } from '../store';

/** --etcd-cafile, --etcd-certfile, --etcd-keyfile */
export interface PostgresTlsFiles {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export interface PostgresConnectionOptions {
  tls?: PostgresTlsFiles;
  /** connections of the pool (reads, and one at a time for the writer; default 10) */
  poolSize?: number;
  /** how long a request waits to connect before it fails (default 5000 ms) */
  connectTimeoutMs?: number;
  /** shown in pg_stat_activity */
  applicationName?: string;
  logger?: Logger;
}

/** bigint (int8) columns and count(*) as numbers: revisions stay far below 2^53 */
const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * The driver's connection settings for a postgres:// URL and the TLS flags. The URL's sslmode has
 * libpq's meaning: disable (no TLS), require (TLS; the server's certificate is checked only against
 * --etcd-cafile when given), verify-ca (checked against the CA, any host name), verify-full (CA and
 * host name), no-verify (TLS, unchecked); without sslmode, TLS is used when a TLS flag is given
 * (verify-full with --etcd-cafile). --etcd-certfile/--etcd-keyfile are the client certificate.
 */
export function clientConfig(url: string, options: PostgresConnectionOptions = {}): pg.ClientConfig {
  const parsed = parseConnectionString(url);
  const sslmode = new URL(url).searchParams.get('sslmode') ?? undefined;
  const tls = options.tls ?? {};
  const files = Boolean(tls.caFile || tls.certFile || tls.keyFile);
  if (sslmode === 'disable' && files) throw new Error(`sslmode=disable in ${redact(url)} contradicts the --etcd-cafile/--etcd-certfile/--etcd-keyfile given`);
  let ssl: pg.ClientConfig['ssl'] = false;
  const useTls = sslmode !== undefined ? !['disable', 'allow', 'prefer'].includes(sslmode) || files : files;
  if (useTls) {
    const mode = sslmode && !['allow', 'prefer'].includes(sslmode) ? sslmode : tls.caFile ? 'verify-full' : 'require';
    const ca = tls.caFile ? fs.readFileSync(tls.caFile, 'utf8') : undefined;
    const verify = mode === 'verify-ca' || mode === 'verify-full' || (mode === 'require' && ca !== undefined);
    ssl = {
      ca,
      cert: tls.certFile ? fs.readFileSync(tls.certFile, 'utf8') : undefined,
      key: tls.keyFile ? fs.readFileSync(tls.keyFile, 'utf8') : undefined,
      rejectUnauthorized: verify,
      // verify-ca and require check the chain only, as libpq does
      ...(verify && mode !== 'verify-full' ? { checkServerIdentity: () => undefined } : {}),
    };
  }
  return {
    host: parsed.host ?? undefined,
    port: parsed.port ? Number(parsed.port) : undefined,
    user: parsed.user,
    password: parsed.password,
    database: parsed.database ?? undefined,
    application_name: options.applicationName ?? 'ballast',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
    ssl,
    types,
  };
}

/** the URL without its password, for messages */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/** a pool with these settings; a connection that fails while idle is logged (it would otherwise end the process) */
export function openPool(config: pg.ClientConfig, options: Pick<PostgresConnectionOptions, 'poolSize' | 'logger'> = {}): pg.Pool {
  const pool = new pg.Pool({ ...config, max: options.poolSize ?? 10 });
  pool.on('error', (err) => options.logger?.warn({ err: err.message }, 'an idle PostgreSQL connection failed'));
  return pool;
}

/**
 * Create or bring up to date the schema (kysely's migrator takes a lock of its own, so servers
 * starting together migrate once) and check the database sorts keys as the contract needs.
 */
export async function migratePostgres(pool: pg.Pool, id: string, logger?: Logger): Promise<void> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: borrow(pool) }) });
  try {
    const { error, results } = await new Migrator({ db, provider: migrationProvider('postgres') }).migrateToLatest();
    for (const r of results ?? []) logger?.info({ migration: r.migrationName, status: r.status }, 'storage migration');
    if (error) throw new StorageError('Unavailable', `migrating ${id} failed: ${(error as Error).message}`, { cause: error });
  } finally {
    await db.destroy();
  }
  const { rows } = await pool.query<{ encoding: string }>('SELECT current_setting(\'server_encoding\') AS encoding');
  if (rows[0]?.encoding !== 'UTF8') {
    throw new StorageError('Unavailable', `${id} has server encoding ${rows[0]?.encoding}; Ballast needs a UTF8 database (createdb -E UTF8)`);
  }
}

/** the pool as kysely's dialect sees it, with end() a no-op: the store owns the pool and ends it */
function borrow(pool: pg.Pool): pg.Pool {
  return new Proxy(pool, {
    get(target, prop, receiver) {
      if (prop === 'end') return async () => undefined;
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** a StorageError for a failed query: the database is unreachable or refused */
export function pgFailure(err: unknown, what: string): StorageError {
  if (err instanceof StorageError) return err;
  const e = err as { message?: string; code?: string };
  const detail = `${e?.message ?? String(err)}${e?.code ? ` (${e.code})` : ''}`;
  return new StorageError('Unavailable', `${what}: ${detail}`, { cause: err });
}
