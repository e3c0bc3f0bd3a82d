import type { Migration, MigrationProvider } from 'kysely';
import { revlog0001Postgres, unchangedOnPostgres } from './postgres/0001-revlog';
import { revlog0001 } from './sqlite/0001-revlog';
import { currentKeyIndex0002 } from './sqlite/0002-current-key-index';
import { currentRowid0003 } from './sqlite/0003-current-rowid';

export type MigrationDialect = 'sqlite' | 'postgres';

/**
 * The one list of schema migrations, each with its form for every dialect, listed statically (not
 * read from a directory) so they work from the compiled dist/ tree and from ts sources alike. Names
 * sort in the order they must run. A step that only one dialect needs is an empty migration for the
 * other, so both databases record the same names.
 */
const steps: ReadonlyArray<{ name: string } & Record<MigrationDialect, Migration>> = [
  { name: '0001-revlog', sqlite: revlog0001, postgres: revlog0001Postgres },
  // PostgreSQL's 0001 already has the current table's final shape (a heap table with a b-tree key)
  { name: '0002-current-key-index', sqlite: currentKeyIndex0002, postgres: unchangedOnPostgres },
  { name: '0003-current-rowid', sqlite: currentRowid0003, postgres: unchangedOnPostgres },
];

export function migrationProvider(dialect: MigrationDialect): MigrationProvider {
  const migrations = Object.fromEntries(steps.map((s) => [s.name, s[dialect]]));
  return Object.freeze({
    async getMigrations(): Promise<Record<string, Migration>> {
      return { ...migrations };
    },
  });
}
