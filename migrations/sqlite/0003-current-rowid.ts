import { sql } from 'kysely';
import type { Kysely, Migration } from 'kysely';

/**
 * `current` becomes an ordinary rowid table with a unique key index. As a WITHOUT ROWID table its
 * rows lived in an index b-tree, where a row keeps at most ~1 KiB on its leaf page (4 KiB pages):
 * every object of 1-4 KiB spilled into an overflow page of its own, mostly empty. At 100k objects of
 * 1.3 KiB the table took 460 MB and a page of 500 read ~670 pages. A rowid table keeps rows of up to
 * ~4 KiB on the leaf and fills overflow pages completely: 136 MB, and a page of 500 about twice as
 * fast. The key index (range scans, lookups, counts) replaces 0002's narrow index.
 */
export const currentRowid0003: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('current_next')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('mod_revision', 'integer', (c) => c.notNull())
      .addColumn('create_revision', 'integer', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO current_next (key, value, mod_revision, create_revision)
      SELECT key, value, mod_revision, create_revision FROM current ORDER BY key`.execute(db);
    await db.schema.dropIndex('current_key').execute();
    await db.schema.dropTable('current').execute();
    await db.schema.alterTable('current_next').renameTo('current').execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema
      .createTable('current_prev')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('mod_revision', 'integer', (c) => c.notNull())
      .addColumn('create_revision', 'integer', (c) => c.notNull())
      .modifyEnd(sql`without rowid`)
      .execute();
    await sql`INSERT INTO current_prev (key, value, mod_revision, create_revision)
      SELECT key, value, mod_revision, create_revision FROM current ORDER BY key`.execute(db);
    await db.schema.dropTable('current').execute();
    await db.schema.alterTable('current_prev').renameTo('current').execute();
    await db.schema.createIndex('current_key').on('current').column('key').execute();
  },
};
