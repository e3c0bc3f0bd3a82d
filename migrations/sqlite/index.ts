import { migrationProvider } from '../index';

/** SQLite's migrations (the shared list of migrations/index.ts) */
export const sqliteMigrationProvider = migrationProvider('sqlite');
