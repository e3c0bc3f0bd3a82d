/**
 * Encode once, share everywhere. Objects and watch events held by the watch cache are marked shared
 * (never mutated after the mark), and their serialized forms are memoized on them, per media type,
 * so an event sent to 1,000 watchers is serialized once (kube's cacher does the same with its
 * cachingObject). The memo lives in a symbol-keyed property, which JSON.stringify and
 * structuredClone both ignore, so a copy never carries stale bytes.
 *
 * The cache keeps its current objects as compact JSON bytes only (one copy per object, off the V8
 * heap); `decodeShared` turns bytes back into a shared object whose JSON memo is those bytes, and a
 * list whose items are still bytes (`lazyList`) is decoded only if something reads its items: the
 * JSON encoder splices the bytes directly.
 */

const SHARED = Symbol('ballast.shared');
const MEMO = Symbol('ballast.encoded');
const SOURCES = Symbol('ballast.itemSources');

const JSON_TYPE = 'application/json';

type Memoizable = { [SHARED]?: true; [MEMO]?: Map<string, Buffer> };

/** an item of a lazy list: an object, or the JSON bytes of a (shared) object */
export type ItemSource = object | Buffer;

/** mark a value as immutable from now on, so its encodings may be memoized */
export function markShared<T extends object>(value: T): T {
  Object.defineProperty(value, SHARED, { value: true, enumerable: false });
  return value;
}

export function isShared(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Memoizable)[SHARED] === true;
}

function memoOf(holder: Memoizable): Map<string, Buffer> {
  let memo = holder[MEMO];
  if (!memo) {
    memo = new Map();
    Object.defineProperty(holder, MEMO, { value: memo, enumerable: false });
  }
  return memo;
}

/** the memoized encoding of a shared value under `key` (a media type), made by `make` the first time */
export function memoized(value: unknown, key: string, make: () => Buffer): Buffer {
  if (!isShared(value)) return make();
  const memo = memoOf(value as Memoizable);
  let out = memo.get(key);
  if (out === undefined) {
    out = make();
    memo.set(key, out);
  }
  return out;
}

/**
 * the UTF-8 bytes of text in a buffer of their own. Buffer.from carves small buffers out of shared
 * 8 KiB slabs, and one long-lived slice keeps its whole slab alive: the cache's bytes, kept for
 * as long as the object exists, would pin the slabs of every short-lived buffer around them.
 */
function ownBytes(text: string): Buffer {
  const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

/**
 * compact JSON bytes of one value, byte for byte JSON.stringify(value): memoized, in a buffer of
 * their own, when the value is shared (kept as long as it lives); from the pool otherwise
 */
export function jsonBytes(value: unknown): Buffer {
  if (!isShared(value)) return Buffer.from(JSON.stringify(value));
  return memoized(value, JSON_TYPE, () => ownBytes(JSON.stringify(value)));
}

/** a shared object decoded from compact JSON bytes; its JSON encoding is those same bytes */
export function decodeShared(bytes: Buffer): object {
  const value = markShared(JSON.parse(bytes.toString('utf8')) as object);
  memoOf(value as Memoizable).set(JSON_TYPE, bytes);
  return value;
}

/** the object of a list item: bytes decode into a shared (read-only) object, objects pass through */
export const decodeItem = (source: ItemSource): object => (Buffer.isBuffer(source) ? decodeShared(source) : source);

/**
 * `envelope` with an `items` property (added last, as lists are built) over `sources`: items held as
 * bytes are decoded the first time `items` is read; assigning `items` replaces them. Until then
 * the JSON encoder (listJsonBytes) writes the bytes as they are.
 */
export function lazyList<T extends object>(envelope: T, sources: ItemSource[]): T & { items: object[] } {
  const settle = (list: object, items: unknown) => {
    Object.defineProperty(list, 'items', { value: items, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(envelope, SOURCES, { value: sources, enumerable: false, configurable: true });
  Object.defineProperty(envelope, 'items', {
    enumerable: true,
    configurable: true,
    get(this: object) {
      const items = sources.map(decodeItem);
      settle(this, items);
      return items;
    },
    set(this: object, items: unknown) {
      settle(this, items);
    },
  });
  return envelope as T & { items: object[] };
}

/** the item sources of a lazy list whose items were never read or replaced, else undefined */
function pendingSources(value: object): ItemSource[] | undefined {
  const sources = (value as { [SOURCES]?: ItemSource[] })[SOURCES];
  if (!sources) return undefined;
  const d = Object.getOwnPropertyDescriptor(value, 'items');
  return d && d.get ? sources : undefined;
}

const COMMA = Buffer.from(',');

/** the envelope of a list before its items (`{...,"items":[`), or undefined when it is not a list with items last */
function listHead(value: object, keys: string[]): string | undefined {
  if (keys[keys.length - 1] !== 'items') return undefined;
  const envelope: Record<string, unknown> = {};
  for (const k of keys) envelope[k] = k === 'items' ? [] : (value as Record<string, unknown>)[k];
  return JSON.stringify(envelope).slice(0, -2);
}

/**
 * compact JSON bytes of a value followed by `trailer`; a list's items are spliced in from their
 * bytes (lazy lists) or memoized encodings (shared objects), the envelope stringified once. The
 * output equals JSON.stringify(value) + trailer.
 */
export function listJsonBytes(value: unknown, trailer = ''): Buffer {
  const list = listItemSources(value);
  // `items` last is how lists are built (apiVersion, kind, metadata, items): else stringify plainly
  if (!list || list.sources.length === 0) {
    return isShared(value) ? Buffer.concat([jsonBytes(value), Buffer.from(trailer)]) : Buffer.from(JSON.stringify(value) + trailer);
  }
  // one chunk: the whole body
  return listJsonChunks(list, trailer, Infinity).next().value as Buffer;
}

/** the items of a list (lazy or not) when it is a list with items last, else undefined */
export function listItemSources(value: unknown): { head: string; sources: readonly unknown[] } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const sources = pendingSources(value) ?? (value as { items?: unknown }).items;
  if (!Array.isArray(sources)) return undefined;
  const head = listHead(value, Object.keys(value));
  return head === undefined ? undefined : { head, sources };
}

/**
 * the compact JSON of a list (as listJsonBytes) produced a chunk of about chunkBytes at a time, as
 * the reader asks: a large list is written without ever holding the whole body in memory, and the
 * first bytes leave while the rest is being encoded
 */
export function* listJsonChunks(list: { head: string; sources: readonly unknown[] }, trailer: string, chunkBytes: number): Generator<Buffer> {
  let group: Buffer[] = [Buffer.from(list.head)];
  let size = group[0].length;
  for (let i = 0; i < list.sources.length; i++) {
    const s = list.sources[i];
    const bytes = Buffer.isBuffer(s) ? s : jsonBytes(s);
    if (i > 0) group.push(COMMA);
    group.push(bytes);
    size += bytes.length + (i > 0 ? 1 : 0);
    if (size >= chunkBytes) {
      yield Buffer.concat(group, size);
      group = [];
      size = 0;
    }
  }
  group.push(Buffer.from(']}' + trailer));
  yield Buffer.concat(group);
}

/**
 * one frame of a watch stream for an event `{type, object}`: memoized on a shared event (the cache
 * hands the same event to every watcher that takes it unchanged); for JSON the object's memoized
 * bytes are spliced in, so a shared object is stringified once however many events carry it.
 */
export function watchFrame(event: { type: string; object: unknown }, mediaType: string, encodeFrame: (value: unknown) => Buffer): Buffer {
  return memoized(event, mediaType, () => {
    if (mediaType === JSON_TYPE && isShared(event.object)) {
      return Buffer.concat([Buffer.from('{"type":' + JSON.stringify(event.type) + ',"object":'), jsonBytes(event.object), Buffer.from('}\n')]);
    }
    return encodeFrame(event);
  });
}
