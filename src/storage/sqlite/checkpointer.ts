/**
 * Periodic PASSIVE WAL checkpoints on a worker thread with a database connection of its own. A
 * checkpoint copies the WAL's pages into the database file and fsyncs it: after a compaction and its
 * incremental vacuum that is tens of MB, which on the event loop stopped every request for as long.
 * A PASSIVE checkpoint never takes the write lock, so commits go on while it runs. One checkpoint
 * at a time: a tick that finds the last one still running is skipped.
 */
import { Worker } from 'node:worker_threads';

/** what the worker runs (plain JavaScript: the same in dist/ and under the test runner's TypeScript) */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
parentPort.on('message', (msg) => {
  if (msg === 'close') {
    try { db?.close(); } catch {}
    process.exit(0);
  }
  try {
    if (!db) {
      db = new Database(workerData.file, { fileMustExist: true });
      db.pragma('journal_size_limit = ' + workerData.journalSizeLimit);
    }
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, busy: row.busy, log: row.log, checkpointed: row.checkpointed });
  } catch (err) {
    parentPort.postMessage({ ok: false, message: String(err && err.message), code: err && err.code });
  }
});
`;

export interface CheckpointResult {
  ok: boolean;
  /** it ran on the worker thread (false: on the calling thread, the worker being gone) */
  onWorker: boolean;
  /** the checkpoint's error, when not ok */
  error?: Error;
}

export interface CheckpointerOptions {
  file: string;
  /** the writer's journal_size_limit, for this connection too */
  journalSizeLimit: number;
  intervalMs: number;
  /** each checkpoint's outcome (for logging: a failing disk fails every checkpoint) */
  onResult(result: CheckpointResult): void;
  /** a checkpoint on this thread, for when the worker is gone (it could not start, or died) */
  inThread(): CheckpointResult;
}

export class Checkpointer {
  readonly #worker: Worker;
  readonly #timer: NodeJS.Timeout;
  readonly #o: CheckpointerOptions;
  #running = false;
  #closed = false;
  /** the worker exited on its own: checkpoints run on this thread from then on */
  #gone = false;
  #exited: Promise<void>;
  #waiters: (() => void)[] = [];

  constructor(options: CheckpointerOptions) {
    this.#o = options;
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file: options.file, driver: require.resolve('better-sqlite3'), journalSizeLimit: options.journalSizeLimit } });
    this.#worker.unref();
    this.#exited = new Promise((resolve) =>
      this.#worker.once('exit', () => {
        this.#gone = true;
        if (this.#running) this.#settle({ ok: false, onWorker: true, error: new Error('the checkpoint worker exited') });
        resolve();
      }),
    );
    this.#worker.on('message', (m: { ok: boolean; message?: string; code?: string }) => this.#settle(m.ok ? { ok: true, onWorker: true } : { ok: false, onWorker: true, error: Object.assign(new Error(m.message), { code: m.code }) }));
    this.#worker.on('error', (err) => this.#settle({ ok: false, onWorker: true, error: err }));
    this.#timer = setInterval(() => this.checkpoint(), options.intervalMs);
    this.#timer.unref();
  }

  /** start a checkpoint now unless one is running */
  checkpoint(): void {
    if (this.#running || this.#closed) return;
    if (this.#gone) {
      this.#o.onResult(this.#o.inThread());
      return;
    }
    this.#running = true;
    this.#worker.postMessage('checkpoint');
  }

  /** resolves once no checkpoint is running (for tests) */
  idle(): Promise<void> {
    return this.#running ? new Promise((resolve) => this.#waiters.push(resolve)) : Promise.resolve();
  }

  /** stop the timer, let a running checkpoint finish and end the worker */
  async close(): Promise<void> {
    if (this.#closed) return this.#exited;
    this.#closed = true;
    clearInterval(this.#timer);
    this.#worker.postMessage('close');
    const timeout = setTimeout(() => void this.#worker.terminate(), 5000);
    await this.#exited;
    clearTimeout(timeout);
  }

  #settle(result: CheckpointResult): void {
    if (!this.#running) return;
    this.#running = false;
    if (!this.#closed) this.#o.onResult(result);
    for (const w of this.#waiters.splice(0)) w();
  }
}
