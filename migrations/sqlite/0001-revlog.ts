import { sql, type Kysely, type Migration } from 'kysely';

/**
 * The revision log, the current-state table and the meta table.
 * `log.id` is INTEGER PRIMARY KEY AUTOINCREMENT so SQLite never hands out an id twice, even after the
 * newest rows were removed by compaction: a revision is never reused.
 */
export const revlog0001: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('log')
      .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('create_revision', 'integer', (c) => c.notNull())
      .addColumn('prev_revision', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('op', 'text', (c) => c.notNull().check(sql`op in ('create', 'update', 'delete')`))
      .execute();
    // historical point reads (newest row of a key at or below a revision) and per-key history
    await db.schema.createIndex('log_key_id').on('log').columns(['key', 'id']).execute();

    await db.schema
      .createTable('current')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('mod_revision', 'integer', (c) => c.notNull())
      .addColumn('create_revision', 'integer', (c) => c.notNull())
      .modifyEnd(sql`without rowid`)
      .execute();

    await db.schema
      .createTable('meta')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'integer', (c) => c.notNull())
      .execute();
    await db
      .insertInto('meta')
      .values([
        { name: 'compact_revision', value: 0 },
        { name: 'compact_cursor', value: 0 },
      ])
      .execute();
  },

  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropTable('meta').execute();
    await db.schema.dropTable('current').execute();
    await db.schema.dropTable('log').execute();
  },
};
