import { StorageError } from '../store';

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: Error };

export interface WriterQueueOptions<Op, R> {
  /**
   * Run a batch of operations in ONE transaction and commit it: synchronously (SQLite), or as a
   * promise (a network database), in which case the next batch starts only after this one settled
   * and gathers every operation submitted meanwhile. Returns one outcome per operation (an operation
   * that fails its own checks fails alone). Throws (rejects) when the transaction as a whole failed:
   * then every operation of the batch fails with that error.
   */
  execute: (ops: readonly Op[]) => Outcome<R>[] | Promise<Outcome<R>[]>;
  /** most operations per transaction (default 1000); the rest run in the next one */
  maxBatch?: number;
}

export interface WriterQueueStats {
  /** transactions run */
  transactions: number;
  /** operations run */
  operations: number;
  /** most operations seen in one transaction */
  largestBatch: number;
}

interface Pending<Op, R> {
  op: Op;
  resolve: (value: R) => void;
  reject: (err: Error) => void;
}

/**
 * Group commit: operations submitted during one turn of the event loop are run together in one
 * transaction on the next turn (setImmediate), and each caller's promise settles only after that
 * transaction committed, so one fsync is shared by every write of the batch. With an asynchronous
 * execute, one transaction is in flight at a time and the operations submitted while it commits
 * form the next batch.
 */
export class WriterQueue<Op, R> {
  readonly #execute: (ops: readonly Op[]) => Outcome<R>[] | Promise<Outcome<R>[]>;
  readonly #maxBatch: number;
  #pending: Pending<Op, R>[] = [];
  #scheduled: NodeJS.Immediate | undefined;
  /** an asynchronous transaction is in flight: the next flush waits for it */
  #running = false;
  #closed = false;
  readonly #stats: WriterQueueStats = { transactions: 0, operations: 0, largestBatch: 0 };

  constructor(options: WriterQueueOptions<Op, R>) {
    this.#execute = options.execute;
    this.#maxBatch = options.maxBatch ?? 1000;
  }

  /** queue an operation; settles after the transaction holding it committed (or failed) */
  submit(op: Op): Promise<R> {
    if (this.#closed) return Promise.reject(new StorageError('Closed', 'storage is closed'));
    return new Promise<R>((resolve, reject) => {
      this.#pending.push({ op, resolve, reject });
      if (!this.#running) this.#scheduled ??= setImmediate(() => this.#flush());
    });
  }

  stats(): WriterQueueStats {
    return { ...this.#stats };
  }

  /** fail every queued operation with Closed and accept no more */
  close(): void {
    this.#closed = true;
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const pending = this.#pending;
    this.#pending = [];
    for (const p of pending) p.reject(new StorageError('Closed', 'storage is closed'));
  }

  #flush(): void {
    this.#scheduled = undefined;
    const batch = this.#pending.splice(0, this.#maxBatch);
    if (batch.length === 0) return;
    let outcomes: Outcome<R>[] | Promise<Outcome<R>[]>;
    try {
      outcomes = this.#execute(batch.map((p) => p.op));
    } catch (err) {
      this.#fail(batch, err as Error);
      this.#next();
      return;
    }
    if (!(outcomes instanceof Promise)) {
      this.#settle(batch, outcomes);
      this.#next();
      return;
    }
    this.#running = true;
    outcomes.then(
      (o) => this.#settle(batch, o),
      (err: unknown) => this.#fail(batch, err as Error),
    ).finally(() => {
      this.#running = false;
      this.#next();
    });
  }

  #next(): void {
    if (this.#pending.length > 0 && !this.#closed) this.#scheduled ??= setImmediate(() => this.#flush());
  }

  #fail(batch: Pending<Op, R>[], err: Error): void {
    for (const p of batch) p.reject(err);
  }

  #settle(batch: Pending<Op, R>[], outcomes: Outcome<R>[]): void {
    this.#stats.transactions++;
    this.#stats.operations += batch.length;
    this.#stats.largestBatch = Math.max(this.#stats.largestBatch, batch.length);
    batch.forEach((p, i) => {
      const o = outcomes[i];
      if (o.ok) p.resolve(o.value);
      else p.reject(o.error);
    });
  }
}
