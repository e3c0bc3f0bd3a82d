import type { Logger } from 'pino';
import { isStorageError, StorageError, type Revision, type StoreEvent, type Watch, type WatchOptions } from '../store';
import { PrefixIndex } from './prefix-index';
import { RingBuffer } from './ring-buffer';

/** committed events of keys under prefix with revision in (after, upTo], oldest first */
export type HistoryReader = (prefix: string, after: Revision, upTo: Revision) => StoreEvent[] | Promise<StoreEvent[]>;

export interface WatchHubOptions {
  /** events kept in memory for watches that start in the recent past */
  bufferSize: number;
  /** the store's current revision when the hub starts */
  startRevision: Revision;
  readHistory: HistoryReader;
  currentRevision: () => Revision;
  compactRevision: () => Revision;
  /** how often ready watchers get onProgress (default 1000 ms; 0 never) */
  progressIntervalMs?: number;
  /** revisions read from the log per replay step (default 1000) */
  replayStep?: number;
  logger?: Logger;
}

class Watcher {
  ready = false;
  ended = false;
  constructor(
    readonly options: WatchOptions,
    /** every event up to this revision has been delivered (or was not for this prefix) */
    public last: Revision,
  ) {}
}

/**
 * Delivers committed events to watches. Recent events come from a ring buffer; a watch that starts
 * before the buffer replays the log in steps and then joins the live stream in the same synchronous
 * step that drains the buffer, so no event is missed or repeated.
 */
export class WatchHub {
  readonly #ring: RingBuffer;
  readonly #index = new PrefixIndex<Watcher>();
  readonly #options: WatchHubOptions;
  readonly #progressTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: WatchHubOptions) {
    this.#options = options;
    this.#ring = new RingBuffer({ capacity: options.bufferSize, startRevision: options.startRevision });
    const every = options.progressIntervalMs ?? 1000;
    if (every > 0) {
      this.#progressTimer = setInterval(() => this.#progress(), every);
      this.#progressTimer.unref();
    }
  }

  watch(options: WatchOptions): Watch {
    const w = new Watcher(options, options.afterRevision);
    if (this.#closed) {
      setImmediate(() => this.#fail(w, new StorageError('Closed', 'storage is closed')));
    } else {
      this.#index.add(options.prefix, w);
      // start on a later turn: callbacks never run before watch() has returned
      setImmediate(() => void this.#catchUp(w));
    }
    return { cancel: () => this.#end(w) };
  }

  /** record events that just committed (in revision order) and deliver them to ready watchers */
  publish(events: readonly StoreEvent[]): void {
    for (const e of events) {
      this.#ring.push(e);
      for (const w of this.#index.match(e.key)) if (w.ready) this.#deliver(w, e);
    }
  }

  /**
   * The events up to revision cannot be delivered (a log tailer found them compacted before it read
   * them): every watch ends with err, as a watcher that fell behind does, and the buffer starts
   * again after revision, so no later watch is served across the hole.
   */
  reset(revision: Revision, err: StorageError): void {
    for (const w of [...this.#index.all()]) this.#fail(w, err);
    this.#ring.reset(revision);
  }

  /** end every watch with Closed */
  close(): void {
    this.#closed = true;
    if (this.#progressTimer) clearInterval(this.#progressTimer);
    for (const w of [...this.#index.all()]) this.#fail(w, new StorageError('Closed', 'storage is closed'));
  }

  async #catchUp(w: Watcher): Promise<void> {
    const { prefix } = w.options;
    const step = this.#options.replayStep ?? 1000;
    for (;;) {
      if (w.ended) return;
      if (this.#options.compactRevision() > w.last) return this.#compacted(w);
      if (this.#ring.covers(w.last)) {
        for (const e of this.#ring.since(w.last)) if (e.key.startsWith(prefix)) this.#deliver(w, e);
        w.last = Math.max(w.last, this.#ring.lastRevision);
        w.ready = true;
        return;
      }
      const upTo = Math.min(w.last + step, this.#ring.startRevision);
      let events: StoreEvent[];
      try {
        events = await this.#options.readHistory(prefix, w.last, upTo);
      } catch (err) {
        if (isStorageError(err, 'Compacted')) return this.#compacted(w);
        return this.#fail(w, new StorageError('Unavailable', 'reading watch history failed', { cause: err }));
      }
      if (w.ended) return;
      // rows may have been compacted away while the step was read
      if (this.#options.compactRevision() > w.last) return this.#compacted(w);
      for (const e of events) this.#deliver(w, e);
      w.last = upTo;
      // let requests run between replay steps
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  #deliver(w: Watcher, e: StoreEvent): void {
    if (w.ended || e.revision <= w.last) return;
    w.last = e.revision;
    try {
      w.options.onEvent(e);
    } catch (err) {
      this.#options.logger?.warn({ err, key: e.key }, 'watch event handler threw');
    }
  }

  #progress(): void {
    const revision = this.#options.currentRevision();
    for (const w of this.#index.all()) {
      if (!w.ready || !w.options.onProgress) continue;
      try {
        w.options.onProgress(Math.max(revision, w.last));
      } catch (err) {
        this.#options.logger?.warn({ err }, 'watch progress handler threw');
      }
    }
  }

  #compacted(w: Watcher): void {
    const rev = this.#options.compactRevision();
    this.#fail(w, new StorageError('Compacted', `required revision ${w.last} has been compacted (compacted up to ${rev})`, { revision: rev }));
  }

  #end(w: Watcher): void {
    if (w.ended) return;
    w.ended = true;
    this.#index.delete(w.options.prefix, w);
  }

  #fail(w: Watcher, err: StorageError): void {
    if (w.ended) return;
    this.#end(w);
    try {
      w.options.onError(err);
    } catch (e) {
      this.#options.logger?.warn({ err: e }, 'watch error handler threw');
    }
  }
}
