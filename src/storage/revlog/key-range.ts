/**
 * Key ranges as SQL sees them. Keys compare as SQLite's BINARY collation does (UTF-8 bytes), which
 * differs from JavaScript's UTF-16 comparison only for characters outside the Basic Multilingual Plane.
 */

/** the largest code point: appended to a prefix it bounds every key that starts with the prefix */
const MAX_CHAR = String.fromCodePoint(0x10ffff);

export type KeyRange = {
  /** inclusive lower bound */
  from: string;
  /** exclusive upper bound */
  to: string;
};

/**
 * The range of keys that begin with prefix, starting at startKey when that is later.
 * (A key continuing the prefix with U+10FFFF itself is out of range: such keys do not occur in kube.)
 */
export function prefixRange(prefix: string, startKey?: string): KeyRange {
  const to = prefix + MAX_CHAR;
  const from = startKey !== undefined && compareKeys(startKey, prefix) > 0 ? startKey : prefix;
  return { from, to };
}

/** compare two keys in UTF-8 byte order (the order of SQLite's BINARY collation) */
export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // surrogates (astral characters) encode above U+E000..U+FFFF in UTF-8, below them in UTF-16
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (x >= 0xe000 || y >= 0xe000)) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
