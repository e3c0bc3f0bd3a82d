import type BetterSqlite3 from 'better-sqlite3';
import { compactOp, createOp, deleteOp, updateOp, type Batch, type OpProgram } from '../revlog/apply-op';
import type { VacuumStep, WriteOp, WriteResult } from '../revlog/write-op';
import type { Outcome } from '../revlog/writer-queue';
import { META_COMPACT_REVISION } from '../revlog/schema';
import { isStorageError } from '../store';
import { prepareStatements, type SqliteStatement, type SqliteStatements } from './sqlite-statements';

/** what one committed transaction changed, for the store's in-memory state */
export type CommitEffects = Batch;

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
        return this.#drive(createOp(op.key, op.value, batch));
      case 'update':
        return this.#drive(updateOp(op.key, op.value, op.expectedRevision, batch));
      case 'delete':
        return this.#drive(deleteOp(op.key, op.expectedRevision, batch));
      case 'compact':
        return this.#drive(compactOp(op.revision, op.maxRows, batch));
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

  /** run an operation's program, answering its queries on this connection */
  #drive<T>(program: OpProgram<T>): T {
    let step = program.next();
    while (!step.done) {
      const { query, mode, params } = step.value;
      const stmt = this.#s[query] as SqliteStatement<unknown>;
      step = program.next(mode === 'run' ? stmt.run(params).changes : mode === 'get' ? stmt.get(params) : stmt.all(params));
    }
    return step.value;
  }

  #vacuum(pages: number): VacuumStep {
    this.#db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return { freePages: Number(this.#db.pragma('freelist_count', { simple: true })) };
  }
}
