/**
 * Encryption at rest as a Store in front of the real one: values under the keys of the resources an
 * EncryptionConfiguration names are sealed by the first provider on every write and opened on every
 * read (get, list, watch events), by the provider whose prefix the stored value carries. A value
 * read with anything but the first provider is marked stale, so that rewriting an object (`kubectl
 * replace`, any update) re-encrypts it with the current key even when nothing else changed: that is
 * how keys are rotated, as in kube. The layers above never see ciphertext.
 */
import type { KeyValue, ListOptions, ListResult, Store, StoreEvent, Watch, WatchOptions } from '../store';
import type { EncryptionRule, KeyRing } from './config';
import type { Provider } from './providers';

const ENCRYPTED = 'k8s:enc:';

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

  #seal(key: string, value: string): string {
    const t = this.#transformer(key);
    if (!t || t.writer.prefix === '') return value;
    return t.writer.prefix + t.writer.seal(Buffer.from(value, 'utf8'), key).toString('base64');
  }

  /** the plaintext of a stored value and whether it was sealed with anything but the current writer */
  #open(key: string, value: string): { value: string; stale: boolean } {
    const t = this.#transformer(key);
    if (!t) return { value, stale: false };
    if (!value.startsWith(ENCRYPTED)) {
      if (!t.readers.has('')) throw new Error(`no matching prefix found for ${key}: the value is not encrypted and identity is not a provider`);
      return { value, stale: t.writer.prefix !== '' };
    }
    for (const [prefix, p] of t.readers) {
      if (prefix === '' || !value.startsWith(prefix)) continue;
      const plain = p.open(Buffer.from(value.slice(prefix.length), 'base64'), key).toString('utf8');
      return { value: plain, stale: p !== t.writer };
    }
    throw new Error(`no matching prefix found for ${key}: no provider of the encryption configuration reads ${value.slice(0, value.indexOf(':', ENCRYPTED.length + 8) + 1) || 'it'}`);
  }

  #openKv(kv: KeyValue): KeyValue {
    const { value, stale } = this.#open(kv.key, kv.value);
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
    return kv && this.#openKv(kv);
  }

  async list(prefix: string, options?: ListOptions): Promise<ListResult> {
    const r = await this.#inner.list(prefix, options);
    return { ...r, items: r.items.map((kv) => this.#openKv(kv)) };
  }

  count(prefix: string): Promise<number> {
    return this.#inner.count(prefix);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return { ...(await this.#inner.create(key, this.#seal(key, value))), value };
  }

  async update(key: string, value: string, expectedRevision?: number): Promise<KeyValue> {
    return { ...(await this.#inner.update(key, this.#seal(key, value), expectedRevision)), value };
  }

  async delete(key: string, expectedRevision?: number): Promise<KeyValue> {
    return this.#openKv(await this.#inner.delete(key, expectedRevision));
  }

  watch(options: WatchOptions): Watch {
    return this.#inner.watch({
      ...options,
      onEvent: (e: StoreEvent) => {
        const opened: StoreEvent = { ...e, value: this.#open(e.key, e.value).value };
        if (e.prevValue !== undefined) opened.prevValue = this.#open(e.key, e.prevValue).value;
        options.onEvent(opened);
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
