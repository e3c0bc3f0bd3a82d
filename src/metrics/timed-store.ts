/**
 * etcd_request_duration_seconds{operation,type} for the SQL store: a Store in front of the real one
 * that times every read and write. `type` is the stored resource of the key (`configmaps`,
 * `deployments.apps`), as kube labels it by resource; keys outside /registry are `unknown`.
 * Watches are not requests and are passed through untimed.
 */
import type { KeyValue, ListOptions, ListResult, Revision, Store, Watch, WatchOptions } from '../storage/store';
import type { ApiServerMetrics } from './apiserver-metrics';

/** `/registry/<group or core>/<resource>/...` -> `<resource>` or `<resource>.<group>` */
export function resourceOfKey(key: string): string {
  const m = /^\/registry\/([^/]+)\/([^/]+)/.exec(key);
  if (!m) return 'unknown';
  return m[1] === 'core' ? m[2] : `${m[2]}.${m[1]}`;
}

export class TimedStore implements Store {
  readonly #inner: Store;
  readonly #metrics: ApiServerMetrics;

  constructor(inner: Store, metrics: ApiServerMetrics) {
    this.#inner = inner;
    this.#metrics = metrics;
    if (inner.writable) this.writable = () => inner.writable!();
  }

  writable?: () => Promise<void>;

  async #timed<T>(operation: string, key: string, call: () => Promise<T>): Promise<T> {
    const end = this.#metrics.storageRequestDuration.startTimer({ operation, type: resourceOfKey(key) });
    try {
      return await call();
    } finally {
      end();
    }
  }

  currentRevision(): Revision {
    return this.#inner.currentRevision();
  }
  compactRevision(): Revision {
    return this.#inner.compactRevision();
  }
  get(key: string, revision?: Revision): Promise<KeyValue | undefined> {
    return this.#timed('get', key, () => this.#inner.get(key, revision));
  }
  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.#timed('list', prefix, () => this.#inner.list(prefix, options));
  }
  count(prefix: string): Promise<number> {
    return this.#timed('count', prefix, () => this.#inner.count(prefix));
  }
  create(key: string, value: string): Promise<KeyValue> {
    return this.#timed('create', key, () => this.#inner.create(key, value));
  }
  update(key: string, value: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.#timed('update', key, () => this.#inner.update(key, value, expectedRevision));
  }
  delete(key: string, expectedRevision?: Revision): Promise<KeyValue> {
    return this.#timed('delete', key, () => this.#inner.delete(key, expectedRevision));
  }
  watch(options: WatchOptions): Watch {
    return this.#inner.watch(options);
  }
  waitForRevision(revision: Revision, timeoutMs: number): Promise<boolean> {
    return this.#inner.waitForRevision(revision, timeoutMs);
  }
  ping(): Promise<void> {
    return this.#inner.ping();
  }
  compact(revision: Revision): Promise<number> {
    return this.#timed('compact', '', () => this.#inner.compact(revision));
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}
