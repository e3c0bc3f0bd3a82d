import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The revision log, the current-state table and the meta table on PostgreSQL: the same tables as
 * SQLite's 0001-0003 end with. Keys are text in the "C" collation, so they sort by their UTF-8 bytes
 * as SQLite's BINARY collation does (the Store contract's order, and what prefix ranges rely on).
 * `log.id` is assigned by the writer from meta's `revision` row, locked until commit (see
 * postgres-writer.ts): no sequence, since a sequence hands out numbers outside transactions and a
 * rolled-back write would leave a gap.
 */
export const revlog0001Postgres: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('log')
      .addColumn('id', 'bigint', (c) => c.primaryKey())
      .addColumn('key', sql`text collate "C"`, (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('create_revision', 'bigint', (c) => c.notNull())
      .addColumn('prev_revision', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('op', 'text', (c) => c.notNull().check(sql`op in ('create', 'update', 'delete')`))
      .execute();
    await db.schema.createIndex('log_key_id').on('log').columns(['key', 'id']).execute();

    await db.schema
      .createTable('current')
      .addColumn('key', sql`text collate "C"`, (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('mod_revision', 'bigint', (c) => c.notNull())
      .addColumn('create_revision', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('meta')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'bigint', (c) => c.notNull())
      .execute();
    await db
      .insertInto('meta')
      .values([
        { name: 'compact_revision', value: 0 },
        { name: 'compact_cursor', value: 0 },
        // the newest revision handed out (SQLite keeps it in sqlite_sequence)
        { name: 'revision', value: 0 },
      ])
      .execute();
  },

  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('meta').execute();
    await db.schema.dropTable('current').execute();
    await db.schema.dropTable('log').execute();
  },
};

/** a step of the shared list that only SQLite's file layout needed */
export const unchangedOnPostgres: Migration = {
  async up(): Promise<void> {},
  async down(): Promise<void> {},
};
