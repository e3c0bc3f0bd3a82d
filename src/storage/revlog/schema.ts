import type { Generated } from 'kysely';

/** What a log row records: the mutation that produced the row's revision. */
export type LogOp = 'create' | 'update' | 'delete';

/**
 * The revision log: one row per committed mutation; `id` is the revision. Rows are never updated,
 * only removed by compaction. A delete row (tombstone) keeps no value: the deleted value is the row
 * at `prev_revision`.
 */
export interface LogTable {
  id: Generated<number>;
  key: string;
  value: string;
  create_revision: number;
  /** the key's previous log row (the superseded value, or the tombstone before a re-create); 0 if none */
  prev_revision: number;
  op: LogOp;
}

/** The newest state: one row per live key, written in the same transaction as its log row. */
export interface CurrentTable {
  key: string;
  value: string;
  mod_revision: number;
  create_revision: number;
}

/**
 * Small named integers: `compact_revision`, `compact_cursor` (the highest log id compaction has
 * processed) and, on PostgreSQL, `revision`.
 */
export interface MetaTable {
  name: string;
  value: number;
}

/** SQLite's own bookkeeping for AUTOINCREMENT: the highest id ever handed out for `log`. */
export interface SqliteSequenceTable {
  name: string;
  seq: number;
}

export interface RevlogDatabase {
  log: LogTable;
  current: CurrentTable;
  meta: MetaTable;
  sqlite_sequence: SqliteSequenceTable;
}

export const META_COMPACT_REVISION = 'compact_revision';
export const META_COMPACT_CURSOR = 'compact_cursor';
/** PostgreSQL only: the newest revision handed out (SQLite keeps it in sqlite_sequence) */
export const META_REVISION = 'revision';
