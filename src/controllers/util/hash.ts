/**
 * The pod-template-hash of a Deployment's ReplicaSets (kube's controller.ComputeHash): FNV-32a of
 * the template, then of the collision count as 8 little-endian bytes, printed in decimal and
 * passed through rand.SafeEncodeString (no vowels, no look-alike digits, so no words appear).
 *
 * kube hashes the Go struct as go-spew prints it; we hash the template's JSON with sorted keys
 * instead. The value differs from kube's for the same template, but has the same properties:
 * stable across restarts, changed by any change of the template or of collisionCount.
 */

const SAFE_ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** FNV-1a, 32 bits, over bytes */
export function fnv32a(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** rand.SafeEncodeString: each byte of `s` picks a letter of the safe alphabet */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += SAFE_ALPHANUMS[b % SAFE_ALPHANUMS.length];
  return out;
}

/** JSON with object keys sorted, so that equal templates hash alike whatever their key order */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function computeHash(template: unknown, collisionCount?: number): string {
  let h = fnv32a(Buffer.from(canonicalJson(template), 'utf8'));
  if (collisionCount !== undefined && collisionCount !== null) {
    const extra = Buffer.alloc(8);
    extra.writeUInt32LE(collisionCount >>> 0, 0);
    h = fnv32a(extra, h);
  }
  return safeEncodeString(String(h));
}
