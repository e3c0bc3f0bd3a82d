/**
 * Periodic PASSIVE WAL checkpoints on a worker thread with a database connection of its own. A
 * checkpoint copies the WAL's pages into the database file and fsyncs it: after a compaction and its
 * incremental vacuum that is tens of MB, which on the event loop stopped every request for as long.
 * A PASSIVE checkpoint never takes the write lock, so commits go on while it runs. One checkpoint
 * at a time: a tick that finds the last one still running is skipped, and so is a tick with nothing
 * new to copy (`due`). The worker starts with the first checkpoint, not before: a store that never
 * writes never pays for a thread. It runs without the parent's exec arguments (loader hooks such as
 * a test runner's TypeScript loader): its source is plain JavaScript that needs none.
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
  /** whether a tick has anything to do (the WAL grew since the last one); always when absent */
  due?(): boolean;
}

export class Checkpointer {
  #worker: Worker | undefined;
  readonly #timer: NodeJS.Timeout;
  readonly #o: CheckpointerOptions;
  #running = false;
  #closed = false;
  /** the worker exited on its own: checkpoints run on this thread from then on */
  #gone = false;
  #exited: Promise<void> = Promise.resolve();
  #waiters: (() => void)[] = [];

  constructor(options: CheckpointerOptions) {
    this.#o = options;
    this.#timer = setInterval(() => {
      if (this.#o.due?.() ?? true) this.checkpoint();
    }, options.intervalMs);
    this.#timer.unref();
  }

  #startWorker(): Worker {
    const o = this.#o;
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { file: o.file, driver: require.resolve('better-sqlite3'), journalSizeLimit: o.journalSizeLimit } });
    worker.unref();
    this.#exited = new Promise((resolve) =>
      worker.once('exit', () => {
        this.#gone = true;
        if (this.#running) this.#settle({ ok: false, onWorker: true, error: new Error('the checkpoint worker exited') });
        resolve();
      }),
    );
    worker.on('message', (m: { ok: boolean; message?: string; code?: string }) => this.#settle(m.ok ? { ok: true, onWorker: true } : { ok: false, onWorker: true, error: Object.assign(new Error(m.message), { code: m.code }) }));
    worker.on('error', (err) => this.#settle({ ok: false, onWorker: true, error: err }));
    return worker;
  }

  /** start a checkpoint now unless one is running */
  checkpoint(): void {
    if (this.#running || this.#closed) return;
    if (this.#gone) {
      this.#o.onResult(this.#o.inThread());
      return;
    }
    this.#running = true;
    this.#worker ??= this.#startWorker();
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
    const worker = this.#worker;
    if (!worker) return;
    worker.postMessage('close');
    const timeout = setTimeout(() => void worker.terminate(), 5000);
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
