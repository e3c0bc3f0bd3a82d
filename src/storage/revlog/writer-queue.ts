import { StorageError } from '../store';

export type Outcome<R> = { ok: true; value: R } | { ok: false; error: Error };

export interface WriterQueueOptions<Op, R> {
  /**
   * Run a batch of operations in ONE transaction and commit it, synchronously. Returns one outcome per
   * operation (an operation that fails its own checks fails alone). Throws when the transaction as a
   * whole failed: then every operation of the batch fails with the thrown error.
   */
  execute: (ops: readonly Op[]) => Outcome<R>[];
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
 * transaction committed, so one fsync is shared by every write of the batch.
 */
export class WriterQueue<Op, R> {
  readonly #execute: (ops: readonly Op[]) => Outcome<R>[];
  readonly #maxBatch: number;
  #pending: Pending<Op, R>[] = [];
  #scheduled: NodeJS.Immediate | undefined;
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
      this.#scheduled ??= setImmediate(() => this.#flush());
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
    if (this.#pending.length > 0) this.#scheduled = setImmediate(() => this.#flush());
    if (batch.length === 0) return;
    let outcomes: Outcome<R>[];
    try {
      outcomes = this.#execute(batch.map((p) => p.op));
    } catch (err) {
      for (const p of batch) p.reject(err as Error);
      return;
    }
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
