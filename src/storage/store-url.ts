/**
 * Storage URLs (`--etcd-servers`). Kept apart from open.ts so that option parsing can check a URL
 * without loading the SQLite driver: a bad URL is refused before anything is written.
 */
import path from 'node:path';

/** where a store lives, from its URL */
export type StoreLocation =
  | { dialect: 'sqlite'; file: string }
  /**
   * `url` is the connection string as given (for the driver); `id` names the database without the
   * password (`postgres://user@host:port/db`), for logs and to tell databases apart
   */
  | { dialect: 'postgres'; url: string; id: string };

/** what tells two databases apart: a SQLite file's absolute path, a PostgreSQL database's id */
export function storeIdOf(location: StoreLocation): string {
  return location.dialect === 'sqlite' ? location.file : location.id;
}

/** a storage URL that names no store Ballast can open; `problem` says why without repeating the URL */
export class StoreUrlError extends Error {
  readonly url: string;
  readonly problem: string;

  constructor(url: string, problem: string) {
    super(url === '' ? `storage URL is empty: ${problem}` : `storage URL ${url}: ${problem}`);
    this.name = 'StoreUrlError';
    this.url = url;
    this.problem = problem;
  }
}

const EXPECTED = 'expected sqlite:///path/to/state.db or postgres://user:password@host:port/database';

/** libpq's sslmode values (pg also takes no-verify: encrypted, the certificate not checked) */
const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/**
 * Parse a storage URL:
 * - `sqlite:///abs/path.db` -> /abs/path.db
 * - `sqlite://relative/path.db` -> relative/path.db (against the working directory)
 * - a bare path (no scheme) -> that path
 * - `postgres://user:password@host:port/database?sslmode=...` (or `postgresql://`) -> that database;
 *   the host may be a Unix socket directory (`postgres://user@%2Frun%2Fpostgresql/db`)
 * Other schemes throw StoreUrlError.
 */
export function parseStoreUrl(url: string): StoreLocation {
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(.*)$/.exec(url);
  if (!match) {
    if (url === '') throw new StoreUrlError(url, EXPECTED);
    return { dialect: 'sqlite', file: path.resolve(url) };
  }
  const [, scheme, rest] = match;
  switch (scheme.toLowerCase()) {
    case 'sqlite':
    case 'sqlite3': {
      if (rest === '' || rest === '/') throw new StoreUrlError(url, `names no file: ${EXPECTED}`);
      let file: string;
      try {
        file = decodeURIComponent(rest);
      } catch {
        throw new StoreUrlError(url, `the file name is not a valid URL path (bad %-escape): ${EXPECTED}`);
      }
      return { dialect: 'sqlite', file: path.resolve(file) };
    }
    case 'postgres':
    case 'postgresql':
      return parsePostgresUrl(url);
    default:
      throw new StoreUrlError(url, `unknown scheme "${scheme}" (${EXPECTED})`);
  }
}

function parsePostgresUrl(url: string): StoreLocation {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new StoreUrlError(url, `not a valid URL: ${EXPECTED}`);
  }
  let database: string;
  let host: string;
  try {
    database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
    host = decodeURIComponent(parsed.hostname) || parsed.searchParams.get('host') || '';
  } catch {
    throw new StoreUrlError(url, 'bad %-escape in the host or database name');
  }
  if (database === '' || database.includes('/')) throw new StoreUrlError(url, `names no database: ${EXPECTED}`);
  if (host === '') throw new StoreUrlError(url, `names no host: ${EXPECTED}`);
  const sslmode = parsed.searchParams.get('sslmode');
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
    throw new StoreUrlError(url, `sslmode "${sslmode}" is not one of ${SSL_MODES.join(', ')}`);
  }
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
  const port = parsed.port || '5432';
  return { dialect: 'postgres', url, id: `postgres://${user}${host.includes('/') ? encodeURIComponent(host) : host}:${port}/${database}` };
}

/** why a storage URL cannot be used, or undefined when parseStoreUrl accepts it */
export function storeUrlProblem(url: string): string | undefined {
  try {
    parseStoreUrl(url);
    return undefined;
  } catch (err) {
    if (err instanceof StoreUrlError) return err.problem;
    throw err;
  }
}
