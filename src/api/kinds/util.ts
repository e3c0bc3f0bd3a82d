/**
 * Defensive access to JSON objects whose fields may have any type: the registry checks types against
 * the schema first, but strategies must never throw on odd input.
 */
export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** the object at obj[key], or undefined when absent or not an object */
export function objAt(obj: unknown, key: string): Obj | undefined {
  if (!isObj(obj)) return undefined;
  const v = obj[key];
  return isObj(v) ? v : undefined;
}

/** the object at obj[key], created when absent (replaces non-objects) */
export function ensureObj(obj: Obj, key: string): Obj {
  const v = obj[key];
  if (isObj(v)) return v;
  const created: Obj = {};
  obj[key] = created;
  return created;
}

/** walk a path of keys; undefined when any step is not an object */
export function path(obj: unknown, ...keys: string[]): unknown {
  let cur: unknown = obj;
  for (const k of keys) {
    if (!isObj(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function arrAt(obj: unknown, key: string): unknown[] {
  if (!isObj(obj)) return [];
  const v = obj[key];
  return Array.isArray(v) ? v : [];
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function int(v: unknown, fallback = 0): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

/** set obj[key] = value when obj[key] is undefined or null (kube defaults nil pointers only) */
export function setDefault(obj: Obj, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObj(v)) return out;
  for (const [k, val] of Object.entries(v)) if (typeof val === 'string') out[k] = val;
  return out;
}
