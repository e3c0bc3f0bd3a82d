import crypto from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { RevisionWaiters } from '../revlog/revision-waiters';
import { WatchHub } from '../revlog/watch-hub';
import type { Batch } from '../revlog/apply-op';
import type { CompactStep, WriteOp, WriteResult } from '../revlog/write-op';
import { WriterQueue, type WriterQueueStats } from '../revlog/writer-queue';
import {
  StorageError,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Revision,
  type Store,
  type StoreEvent,
  type Watch,
  type WatchOptions,
} from '../store';
import { LogListener } from './log-listener';
import { pgFailure } from './pg-connections';
import { pgStatements as s } from './pg-statements';
import { compacted, PostgresReader, type LogState } from './postgres-reader';
import { PostgresWriter } from './postgres-writer';

export interface PostgresStoreOptions {
  pool: pg.Pool;
  /** the connection settings, for the listening connection */
  clientConfig: pg.ClientConfig;
  /** the log's state when the store opens */
  initial: LogState;
  /** the database without its password, for messages */
  id: string;
  logger?: Logger;
  /** committed events kept in memory for watches (default 10000) */
  watchBufferSize?: number;
  /** onProgress period of watches (default 1000 ms; 0 never) */
  progressIntervalMs?: number;
  /** how often the log is read for other servers' writes when no notification came (default 1000 ms) */
  pollIntervalMs?: number;
  /** log ids inspected per compaction transaction (default 500) */
  compactBatchSize?: number;
  /** revisions read from the log per step of a watch's history replay (default 1000) */
  watchReplayStep?: number;
  /** log rows read per step while following the log (default 1000) */
  tailStep?: number;
  /** the LISTEN/NOTIFY channel (default ballast_revlog) */
  channel?: string;
}

/** pg_try_advisory_lock's key for compaction: one server compacts at a time */
const COMPACTION_LOCK = 0x62616c6c;
/** an acknowledged write waits at most this long for this server to have followed the log to it */
const SEEN_WAIT_MS = 10_000;

/**
 * The Store on PostgreSQL, for several API servers sharing one database.
 *
 * Writes go through a group-commit queue to PostgresWriter (revisions assigned under one row lock
 * held until commit: commit order is revision order, with no gaps). Every server follows the log in
 * revision order and feeds its watch hub from it: a server's own commit is published at once when it
 * directly follows what the server has seen; otherwise, and for the other servers' commits, the log
 * is read from the last revision seen (woken by LISTEN/NOTIFY, with a poll as the fallback), so each
 * server's watchers see the same stream, once, in order, across reconnects. currentRevision() is how
 * far this server has followed the log; a write is acknowledged once it has followed it that far
 * (so this server's watch cache already holds the write).
 */
export class PostgresStore implements Store {
  readonly #pool: pg.Pool;
  readonly #reader: PostgresReader;
  readonly #writer: PostgresWriter;
  readonly #queue: WriterQueue<WriteOp, WriteResult>;
  readonly #hub: WatchHub;
  readonly #listener: LogListener;
  readonly #pollTimer: NodeJS.Timeout;
  readonly #logger: Logger | undefined;
  readonly #id: string;
  readonly #compactBatchSize: number;
  readonly #tailStep: number;
  #revision: Revision;
  #compactRevision: Revision;
  readonly #waiters = new RevisionWaiters();
  #tailing = false;
  #tailAgain = false;
  #tailFailing = false;
  #closed: Promise<void> | undefined;

  constructor(options: PostgresStoreOptions) {
    this.#pool = options.pool;
    this.#logger = options.logger;
    this.#id = options.id;
    this.#compactBatchSize = options.compactBatchSize ?? 500;
    this.#tailStep = options.tailStep ?? 1000;
    this.#revision = options.initial.revision;
    this.#compactRevision = options.initial.compactRevision;
    this.#reader = new PostgresReader(options.pool);
    const channel = options.channel ?? 'ballast_revlog';
    const self = crypto.randomUUID();
    this.#writer = new PostgresWriter(options.pool, channel, self);
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
    this.#listener = new LogListener({
      config: options.clientConfig,
      channel,
      // "<revision> <sender>": this store's own commits are published as they commit (#committed),
      // and reading the log for them here would only delay that
      onNotify: (payload) => {
        const [revision, sender] = payload.split(' ');
        if (sender !== self && !(Number(revision) <= this.#revision)) this.#follow();
      },
      onListening: () => this.#follow(),
      logger: options.logger,
    });
    this.#listener.start();
    this.#pollTimer = setInterval(() => this.#follow(), options.pollIntervalMs ?? 1000);
    this.#pollTimer.unref();
  }

  currentRevision(): Revision {
    return this.#revision;
  }

  compactRevision(): Revision {
    return this.#compactRevision;
  }

  stats(): WriterQueueStats {
    return this.#queue.stats();
  }

  get(key: string, revision?: Revision): Promise<KeyValue | undefined> {
    return this.#read(() => this.#reader.get(key, revision));
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const { revision, startKey, limit = 0, countRemaining = true } = options;
    return this.#read(() =>
      revision === undefined ? this.#reader.listNewest(prefix, startKey, limit, countRemaining) : this.#reader.listAt(prefix, revision, startKey, limit),
    );
  }

  count(prefix: string): Promise<number> {
    return this.#read(() => this.#reader.count(prefix));
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return this.#write({ kind: 'create', key, value });
  }

  async update(key: string, value: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.#write({ kind: 'update', key, value, expectedRevision });
  }

  async delete(key: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.#write({ kind: 'delete', key, expectedRevision });
  }

  async #write(op: WriteOp): Promise<KeyValue> {
    const kv = (await this.#queue.submit(op)) as KeyValue;
    if (kv.modRevision > this.#revision) await this.waitForRevision(kv.modRevision, SEEN_WAIT_MS);
    return kv;
  }

  watch(options: WatchOptions): Watch {
    return this.#hub.watch(options);
  }

  waitForRevision(revision: Revision, timeoutMs: number): Promise<boolean> {
    if (revision <= this.#revision) return Promise.resolve(true);
    if (this.#closed) return Promise.resolve(false);
    // another server may have committed it: read the log now rather than at the next poll
    this.#follow();
    return this.#waiters.wait(revision, timeoutMs);
  }

  ping(): Promise<void> {
    return this.#read(() => this.#reader.ping());
  }

  /**
   * Compacts in batches through the writer queue, as SQLite does, while holding an advisory lock:
   * when another server is compacting this database, this one does nothing (returns 0).
   */
  async compact(revision: Revision): Promise<number> {
    if (this.#closed) throw new StorageError('Closed', 'storage is closed');
    const state = await this.#read(() => this.#reader.state());
    if (revision > state.revision) {
      throw new StorageError('FutureRevision', `cannot compact to revision ${revision}: newest is ${state.revision}`, { revision: state.revision });
    }
    let c: pg.PoolClient;
    try {
      c = await this.#pool.connect();
    } catch (err) {
      throw pgFailure(err, 'storage compaction failed');
    }
    let broken: Error | undefined;
    try {
      if (!(await s.tryCompactLock.get(c, { lock: COMPACTION_LOCK }))?.locked) return 0;
      try {
        let removed = 0;
        for (;;) {
          const step = (await this.#queue.submit({ kind: 'compact', revision, maxRows: this.#compactBatchSize })) as CompactStep;
          removed += step.removed;
          if (step.done) return removed;
        }
      } finally {
        await s.compactUnlock.get(c, { lock: COMPACTION_LOCK }).catch((e: Error) => (broken = e));
      }
    } catch (err) {
      broken ??= err as Error;
      throw pgFailure(err, 'storage compaction failed');
    } finally {
      c.release(broken);
    }
  }

  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    clearInterval(this.#pollTimer);
    this.#queue.close();
    this.#hub.close();
    this.#waiters.close();
    await this.#listener.close();
    await this.#pool.end();
  }

  /** runs one batch for the writer queue: commit, then follow the log to it */
  async #execute(ops: readonly WriteOp[]) {
    let result: Awaited<ReturnType<PostgresWriter['execute']>>;
    try {
      result = await this.#writer.execute(ops);
    } catch (err) {
      throw pgFailure(err, 'storage write failed');
    }
    this.#committed(result.effects);
    return result.outcomes;
  }

  #committed(effects: Batch): void {
    if (effects.compactRevision !== undefined && effects.compactRevision > this.#compactRevision) this.#compactRevision = effects.compactRevision;
    if (effects.events.length === 0) return;
    // nobody else committed in between: this batch's events are the log's next ones
    if (!this.#tailing && effects.events[0].revision === this.#revision + 1) this.#advance(effects.events, effects.revision);
    else this.#follow();
  }

  /** read the log past the newest revision seen (one reader at a time; a request meanwhile reads again after) */
  #follow(): void {
    if (this.#closed) return;
    if (this.#tailing) {
      this.#tailAgain = true;
      return;
    }
    this.#tailing = true;
    void (async () => {
      try {
        do {
          this.#tailAgain = false;
          await this.#tail();
        } while (this.#tailAgain && !this.#closed);
        if (this.#tailFailing) this.#logger?.info({ database: this.#id }, 'following the storage log again');
        this.#tailFailing = false;
      } catch (err) {
        if (!this.#tailFailing && !this.#closed) this.#logger?.warn({ err: (err as Error).message, database: this.#id }, 'reading the storage log failed; retrying');
        this.#tailFailing = true;
      } finally {
        this.#tailing = false;
      }
    })();
  }

  async #tail(): Promise<void> {
    for (;;) {
      const state = await this.#reader.state();
      if (state.compactRevision > this.#compactRevision) this.#compactRevision = state.compactRevision;
      if (this.#closed || state.revision <= this.#revision) return;
      const after = this.#revision;
      const upTo = Math.min(state.revision, after + this.#tailStep);
      // every revision up to state.revision has committed, so each one in (after, upTo] has its row
      // unless compaction removed it, which it does only at or below the compact revision
      const events = await this.#reader.events(after, upTo);
      if (this.#closed) return;
      if (events.length !== upTo - after) {
        this.#logger?.warn({ database: this.#id, after, compactRevision: this.#compactRevision }, 'the storage log was compacted past this server; its watches restart');
        this.#hub.reset(upTo, compacted(after, this.#compactRevision));
        this.#advance([], upTo);
        continue;
      }
      this.#advance(events, upTo);
    }
  }

  /** the log up to upTo has been read: deliver what this server had not seen */
  #advance(events: readonly StoreEvent[], upTo: Revision): void {
    if (upTo <= this.#revision) return;
    const from = this.#revision;
    this.#revision = upTo;
    this.#hub.publish(from === events[0]?.revision - 1 ? events : events.filter((e) => e.revision > from));
    this.#waiters.reached(upTo);
  }

  #read<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StorageError('Closed', 'storage is closed'));
    return fn().catch((err: unknown) => {
      throw pgFailure(err, 'storage read failed');
    });
  }
}
