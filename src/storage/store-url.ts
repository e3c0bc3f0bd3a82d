/**
 * Storage URLs (`--etcd-servers`). Kept apart from open.ts so that option parsing can check a URL
 * without loading the SQLite driver: a bad URL is refused before anything is written.
 */
import path from 'node:path';

/** where a store lives, from its URL */
export type StoreLocation = { dialect: 'sqlite'; file: string };

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

const EXPECTED = 'expected sqlite:///path/to/state.db';

/**
 * Parse a storage URL:
 * - `sqlite:///abs/path.db` -> /abs/path.db
 * - `sqlite://relative/path.db` -> relative/path.db (against the working directory)
 * - a bare path (no scheme) -> that path
 * Other schemes throw StoreUrlError (postgres:// is not served yet).
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
      throw new StoreUrlError(url, 'PostgreSQL storage is not available yet; use sqlite:///path/to/state.db');
    default:
      throw new StoreUrlError(url, `unknown scheme "${scheme}" (${EXPECTED})`);
  }
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
