/**
 * Encode once, share everywhere: objects and watch events held by the watch cache are marked
 * shared (never mutated after the mark), and their serialized forms are memoized on them, per media
 * type, so a list of 10k objects or an event sent to 1,000 watchers is serialized once (kube's
 * cacher does the same with its cachingObject). The memo lives in a symbol-keyed property, which
 * JSON.stringify and structuredClone both ignore, so a copy never carries stale bytes.
 */

const SHARED = Symbol('ballast.shared');
const MEMO = Symbol('ballast.encoded');

type Memoizable = { [SHARED]?: true; [MEMO]?: Map<string, Buffer | string> };

/** mark a value as immutable from now on, so its encodings may be memoized */
export function markShared<T extends object>(value: T): T {
  Object.defineProperty(value, SHARED, { value: true, enumerable: false });
  return value;
}

export function isShared(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Memoizable)[SHARED] === true;
}

/** the memoized encoding of a shared value under `key` (a media type), made by `make` the first time */
export function memoized<V extends Buffer | string>(value: unknown, key: string, make: () => V): V {
  if (!isShared(value)) return make();
  const holder = value as Memoizable;
  let memo = holder[MEMO];
  if (!memo) {
    memo = new Map();
    Object.defineProperty(holder, MEMO, { value: memo, enumerable: false });
  }
  let out = memo.get(key) as V | undefined;
  if (out === undefined) {
    out = make();
    memo.set(key, out);
  }
  return out;
}

/** JSON text of one value (memoized when shared); byte for byte JSON.stringify(value) */
export function jsonText(value: unknown): string {
  return memoized(value, 'application/json', () => JSON.stringify(value));
}

/**
 * compact JSON of a value that may be a list holding shared items: the envelope is stringified
 * once, items are spliced in from their memoized text. The output equals JSON.stringify(value).
 */
export function listJsonText(value: unknown): string {
  const v = value as { items?: unknown } | null;
  if (typeof v !== 'object' || v === null || !Array.isArray(v.items) || v.items.length === 0 || !isShared(v.items[0])) {
    return jsonText(value);
  }
  // `items` last is how lists are built (apiVersion, kind, metadata, items): check, else plain
  const keys = Object.keys(v);
  if (keys[keys.length - 1] !== 'items') return JSON.stringify(value);
  const envelope = JSON.stringify({ ...v, items: [] });
  const parts = new Array<string>(v.items.length);
  for (let i = 0; i < v.items.length; i++) parts[i] = jsonText(v.items[i]);
  return envelope.slice(0, -3) + '[' + parts.join(',') + ']}';
}

/**
 * one frame of a watch stream for an event `{type, object}`: memoized on a shared event (the cache
 * hands the same event to every watcher that takes it unchanged); for JSON the object's memoized
 * text is spliced in, so a shared object is stringified once however many events carry it.
 */
export function watchFrame(event: { type: string; object: unknown }, mediaType: string, encodeFrame: (value: unknown) => Buffer): Buffer {
  return memoized(event, mediaType, () => {
    if (mediaType === 'application/json' && isShared(event.object)) {
      return Buffer.from('{"type":' + JSON.stringify(event.type) + ',"object":' + jsonText(event.object) + '}\n');
    }
    return encodeFrame(event);
  });
}
