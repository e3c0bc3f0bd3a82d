/**
 * --etcd-prefix: the API layer names every key under `/registry`; this store keeps them under another
 * root in the database, as kube's etcd3 store joins its path prefix in front of every key it is given.
 * Keys, prefixes, continue positions and watch events are translated both ways, so callers never see
 * the stored form.
 */
import path from 'node:path';
import { StorageError } from './store';
import type { KeyValue, ListOptions, ListResult, Revision, Store, StoreEvent, Watch, WatchOptions } from './store';

/** the root the API layer writes keys under */
export const API_KEY_ROOT = '/registry';

/**
 * kube's normalisation of --etcd-prefix: joined onto `/`, so `other`, `/other` and `/other/` are one
 * prefix (`/other`); `/` alone keeps keys at the root
 */
export function normalizeStoragePrefix(prefix: string): string {
  const joined = path.posix.join('/', prefix);
  return joined === '/' ? '' : joined.replace(/\/+$/, '');
}

export class PrefixedStore implements Store {
  readonly #inner: Store;
  readonly #root: string;

  /** prefix as given to --etcd-prefix (normalised here) */
  constructor(inner: Store, prefix: string) {
    this.#inner = inner;
    this.#root = normalizeStoragePrefix(prefix);
    if (inner.writable) this.writable = () => inner.writable!();
  }

  writable?: () => Promise<void>;

  /** the stored form of an API key; keys outside /registry are kept as they are */
  #in(key: string): string {
    return key === API_KEY_ROOT || key.startsWith(`${API_KEY_ROOT}/`) ? this.#root + key.slice(API_KEY_ROOT.length) : key;
  }

  #out(key: string): string {
    return this.#root !== '' && key.startsWith(`${this.#root}/`) ? API_KEY_ROOT + key.slice(this.#root.length) : this.#root === '' ? API_KEY_ROOT + key : key;
  }

  #kv(kv: KeyValue): KeyValue {
    return { ...kv, key: this.#out(kv.key) };
  }

  /** storage errors name the key the caller used */
  async #call<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw this.#error(err);
    }
  }

  #error(err: unknown): unknown {
    if (!(err instanceof StorageError) || err.key === undefined) return err;
    const key = this.#out(err.key);
    return new StorageError(err.code, err.message.split(err.key).join(key), { key, revision: err.revision, cause: err.cause });
  }

  currentRevision(): Revision {
    return this.#inner.currentRevision();
  }
  compactRevision(): Revision {
    return this.#inner.compactRevision();
  }
  async get(key: string, revision?: Revision): Promise<KeyValue | undefined> {
    const kv = await this.#call(() => this.#inner.get(this.#in(key), revision));
    return kv && this.#kv(kv);
  }
  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const startKey = options.startKey === undefined ? undefined : this.#in(options.startKey);
    const res = await this.#call(() => this.#inner.list(this.#in(prefix), { ...options, startKey }));
    return { ...res, items: res.items.map((kv) => this.#kv(kv)) };
  }
  count(prefix: string): Promise<number> {
    return this.#call(() => this.#inner.count(this.#in(prefix)));
  }
  async create(key: string, value: string): Promise<KeyValue> {
    return this.#kv(await this.#call(() => this.#inner.create(this.#in(key), value)));
  }
  async update(key: string, value: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.#kv(await this.#call(() => this.#inner.update(this.#in(key), value, expectedRevision)));
  }
  async delete(key: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.#kv(await this.#call(() => this.#inner.delete(this.#in(key), expectedRevision)));
  }
  watch(options: WatchOptions): Watch {
    return this.#inner.watch({
      ...options,
      prefix: this.#in(options.prefix),
      onEvent: (ev: StoreEvent) => options.onEvent({ ...ev, key: this.#out(ev.key) }),
      onError: (err) => options.onError(this.#error(err) as StorageError),
    });
  }
  waitForRevision(revision: Revision, timeoutMs: number): Promise<boolean> {
    return this.#inner.waitForRevision(revision, timeoutMs);
  }
  ping(): Promise<void> {
    return this.#inner.ping();
  }
  compact(revision: Revision): Promise<number> {
    return this.#inner.compact(revision);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}
