/**
 * Stored JSON <-> objects of a requested version. Objects are stored in the kind's storage version
 * without metadata.resourceVersion (kube never persists it: the revision that wrote the value is the
 * version). On the way out, the object is converted to the requested version, defaulted, and given
 * resourceVersion = modRevision as a decimal string.
 */
import { apiVersionOf } from '../scheme';
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import { kindOptions } from './context';

/** decode a stored value into the kind's version; revision becomes metadata.resourceVersion */
export function decodeStored(kind: KindDefinition, value: string, revision: number): KubeObject {
  let stored: KubeObject;
  try {
    stored = JSON.parse(value) as KubeObject;
  } catch (err) {
    // kube answers a corrupt stored object with an internal error, never a crash
    throw errors.internal(`unable to decode stored object: ${(err as Error).message}`);
  }
  const obj = kind.fromStorage ? kind.fromStorage(stored) : { ...stored };
  // kinds converted at the registry's edge keep the version they were stored in (context.ts)
  if (!(kindOptions(kind).keepsStoredVersion && typeof stored.apiVersion === 'string' && stored.apiVersion)) obj.apiVersion = apiVersionOf(kind);
  obj.kind = kind.kind;
  obj.metadata = { ...(obj.metadata ?? {}) };
  kind.strategy.defaults(obj);
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

/**
 * the object as it is stored (storage version, no resourceVersion or selfLink), before JSON
 * encoding. For kinds stored in their own version the result shares everything below the top
 * level and metadata with `obj` (both are shallow copies): read it, never mutate it. Kinds with a
 * conversion get a deep copy, since the conversion may rewrite nested parts.
 */
export function storageForm(kind: KindDefinition, obj: KubeObject): KubeObject {
  if (kindOptions(kind).keepsStoredVersion) {
    const stored: KubeObject = { ...obj, kind: kind.kind };
    if (typeof stored.apiVersion !== 'string' || !stored.apiVersion) stored.apiVersion = apiVersionOf(kind);
    if (stored.metadata) {
      const meta = { ...stored.metadata };
      delete meta.resourceVersion;
      delete meta.selfLink;
      stored.metadata = meta;
    }
    return stored;
  }
  if (kind.toStorage) {
    const copy = structuredClone(obj);
    copy.apiVersion = apiVersionOf(kind);
    copy.kind = kind.kind;
    const stored = kind.toStorage(copy);
    if (stored.metadata) {
      delete stored.metadata.resourceVersion;
      delete stored.metadata.selfLink;
    }
    return stored;
  }
  // the same keys in the same order as a deep copy with these assignments would have
  const stored: KubeObject = { ...obj, apiVersion: apiVersionOf(kind), kind: kind.kind };
  stored.apiVersion = kind.storageVersion;
  if (stored.metadata) {
    const meta = { ...stored.metadata };
    delete meta.resourceVersion;
    delete meta.selfLink;
    stored.metadata = meta;
  }
  return stored;
}

/** encode an object of the kind's version for storage: storage version, no resourceVersion or selfLink */
export function encodeForStorage(kind: KindDefinition, obj: KubeObject): string {
  return JSON.stringify(storageForm(kind, obj));
}

/**
 * The response to a write whose value `value` was just stored at `revision`, from `obj`, the object
 * that was encoded into it (owned by the caller, not shared): what decodeStored(value) would give,
 * without decoding. Decoding the stored value re-runs the kind's defaults and puts resourceVersion
 * last in metadata, so the same is done here. Only for objects copied by clone() from plain JSON
 * (which the stored JSON gives back unchanged); others, and kinds with a storage conversion, are
 * decoded as before.
 */
export function storedResponse(kind: KindDefinition, obj: KubeObject, value: string, revision: number): KubeObject {
  if (kind.toStorage || kind.fromStorage || !jsonPure.has(obj)) return decodeStored(kind, value, revision);
  obj.apiVersion = apiVersionOf(kind);
  obj.kind = kind.kind;
  const meta = (obj.metadata ??= {});
  delete meta.resourceVersion;
  delete meta.selfLink;
  kind.strategy.defaults(obj);
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

/**
 * Copies made by clone() from plain JSON values (plain objects, arrays without holes, strings,
 * finite numbers other than -0, booleans, null; no undefined): encoding one and decoding the
 * result gives it back unchanged, so a write can answer with it (storedResponse).
 */
const jsonPure = new WeakSet<object>();

const IMPURE = Symbol('impure');

/** a deep copy of a plain JSON value, or IMPURE when it holds anything JSON would change */
function copyJson(v: unknown): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      // JSON has no -0, NaN or Infinity: decoding the stored value would give 0 or null
      return Number.isFinite(v) && !Object.is(v, -0) ? v : IMPURE;
    case 'object': {
      if (v === null) return null;
      if (Array.isArray(v)) {
        const out = new Array<unknown>(v.length);
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) return IMPURE;
          const c = copyJson(v[i]);
          if (c === IMPURE) return IMPURE;
          out[i] = c;
        }
        return out;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return IMPURE;
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        if (k === '__proto__') return IMPURE;
        const c = copyJson((v as Record<string, unknown>)[k]);
        if (c === IMPURE) return IMPURE;
        out[k] = c;
      }
      return out;
    }
    default:
      return IMPURE;
  }
}

/**
 * a deep copy for mutation (objects crossing the registry boundary are never shared). Plain JSON
 * values are copied by a walk of their own (cheaper than structuredClone for the small objects
 * of a request) and remembered as such; anything else goes through structuredClone.
 */
export function clone<T>(obj: T): T {
  if (obj !== null && typeof obj === 'object') {
    let copy: unknown = IMPURE;
    try {
      copy = copyJson(obj);
    } catch {
      // too deep for the recursive copy: structuredClone below
    }
    if (copy !== IMPURE) {
      jsonPure.add(copy as object);
      return copy as T;
    }
  }
  return structuredClone(obj);
}
