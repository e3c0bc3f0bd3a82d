import type { Migration, MigrationProvider } from 'kysely';
import { revlog0001 } from './0001-revlog';
import { currentKeyIndex0002 } from './0002-current-key-index';
import { currentRowid0003 } from './0003-current-rowid';

/**
 * SQLite migrations, listed statically (not read from a directory) so they work from the compiled
 * dist/ tree and from ts sources alike. Names sort in the order they must run.
 */
const migrations: Readonly<Record<string, Migration>> = Object.freeze({
  '0001-revlog': revlog0001,
  '0002-current-key-index': currentKeyIndex0002,
  '0003-current-rowid': currentRowid0003,
});

export const sqliteMigrationProvider: MigrationProvider = Object.freeze({
  async getMigrations(): Promise<Record<string, Migration>> {
    return { ...migrations };
  },
});
