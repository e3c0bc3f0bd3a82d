/**
 * Encryption at rest as a Store in front of the real one: values under the keys of the resources an
 * EncryptionConfiguration names are sealed by the first provider on every write and opened on every
 * read (get, list, watch events), by the provider whose prefix the stored value carries. A value
 * read with anything but the first provider is marked stale, so that rewriting an object (`kubectl
 * replace`, any update) re-encrypts it with the current key even when nothing else changed: that is
 * how keys are rotated, as in kube. The layers above never see ciphertext.
 */
import type { KeyValue, ListOptions, ListResult, Store, StoreEvent, Watch, WatchOptions } from '../store';
import { StorageError } from '../store';
import type { EncryptionRule, KeyRing } from './config';
import type { Provider } from './providers';

const ENCRYPTED = 'k8s:enc:';

interface Opened {
  value: string;
  stale: boolean;
}

interface Transformer {
  /** the provider that seals new writes */
  writer: Provider;
  /** every provider key that may open a value, by prefix ('' = plaintext, when identity is listed) */
  readers: Map<string, Provider>;
}

/** `/registry/<group or core>/<resource>/...` -> the group and resource of the key */
function resourceOfKey(key: string): { group: string; resource: string } | undefined {
  const m = /^\/registry\/([^/]+)\/([^/]+)\//.exec(key);
  if (!m) return undefined;
  return { group: m[1] === 'core' ? '' : m[1], resource: m[2] };
}

function matches(name: string, group: string, resource: string): boolean {
  if (name === '*.*') return true;
  if (name.startsWith('*.')) return name.slice(2) === group;
  const dot = name.indexOf('.');
  return dot < 0 ? group === '' && name === resource : name.slice(0, dot) === resource && name.slice(dot + 1) === group;
}

function transformerOf(rule: EncryptionRule): Transformer {
  const readers = new Map<string, Provider>();
  for (const p of rule.providers) {
    for (const k of (p as Partial<KeyRing>).keys ?? [p]) if (!readers.has(k.prefix)) readers.set(k.prefix, k);
  }
  const first = rule.providers[0];
  return { writer: (first as Partial<KeyRing>).keys?.[0] ?? first, readers };
}

export class EncryptingStore implements Store {
  readonly #inner: Store;
  readonly #rules: { rule: EncryptionRule; transformer: Transformer }[];
  readonly #byPrefix = new Map<string, Transformer | null>();

  constructor(inner: Store, rules: readonly EncryptionRule[]) {
    this.#inner = inner;
    this.#rules = rules.map((rule) => ({ rule, transformer: transformerOf(rule) }));
    if (inner.writable) this.writable = () => inner.writable!();
  }

  writable?: () => Promise<void>;

  /** the transformer of a key's resource (the first entry naming it), or null */
  #transformer(key: string): Transformer | null {
    const r = resourceOfKey(key);
    if (!r) return null;
    const cacheKey = `${r.group}/${r.resource}`;
    let t = this.#byPrefix.get(cacheKey);
    if (t === undefined) {
      t = this.#rules.find(({ rule }) => rule.resources.some((n) => matches(n, r.group, r.resource)))?.transformer ?? null;
      this.#byPrefix.set(cacheKey, t);
    }
    return t;
  }

  async #seal(key: string, value: string): Promise<string> {
    const t = this.#transformer(key);
    if (!t || t.writer.prefix === '') return value;
    return t.writer.prefix + (await t.writer.seal(Buffer.from(value, 'utf8'), key)).toString('base64');
  }

  /**
   * the plaintext of a stored value and whether it was sealed with anything but the current
   * writer; synchronous for local providers, a promise when a KMS plugin has to be asked
   */
  #open(key: string, value: string): Opened | Promise<Opened> {
    const t = this.#transformer(key);
    if (!t) return { value, stale: false };
    if (!value.startsWith(ENCRYPTED)) {
      if (!t.readers.has('')) throw new Error(`no matching prefix found for ${key}: the value is not encrypted and identity is not a provider`);
      return { value, stale: t.writer.prefix !== '' };
    }
    for (const [prefix, p] of t.readers) {
      if (prefix === '' || !value.startsWith(prefix)) continue;
      const plain = p.open(Buffer.from(value.slice(prefix.length), 'base64'), key);
      const stale = p !== t.writer;
      return Buffer.isBuffer(plain) ? { value: plain.toString('utf8'), stale } : plain.then((b) => ({ value: b.toString('utf8'), stale }));
    }
    throw new Error(`no matching prefix found for ${key}: no provider of the encryption configuration reads ${value.slice(0, value.indexOf(':', ENCRYPTED.length + 8) + 1) || 'it'}`);
  }

  async #openKv(kv: KeyValue): Promise<KeyValue> {
    const { value, stale } = await this.#open(kv.key, kv.value);
    return stale ? { ...kv, value, stale } : { ...kv, value };
  }

  currentRevision() {
    return this.#inner.currentRevision();
  }

  compactRevision() {
    return this.#inner.compactRevision();
  }

  async get(key: string, revision?: number): Promise<KeyValue | undefined> {
    const kv = await this.#inner.get(key, revision);
    return kv && (await this.#openKv(kv));
  }

  async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const r = await this.#inner.list(prefix, options);
    return { ...r, items: await Promise.all(r.items.map((kv) => this.#openKv(kv))) };
  }

  count(prefix: string): Promise<number> {
    return this.#inner.count(prefix);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return { ...(await this.#inner.create(key, await this.#seal(key, value))), value };
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<KeyValue> {
    return { ...(await this.#inner.update(key, await this.#seal(key, value), expectedRevision)), value };
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    return await this.#openKv(await this.#inner.delete(key, expectedRevision));
  }

  /**
   * Events are opened in order. While every value opens at once they are passed on at once; once
   * one needs a KMS plugin, later events (and progress notes) queue behind it, so the order and
   * the bookmarks stay right. A value that cannot be opened ends the watch with an error, as a
   * watch in kube ends on a transformer error; the client relists and sees the 500.
   */
  watch(options: WatchOptions): Watch {
    let queue: Promise<void> | undefined;
    let ended = false;
    const fail = (err: unknown) => {
      if (ended) return;
      ended = true;
      inner.cancel();
      options.onError(new StorageError('Unavailable', `unable to transform the stored value: ${(err as Error).message}`, { cause: err }));
    };
    const later = (step: () => void | Promise<void>) => {
      const run = async () => {
        if (!ended) await step();
      };
      const next: Promise<void> = (queue ?? Promise.resolve()).then(run).catch(fail);
      queue = next;
      void next.then(() => {
        if (queue === next) queue = undefined;
      });
    };
    const openEvent = (e: StoreEvent): StoreEvent | Promise<StoreEvent> => {
      const value = this.#open(e.key, e.value);
      const prev = e.prevValue === undefined ? undefined : this.#open(e.key, e.prevValue);
      if (!(value instanceof Promise) && !(prev instanceof Promise)) return prev ? { ...e, value: value.value, prevValue: prev.value } : { ...e, value: value.value };
      return Promise.all([value, prev]).then(([v, p]) => (p ? { ...e, value: v.value, prevValue: p.value } : { ...e, value: v.value }));
    };
    const inner = this.#inner.watch({
      ...options,
      onEvent: (e: StoreEvent) => {
        if (ended) return;
        if (!queue) {
          let opened: StoreEvent | Promise<StoreEvent>;
          try {
            opened = openEvent(e);
          } catch (err) {
            return fail(err);
          }
          if (!(opened instanceof Promise)) return options.onEvent(opened);
          return later(async () => options.onEvent(await opened));
        }
        later(async () => options.onEvent(await openEvent(e)));
      },
      onError: (err) => {
        if (queue) later(() => options.onError(err));
        else if (!ended) options.onError(err);
      },
      onProgress: options.onProgress && ((revision) => (queue ? later(() => options.onProgress!(revision)) : options.onProgress!(revision))),
    });
    return {
      cancel: () => {
        ended = true;
        inner.cancel();
      },
    };
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

  async close(): Promise<void> {
    try {
      await this.#inner.close();
    } finally {
      for (const { rule } of this.#rules) for (const p of rule.providers) p.close?.();
    }
  }
}
