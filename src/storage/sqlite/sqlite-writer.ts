import type BetterSqlite3 from 'better-sqlite3';
import type { CompactStep, VacuumStep, WriteOp, WriteResult } from '../revlog/write-op';
import type { Outcome } from '../revlog/writer-queue';
import { META_COMPACT_CURSOR, META_COMPACT_REVISION } from '../revlog/schema';
import { isStorageError, StorageError, type KeyValue, type Revision, type StoreEvent } from '../store';
import { prepareStatements, type SqliteStatements } from './sqlite-statements';

/** what one committed transaction changed, for the store's in-memory state */
export interface CommitEffects {
  /** the newest revision after the commit */
  revision: Revision;
  /** events of the batch in revision order */
  events: StoreEvent[];
  /** set when a compaction batch raised the compact revision */
  compactRevision?: Revision;
}

interface Batch extends CommitEffects {}

/**
 * Applies a batch of write operations on the single writer connection in one BEGIN IMMEDIATE
 * transaction. Each operation reads through the same connection, so it sees the writes of the
 * operations before it in the batch (a second create of one key in a batch gets Exists).
 * Revisions are handed out one by one from the log's AUTOINCREMENT sequence: no reuse, no gaps.
 */
export class SqliteWriter {
  readonly #db: BetterSqlite3.Database;
  readonly #s: SqliteStatements;
  readonly #transaction: (ops: readonly WriteOp[], batch: Batch) => Outcome<WriteResult>[];

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
    this.#s = prepareStatements(db);
    const tx = db.transaction((ops: readonly WriteOp[], batch: Batch) => {
      batch.revision = this.#s.lastRevision.get()?.seq ?? 0;
      return ops.map((op) => this.#applyOne(op, batch));
    });
    this.#transaction = (ops, batch) => tx.immediate(ops, batch);
  }

  /** run and commit the batch; throws (after rollback) if the transaction as a whole failed */
  execute(ops: readonly WriteOp[]): { outcomes: Outcome<WriteResult>[]; effects: CommitEffects } {
    const batch: Batch = { revision: 0, events: [] };
    const outcomes = this.#transaction(ops, batch);
    return { outcomes, effects: batch };
  }

  #applyOne(op: WriteOp, batch: Batch): Outcome<WriteResult> {
    try {
      return { ok: true, value: this.#apply(op, batch) };
    } catch (err) {
      // the checks throw before anything is written, so a failed check leaves the batch intact
      if (isStorageError(err)) return { ok: false, error: err };
      throw err;
    }
  }

  #apply(op: WriteOp, batch: Batch): WriteResult {
    switch (op.kind) {
      case 'create':
        return this.#create(op.key, op.value, batch);
      case 'update':
        return this.#update(op.key, op.value, op.expectedRevision, batch);
      case 'delete':
        return this.#delete(op.key, op.expectedRevision, batch);
      case 'compact':
        return this.#compact(op.revision, op.maxRows, batch);
      case 'vacuum':
        return this.#vacuum(op.pages);
      case 'probe': {
        // change the row and change it back: the page is dirty, so the commit really writes it
        // (SQLite skips writing a row rewritten with identical bytes)
        const value = this.#s.getMeta.get({ name: META_COMPACT_REVISION })?.value ?? 0;
        this.#s.setMeta.run({ name: META_COMPACT_REVISION, value: value + 1 });
        this.#s.setMeta.run({ name: META_COMPACT_REVISION, value });
        return undefined;
      }
    }
  }

  #create(key: string, value: string, batch: Batch): KeyValue {
    if (this.#s.currentByKey.get({ key })) throw new StorageError('Exists', `key ${key} already exists`, { key });
    const revision = batch.revision + 1;
    // a re-created key links to its tombstone, so compaction can remove that tombstone's history
    const prevRevision = this.#s.lastLogId.get({ key })?.id ?? 0;
    this.#s.insertLog.run({ id: revision, key, value, createRevision: revision, prevRevision, op: 'create' });
    this.#s.insertCurrent.run({ key, value, modRevision: revision, createRevision: revision });
    batch.revision = revision;
    batch.events.push({ type: 'ADDED', key, revision, value, createRevision: revision });
    return { key, value, modRevision: revision, createRevision: revision };
  }

  #update(key: string, value: string, expected: Revision | undefined, batch: Batch): KeyValue {
    const row = this.#existing(key, expected);
    const revision = batch.revision + 1;
    const createRevision = row.create_revision;
    this.#s.insertLog.run({ id: revision, key, value, createRevision, prevRevision: row.mod_revision, op: 'update' });
    this.#s.updateCurrent.run({ key, value, modRevision: revision });
    batch.revision = revision;
    batch.events.push({ type: 'MODIFIED', key, revision, value, prevValue: row.value, createRevision });
    return { key, value, modRevision: revision, createRevision };
  }

  #delete(key: string, expected: Revision | undefined, batch: Batch): KeyValue {
    const row = this.#existing(key, expected);
    const revision = batch.revision + 1;
    const createRevision = row.create_revision;
    // the tombstone keeps no value: the deleted value is the row at prev_revision
    this.#s.insertLog.run({ id: revision, key, value: '', createRevision, prevRevision: row.mod_revision, op: 'delete' });
    this.#s.deleteCurrent.run({ key });
    batch.revision = revision;
    batch.events.push({ type: 'DELETED', key, revision, value: row.value, prevValue: row.value, createRevision });
    return { key, value: row.value, modRevision: revision, createRevision };
  }

  #existing(key: string, expected: Revision | undefined) {
    const row = this.#s.currentByKey.get({ key });
    if (!row) throw new StorageError('NotFound', `key ${key} not found`, { key });
    if (expected !== undefined && expected !== row.mod_revision) {
      throw new StorageError('Conflict', `key ${key} is at revision ${row.mod_revision}, not ${expected}`, {
        key,
        revision: row.mod_revision,
      });
    }
    return row;
  }

  /**
   * One compaction batch. A log row at or below the compact revision is removed when a later row at
   * or below it superseded it (that row's prev_revision names it), and tombstones at or below it are
   * removed too. The cursor records how far the log has been processed, so an interrupted
   * compaction resumes where it stopped.
   */
  #compact(revision: Revision, maxRows: number, batch: Batch): CompactStep {
    const s = this.#s;
    const compactRevision = s.getMeta.get({ name: META_COMPACT_REVISION })?.value ?? 0;
    const target = Math.min(Math.max(compactRevision, revision), batch.revision);
    if (target > compactRevision) {
      s.setMeta.run({ name: META_COMPACT_REVISION, value: target });
      batch.compactRevision = target;
    }
    const cursor = s.getMeta.get({ name: META_COMPACT_CURSOR })?.value ?? 0;
    if (cursor >= target) return { removed: 0, done: true };
    const upTo = Math.min(cursor + maxRows, target);
    const doomed = new Set<number>();
    for (const row of s.compactScan.all({ after: cursor, upTo })) {
      if (row.prev_revision > 0) doomed.add(row.prev_revision);
      if (row.op === 'delete') doomed.add(row.id);
    }
    let removed = 0;
    for (const id of doomed) removed += s.deleteLogRow.run({ id }).changes;
    s.setMeta.run({ name: META_COMPACT_CURSOR, value: upTo });
    return { removed, done: upTo >= target };
  }

  #vacuum(pages: number): VacuumStep {
    this.#db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return { freePages: Number(this.#db.pragma('freelist_count', { simple: true })) };
  }
}
