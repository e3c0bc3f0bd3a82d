import type Database from 'better-sqlite3';
import type { Logger } from 'pino';
import { RevisionWaiters } from '../revlog/revision-waiters';
import { WatchHub } from '../revlog/watch-hub';
import type { CompactStep, VacuumStep, WriteOp, WriteResult } from '../revlog/write-op';
import { WriterQueue, type WriterQueueStats } from '../revlog/writer-queue';
import {
  isStorageError,
  StorageError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Revision,
  type Store,
  type Watch,
  type WatchOptions,
} from '../store';
import { Checkpointer, type CheckpointResult } from './checkpointer';
import { SqliteReader } from './sqlite-reader';
import { SqliteWriter } from './sqlite-writer';
import { freeBytes, writeFailure } from './write-failure';

export interface SqliteStoreOptions {
  writer: Database.Database;
  reader: Database.Database;
  /** the database file (named in error messages; its file system is checked when a write fails) */
  file?: string;
  logger?: Logger;
  /** committed events kept in memory for watches (default 10000) */
  watchBufferSize?: number;
  /** PASSIVE WAL checkpoint period (default 1000 ms; 0 never) */
  checkpointIntervalMs?: number;
  /** onProgress period of watches (default 1000 ms; 0 never) */
  progressIntervalMs?: number;
  /** log ids inspected per compaction transaction (default 500) */
  compactBatchSize?: number;
  /** revisions read from the log per step of a watch's history replay (default 1000) */
  watchReplayStep?: number;
}

const VACUUM_PAGES_PER_STEP = 256;
/** after a full disk, readiness needs this much free space back (besides a commit that succeeds) */
const MIN_FREE_BYTES_AFTER_FULL = 4 * 1024 * 1024;

/**
 * The Store on SQLite: one writer connection fed by a group-commit queue, one reader connection,
 * and an in-memory watch hub fed right after each commit.
 */
export class SqliteStore implements Store {
  readonly #writerDb: Database.Database;
  readonly #readerDb: Database.Database;
  readonly #writer: SqliteWriter;
  readonly #reader: SqliteReader;
  /** point reads of the newest state on the writer's connection, whose page cache every commit keeps warm */
  readonly #pointReader: SqliteReader;
  readonly #queue: WriterQueue<WriteOp, WriteResult>;
  readonly #hub: WatchHub;
  readonly #logger: Logger | undefined;
  readonly #compactBatchSize: number;
  readonly #checkpointTimer: NodeJS.Timeout | undefined;
  readonly #checkpointer: Checkpointer | undefined;
  #revision: Revision;
  #compactRevision: Revision;
  readonly #waiters = new RevisionWaiters();
  readonly #file: string | undefined;
  /** why the last commit failed, until one succeeds (readiness; recovery is logged) */
  #writeFailure: StorageError | undefined;
  #checkpointFailing = false;
  #closed: Promise<void> | undefined;

  constructor(options: SqliteStoreOptions) {
    this.#writerDb = options.writer;
    this.#readerDb = options.reader;
    this.#logger = options.logger;
    this.#file = options.file;
    this.#compactBatchSize = options.compactBatchSize ?? 500;
    this.#writer = new SqliteWriter(options.writer);
    this.#reader = new SqliteReader(options.reader);
    this.#pointReader = new SqliteReader(options.writer);
    this.#revision = this.#reader.lastRevision();
    this.#compactRevision = this.#reader.compaction().revision;
    this.#queue = new WriterQueue({ execute: (ops) => this.#execute(ops) });
    this.#hub = new WatchHub({
      bufferSize: options.watchBufferSize ?? 10000,
      startRevision: this.#revision,
      readHistory: (prefix, after, upTo) => this.#reader.history(prefix, after, upTo),
      currentRevision: () => this.#revision,
      compactRevision: () => this.#compactRevision,
      progressIntervalMs: options.progressIntervalMs,
      replayStep: options.watchReplayStep,
      logger: options.logger,
    });
    const every = options.checkpointIntervalMs ?? 1000;
    const file = options.writer.memory ? '' : options.writer.name;
    if (every > 0 && file) {
      // a tick is due when something was written since the last one: a commit or a compaction
      let lastWrite = `${this.#revision}/${this.#compactRevision}`;
      const due = (): boolean => {
        const mark = `${this.#revision}/${this.#compactRevision}`;
        if (mark === lastWrite) return false;
        lastWrite = mark;
        return true;
      };
      this.#checkpointer = new Checkpointer({
        due,
        file,
        intervalMs: every,
        journalSizeLimit: Number(options.writer.pragma('journal_size_limit', { simple: true })),
        // the worker copied what the WAL held when it started; the frames committed meanwhile are
        // few: copying them here completes the checkpoint, so the next commit restarts the WAL
        // from its beginning (else, with steady writes, the WAL would never restart and only grow)
        onResult: (r) => this.#checkpointed(r.ok ? this.#checkpointHere() : r),
        inThread: () => this.#checkpointHere(),
      });
    } else if (every > 0) {
      this.#checkpointTimer = setInterval(() => this.#checkpointed(this.#checkpointHere()), every);
      this.#checkpointTimer.unref();
    }
  }

  currentRevision(): Revision {
    return this.#revision;
  }

  compactRevision(): Revision {
    return this.#compactRevision;
  }

  /** group-commit counters (for tests and metrics) */
  stats(): WriterQueueStats {
    return this.#queue.stats();
  }

  async get(key: string, revision?: Revision): Promise<KeyValue | undefined> {
    return this.#read(() => {
      if (revision !== undefined) this.#checkRevision(revision);
      // the writer is never inside a transaction here (commits run synchronously), so this reads
      // exactly the committed state, without the reader connection re-reading pages after each commit
      if (revision === undefined || revision === this.#revision) return this.#pointReader.get(key);
      return this.#reader.get(key, revision);
    });
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const { revision, startKey, limit = 0, countRemaining = true } = options;
    return this.#read(() => {
      if (revision !== undefined) this.#checkRevision(revision);
      if (revision === undefined || revision === this.#revision) return this.#reader.listNewest(prefix, startKey, limit, countRemaining);
      return this.#reader.listAt(prefix, revision, startKey, limit);
    });
  }

  async count(prefix: string): Promise<number> {
    return this.#read(() => this.#reader.count(prefix));
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return (await this.#queue.submit({ kind: 'create', key, value })) as KeyValue;
  }

  async update(key: string, value: string, expectedRevision?: Revision): Promise<KeyValue> {
    return (await this.#queue.submit({ kind: 'update', key, value, expectedRevision })) as KeyValue;
  }

  async delete(key: string, expectedRevision?: Revision): Promise<KeyValue> {
    return (await this.#queue.submit({ kind: 'delete', key, expectedRevision })) as KeyValue;
  }

  watch(options: WatchOptions): Watch {
    return this.#hub.watch(options);
  }

  waitForRevision(revision: Revision, timeoutMs: number): Promise<boolean> {
    if (revision <= this.#revision) return Promise.resolve(true);
    if (this.#closed) return Promise.resolve(false);
    return this.#waiters.wait(revision, timeoutMs);
  }

  async ping(): Promise<void> {
    return this.#read(() => this.#reader.ping());
  }

  async writable(): Promise<void> {
    if (this.#closed) throw new StorageError('Closed', 'storage is closed');
    const failure = this.#writeFailure;
    if (!failure) return;
    // After a full disk, a small commit may fit in WAL space already allocated while real writes
    // still fail: stay unready until some room is free again.
    const free = this.#file && /storage is full/.test(failure.message) ? freeBytes(this.#file) : undefined;
    if (free !== undefined && free < MIN_FREE_BYTES_AFTER_FULL) throw failure;
    // the last commit failed: see whether one goes through now (success clears the failure)
    await this.#queue.submit({ kind: 'probe' });
  }

  /**
   * Compacts in batches of compactBatchSize log ids, each its own transaction queued behind the
   * writes already waiting, so no batch holds the writer for long. Free pages are then returned to
   * the file system in small incremental-vacuum steps.
   */
  async compact(revision: Revision): Promise<number> {
    if (this.#closed) throw new StorageError('Closed', 'storage is closed');
    if (revision > this.#revision) {
      throw new StorageError('FutureRevision', `cannot compact to revision ${revision}: newest is ${this.#revision}`, {
        revision: this.#revision,
      });
    }
    let removed = 0;
    for (;;) {
      const step = (await this.#queue.submit({ kind: 'compact', revision, maxRows: this.#compactBatchSize })) as CompactStep;
      removed += step.removed;
      if (step.done) break;
    }
    if (removed > 0) await this.#vacuum();
    return removed;
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    if (this.#checkpointTimer) clearInterval(this.#checkpointTimer);
    this.#queue.close();
    this.#hub.close();
    this.#waiters.close();
    this.#readerDb.close();
    this.#writerDb.close();
    // the worker's connection closes last (it then checkpoints what is left and removes the WAL)
    await this.#checkpointer?.close();
  }

  /** runs inside the writer queue's flush: commit, then update memory and tell watchers at once */
  #execute(ops: readonly WriteOp[]) {
    let result: ReturnType<SqliteWriter['execute']>;
    try {
      result = this.#writer.execute(ops);
    } catch (err) {
      const failure = writeFailure(err, this.#file);
      if (!this.#writeFailure) this.#logger?.error({ err }, `storage writes are failing: ${failure.message}`);
      this.#writeFailure = failure;
      throw failure;
    }
    if (this.#writeFailure) {
      this.#logger?.info({ after: this.#writeFailure.message }, 'storage writes succeed again');
      this.#writeFailure = undefined;
    }
    const { effects } = result;
    this.#revision = effects.revision;
    if (effects.compactRevision !== undefined) this.#compactRevision = effects.compactRevision;
    this.#hub.publish(effects.events);
    if (effects.events.length > 0) this.#waiters.reached(this.#revision);
    return result.outcomes;
  }

  async #vacuum(): Promise<void> {
    let free = Infinity;
    for (;;) {
      const step = (await this.#queue.submit({ kind: 'vacuum', pages: VACUUM_PAGES_PER_STEP })) as VacuumStep;
      if (step.freePages === 0 || step.freePages >= free) return;
      free = step.freePages;
    }
  }

  /** a PASSIVE checkpoint on the writer's connection, on this thread (when there is no worker) */
  #checkpointHere(): CheckpointResult {
    try {
      this.#writerDb.pragma('wal_checkpoint(PASSIVE)');
      return { ok: true, onWorker: false };
    } catch (err) {
      return { ok: false, onWorker: false, error: err as Error };
    }
  }

  #checkpointed(result: CheckpointResult): void {
    if (result.ok) {
      if (this.#checkpointFailing) this.#logger?.info('WAL checkpoints succeed again');
      this.#checkpointFailing = false;
      return;
    }
    // once per failing spell, not every second (a full disk fails every checkpoint)
    if (!this.#checkpointFailing) this.#logger?.warn({ err: result.error }, 'WAL checkpoint failed');
    this.#checkpointFailing = true;
  }

  /** resolves once no background checkpoint is running (tests) */
  checkpointIdle(): Promise<void> {
    return this.#checkpointer?.idle() ?? Promise.resolve();
  }

  #checkRevision(revision: Revision): void {
    if (revision < this.#compactRevision) {
      throw new StorageError('Compacted', `revision ${revision} has been compacted (compacted up to ${this.#compactRevision})`, {
        revision: this.#compactRevision,
      });
    }
    if (revision > this.#revision) {
      throw new StorageError('FutureRevision', `revision ${revision} is newer than the newest revision ${this.#revision}`, {
        revision: this.#revision,
      });
    }
  }

  #read<T>(fn: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new StorageError('Closed', 'storage is closed'));
    try {
      return Promise.resolve(fn());
    } catch (err) {
      if (isStorageError(err)) return Promise.reject(err);
      return Promise.reject(new StorageError('Unavailable', `storage read failed: ${(err as Error).message}`, { cause: err }));
    }
  }
}
