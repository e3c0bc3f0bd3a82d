/** Shared pieces of the protobuf codec tests: one loaded codec, and a "nothing lost" comparison. */
import type { Test } from 'tap';
import { loadProtoSchema, ProtobufCodec } from '../../src/codec/protobuf';

export const schema = loadProtoSchema();
export const codec = new ProtobufCodec({ schema });

/** values kube's JSON adds for Go value fields that the input left out: {} structs, null times, [] lists, zeros */
function isEmptyExtra(v: unknown): boolean {
  if (v === null || v === 0 || v === '' || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.values(v as object).every(isEmptyExtra);
  return false;
}

/**
 * every value of `expected` is in `actual` at the same path, and whatever `actual` has beyond it is
 * one of the empty values kube's JSON writes for unset Go value fields; returns the differences
 */
export function differences(actual: unknown, expected: unknown, path = ''): string[] {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    const out: string[] = [];
    for (const k of Object.keys(e)) out.push(...differences(a[k], e[k], `${path}.${k}`));
    for (const k of Object.keys(a)) if (!(k in e) && !isEmptyExtra(a[k])) out.push(`${path}.${k}: unexpected ${JSON.stringify(a[k])}`);
    return out;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
    return expected.flatMap((e, i) => differences(actual[i], e, `${path}[${i}]`));
  }
  return Object.is(actual, expected) ? [] : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** JSON -> protobuf -> JSON loses nothing, and re-encoding the result gives the same bytes */
export function assertRoundTrip(t: Test, obj: Record<string, unknown>, expected: unknown = obj, name = String(obj.kind)): Record<string, unknown> {
  const bytes = codec.encodeObject(obj);
  const back = codec.decodeObject(bytes);
  t.same(differences(back, expected), [], `${name}: JSON -> protobuf -> JSON keeps every value`);
  t.ok(codec.encodeObject(back).equals(bytes), `${name}: re-encoding the decoded object gives the same bytes`);
  return back;
}
