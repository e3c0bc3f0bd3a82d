/**
 * A Store in front of the real one (and of encryption) that writes values in the configured
 * storage media type and gives every value back as JSON, whatever form it was stored in. The API
 * layer above keeps reading and writing JSON; encryption below seals whatever text it is given;
 * revisions, compaction and watches pass through unchanged.
 */
import type { KeyValue, ListOptions, ListResult, Store, StoreEvent, Watch, WatchOptions } from '../store';
import { StorageCodec } from './storage-codec';
import type { StorageMediaType } from './storage-codec';

export class MediaTypeStore implements Store {
  readonly #inner: Store;
  readonly #codec: StorageCodec;

  constructor(inner: Store, opts: { mediaType: StorageMediaType }) {
    this.#inner = inner;
    this.#codec = new StorageCodec(opts.mediaType);
    if (inner.writable) this.writable = () => inner.writable!();
  }

  writable?: () => Promise<void>;

  #decode(key: string, stored: string): string {
    try {
      return this.#codec.decode(stored);
    } catch (err) {
      throw new Error(`unable to decode the stored value of ${key}: ${(err as Error).message}`);
    }
  }

  #decodeKv(kv: KeyValue): KeyValue {
    const value = this.#decode(kv.key, kv.value);
    if (value === kv.value) return kv;
    return kv.stale || this.#codec.isStale(kv.value) ? { ...kv, value, stale: true } : { ...kv, value };
  }

  currentRevision() {
    return this.#inner.currentRevision();
  }

  compactRevision() {
    return this.#inner.compactRevision();
  }

  async get(key: string, revision?: number): Promise<KeyValue | undefined> {
    const kv = await this.#inner.get(key, revision);
    return kv && this.#decodeKv(kv);
  }

  async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const r = await this.#inner.list(prefix, options);
    return { ...r, items: r.items.map((kv) => this.#decodeKv(kv)) };
  }

  count(prefix: string): Promise<number> {
    return this.#inner.count(prefix);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return { ...(await this.#inner.create(key, this.#codec.encode(value))), value };
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<KeyValue> {
    return { ...(await this.#inner.update(key, this.#codec.encode(value), expectedRevision)), value };
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    return this.#decodeKv(await this.#inner.delete(key, expectedRevision));
  }

  watch(options: WatchOptions): Watch {
    // a value that does not decode is passed on as stored: the registry answers it as a corrupt object
    const decode = (key: string, stored: string) => {
      try {
        return this.#codec.decode(stored);
      } catch {
        return stored;
      }
    };
    return this.#inner.watch({
      ...options,
      onEvent: (e: StoreEvent) => {
        const decoded: StoreEvent = { ...e, value: decode(e.key, e.value) };
        if (e.prevValue !== undefined) decoded.prevValue = decode(e.key, e.prevValue);
        options.onEvent(decoded);
      },
    });
  }

  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    return this.#inner.waitForRevision(revision, timeoutMs);
  }

  ping(): Promise<void> {
    return this.#inner.ping();
  }

  compact(revision: number): Promise<number> {
    return this.#inner.compact(revision);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
