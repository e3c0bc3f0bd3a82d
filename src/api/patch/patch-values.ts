/**
 * Small shared pieces of the strategic merge patch engine: directive key names, and the shape a
 * patch value takes where it lands whole (no original to merge with).
 */
import { isJsonObject } from './json-body';
import { mergepatchErrors } from './patch-errors';

type Json = unknown;
type JsonMap = Record<string, Json>;

export const directiveMarker = '$patch';
export const retainKeysDirective = '$retainKeys';
export const deleteFromPrimitiveListPrefix = '$deleteFromPrimitiveList';
export const setElementOrderPrefix = '$setElementOrder';

export function has(m: JsonMap, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(m, key);
}

/** `$deleteFromPrimitiveList/<list>` -> `<list>`; kube accepts only exactly that shape */
export function directiveTarget(key: string, prefix: string): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    if (prefix === deleteFromPrimitiveListPrefix) throw mergepatchErrors.badPatchFormatForPrimitiveList();
    throw mergepatchErrors.badPatchFormatForSetElementOrderList();
  }
  return key.slice(slash + 1);
}

/**
 * Directive keys in content added whole: kube decodes the result into typed objects, which drops
 * `$retainKeys`, `$setElementOrder/...` and `$deleteFromPrimitiveList/...`; we drop them here.
 */
export function stripDirectiveKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripDirectiveKeys) as T;
  if (!isJsonObject(value)) return value;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) {
    if (!isDirectiveKey(k)) out[k] = stripDirectiveKeys(v);
  }
  return out as T;
}

function isDirectiveKey(k: string): boolean {
  return k === retainKeysDirective || k.startsWith(`${setElementOrderPrefix}/`) || k.startsWith(`${deleteFromPrimitiveListPrefix}/`);
}

/**
 * The value a patch puts where the original has nothing comparable: nulls in maps dropped, and
 * maps carrying `$patch` removed (kube's discardNullValuesFromPatch + removeDirectives).
 * Returns undefined when the value itself is such a directive map.
 */
export function patchValueAsIs(value: Json): Json | undefined {
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const v of value) {
      const kept = patchValueAsIs(v);
      if (kept !== undefined) out.push(kept);
    }
    return out;
  }
  if (!isJsonObject(value)) return value;
  if (has(value, directiveMarker)) return undefined;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || isDirectiveKey(k)) continue;
    const kept = patchValueAsIs(v);
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

/** the JSON kind of a value, as the merge compares original and patch */
export function kindOf(v: Json): 'map' | 'list' | 'scalar' | 'null' {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'list';
  return typeof v === 'object' ? 'map' : 'scalar';
}
