/**
 * A small in-memory Store honouring the contract of src/storage/store.ts: one revision per
 * mutation, conflicts, reads at older revisions, watches replayed from history, compaction.
 * For registry tests only: everything is O(history).
 */
import { StorageError } from '../../src/storage/store';
import type { KeyValue, ListOptions, ListResult, Revision, Store, StoreEvent, Watch, WatchOptions } from '../../src/storage/store';

interface Entry {
  revision: Revision;
  key: string;
  /** undefined = deleted at this revision */
  value?: string;
  createRevision: Revision;
}

interface Watcher {
  opts: WatchOptions;
  /** events up to here were delivered */
  delivered: Revision;
  cancelled: boolean;
}

export class MemoryStore implements Store {
  #rev = 0;
  #compacted = 0;
  #log: Entry[] = [];
  readonly #current = new Map<string, KeyValue>();
  readonly #watchers = new Set<Watcher>();
  #waiters: Array<{ revision: Revision; resolve: (ok: boolean) => void }> = [];
  #closed = false;
  #pumpScheduled = false;

  currentRevision(): Revision {
    return this.#rev;
  }

  compactRevision(): Revision {
    return this.#compacted;
  }

  #check(): void {
    if (this.#closed) throw new StorageError('Closed', 'store closed');
  }

  #checkRevision(revision: Revision): void {
    if (revision < this.#compacted) throw new StorageError('Compacted', `revision ${revision} compacted`, { revision: this.#compacted });
    if (revision > this.#rev) throw new StorageError('FutureRevision', `revision ${revision} is in the future`, { revision: this.#rev });
  }

  /** the value of key at revision, from the log */
  #at(key: string, revision: Revision): KeyValue | undefined {
    for (let i = this.#log.length - 1; i >= 0; i--) {
      const e = this.#log[i];
      if (e.key !== key || e.revision > revision) continue;
      return e.value === undefined ? undefined : { key, value: e.value, modRevision: e.revision, createRevision: e.createRevision };
    }
    return undefined;
  }

  async get(key: string, revision?: Revision): Promise<KeyValue | undefined> {
    this.#check();
    if (revision === undefined) return this.#current.get(key);
    this.#checkRevision(revision);
    return this.#at(key, revision);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.#check();
    const revision = options.revision ?? this.#rev;
    if (options.revision !== undefined) this.#checkRevision(revision);
    let keys: string[];
    if (options.revision === undefined) keys = [...this.#current.keys()].filter((k) => k.startsWith(prefix));
    else keys = [...new Set(this.#log.filter((e) => e.key.startsWith(prefix)).map((e) => e.key))];
    keys.sort();
    const start = options.startKey;
    const all: KeyValue[] = [];
    for (const k of keys) {
      if (start !== undefined && k < start) continue;
      const kv = options.revision === undefined ? this.#current.get(k) : this.#at(k, revision);
      if (kv) all.push(kv);
    }
    const limit = options.limit && options.limit > 0 ? options.limit : all.length;
    const items = all.slice(0, limit);
    return { items, revision, more: all.length > items.length, remaining: all.length - items.length };
  }

  async count(prefix: string): Promise<number> {
    this.#check();
    return [...this.#current.keys()].filter((k) => k.startsWith(prefix)).length;
  }

  #commit(entry: Entry): void {
    this.#log.push(entry);
    if (entry.value === undefined) this.#current.delete(entry.key);
    else this.#current.set(entry.key, { key: entry.key, value: entry.value, modRevision: entry.revision, createRevision: entry.createRevision });
    this.#waiters = this.#waiters.filter((w) => {
      if (w.revision > this.#rev) return true;
      w.resolve(true);
      return false;
    });
    this.#schedulePump();
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.#check();
    if (this.#current.has(key)) throw new StorageError('Exists', `key ${key} exists`, { key });
    const revision = ++this.#rev;
    this.#commit({ revision, key, value, createRevision: revision });
    return this.#current.get(key)!;
  }

  async update(key: string, value: string, expectedRevision?: Revision): Promise<KeyValue> {
    this.#check();
    const cur = this.#current.get(key);
    if (!cur) throw new StorageError('NotFound', `key ${key} not found`, { key });
    if (expectedRevision !== undefined && cur.modRevision !== expectedRevision) {
      throw new StorageError('Conflict', `key ${key} changed`, { key, revision: cur.modRevision });
    }
    const revision = ++this.#rev;
    this.#commit({ revision, key, value, createRevision: cur.createRevision });
    return this.#current.get(key)!;
  }

  async delete(key: string, expectedRevision?: Revision): Promise<KeyValue> {
    this.#check();
    const cur = this.#current.get(key);
    if (!cur) throw new StorageError('NotFound', `key ${key} not found`, { key });
    if (expectedRevision !== undefined && cur.modRevision !== expectedRevision) {
      throw new StorageError('Conflict', `key ${key} changed`, { key, revision: cur.modRevision });
    }
    const revision = ++this.#rev;
    this.#commit({ revision, key, createRevision: cur.createRevision });
    return { key, value: cur.value, modRevision: revision, createRevision: cur.createRevision };
  }

  watch(opts: WatchOptions): Watch {
    this.#check();
    if (opts.afterRevision < this.#compacted) {
      throw new StorageError('Compacted', `revision ${opts.afterRevision} compacted`, { revision: this.#compacted });
    }
    const w: Watcher = { opts, delivered: opts.afterRevision, cancelled: false };
    this.#watchers.add(w);
    this.#schedulePump();
    return {
      cancel: () => {
        w.cancelled = true;
        this.#watchers.delete(w);
      },
    };
  }

  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      for (const w of [...this.#watchers]) this.#pump(w);
    });
  }

  /** deliver every logged event after w.delivered, in order */
  #pump(w: Watcher): void {
    if (w.cancelled) return;
    if (w.delivered < this.#compacted) {
      this.#watchers.delete(w);
      w.opts.onError(new StorageError('Compacted', 'history compacted', { revision: this.#compacted }));
      return;
    }
    for (let i = 0; i < this.#log.length; i++) {
      const e = this.#log[i];
      if (e.revision <= w.delivered) continue;
      if (w.cancelled) return;
      w.delivered = e.revision;
      if (!e.key.startsWith(w.opts.prefix)) continue;
      const prev = this.#at(e.key, e.revision - 1);
      let event: StoreEvent;
      if (e.value === undefined) {
        event = { type: 'DELETED', key: e.key, revision: e.revision, value: prev!.value, prevValue: prev!.value, createRevision: e.createRevision };
      } else if (!prev || prev.createRevision !== e.createRevision) {
        event = { type: 'ADDED', key: e.key, revision: e.revision, value: e.value, createRevision: e.createRevision };
      } else {
        event = { type: 'MODIFIED', key: e.key, revision: e.revision, value: e.value, prevValue: prev.value, createRevision: e.createRevision };
      }
      w.opts.onEvent(event);
    }
    if (!w.cancelled) {
      w.delivered = this.#rev;
      w.opts.onProgress?.(this.#rev);
    }
  }

  /** tests: make every watcher report progress now */
  notifyProgress(): void {
    this.#schedulePump();
  }

  async waitForRevision(revision: Revision, timeoutMs: number): Promise<boolean> {
    if (this.#rev >= revision) return true;
    return new Promise((resolve) => {
      const waiter = { revision, resolve };
      this.#waiters.push(waiter);
      setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        resolve(this.#rev >= revision);
      }, timeoutMs);
    });
  }

  async ping(): Promise<void> {
    this.#check();
  }

  /** keeps, for every key, the newest entry at or below revision (the state there), drops the rest */
  async compact(revision: Revision): Promise<number> {
    this.#check();
    const target = Math.min(revision, this.#rev);
    const newestAtOrBelow = new Map<string, number>();
    this.#log.forEach((e, i) => {
      if (e.revision <= target) newestAtOrBelow.set(e.key, i);
    });
    const before = this.#log.length;
    this.#log = this.#log.filter((e, i) => e.revision > target || (newestAtOrBelow.get(e.key) === i && e.value !== undefined));
    this.#compacted = Math.max(this.#compacted, target);
    return before - this.#log.length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#watchers) w.opts.onError(new StorageError('Closed', 'store closed'));
    this.#watchers.clear();
    for (const w of this.#waiters) w.resolve(false);
    this.#waiters = [];
  }
}
