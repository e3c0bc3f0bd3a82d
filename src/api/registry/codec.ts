/**
 * Stored JSON <-> objects of a requested version. Objects are stored in the kind's storage version
 * without metadata.resourceVersion (kube never persists it: the revision that wrote the value is the
 * version). On the way out, the object is converted to the requested version, defaulted, and given
 * resourceVersion = modRevision as a decimal string.
 */
import { apiVersionOf } from '../scheme';
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';

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
  obj.apiVersion = apiVersionOf(kind);
  obj.kind = kind.kind;
  obj.metadata = { ...(obj.metadata ?? {}) };
  kind.strategy.defaults(obj);
  obj.metadata.resourceVersion = String(revision);
  return obj;
}

/** encode an object of the kind's version for storage: storage version, no resourceVersion or selfLink */
export function encodeForStorage(kind: KindDefinition, obj: KubeObject): string {
  const copy = structuredClone(obj);
  copy.apiVersion = apiVersionOf(kind);
  copy.kind = kind.kind;
  const stored = kind.toStorage ? kind.toStorage(copy) : copy;
  if (!kind.toStorage) stored.apiVersion = kind.storageVersion;
  if (stored.metadata) {
    delete stored.metadata.resourceVersion;
    delete stored.metadata.selfLink;
  }
  return JSON.stringify(stored);
}

/** a deep copy for mutation (objects crossing the registry boundary are never shared) */
export function clone<T>(obj: T): T {
  return structuredClone(obj);
}
