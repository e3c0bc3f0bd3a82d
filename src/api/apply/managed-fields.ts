/**
 * metadata.managedFields <-> the managers' field sets, as kube's managedfields package decodes and
 * encodes them. A manager is identified by (manager, operation, apiVersion, subresource); appliers
 * are identified without apiVersion, so one applier keeps one entry across versions.
 */
import { FieldSet, FieldSetError } from './field-set';

export type ManagedOperation = 'Apply' | 'Update';

export interface ManagerIdentity {
  manager: string;
  operation: ManagedOperation;
  apiVersion: string;
  subresource?: string;
}

export interface ManagedEntry extends ManagerIdentity {
  /** RFC 3339, whole seconds */
  time?: string;
  set: FieldSet;
}

/** entries keyed by identityKey() */
export type Managed = Map<string, ManagedEntry>;

export class ManagedFieldsError extends Error {}

/** kube's BuildManagerIdentifier: the entry without fields and time (and without apiVersion for Apply) */
export function identityKey(id: ManagerIdentity): string {
  const key: Record<string, string> = { manager: id.manager, operation: id.operation };
  if (id.operation === 'Update' && id.apiVersion) key.apiVersion = id.apiVersion;
  if (id.subresource) key.subresource = id.subresource;
  return JSON.stringify(key);
}

/** kube's DecodeManagedFields: every entry must name its operation, apiVersion and fieldsType FieldsV1 */
export function decodeManagedFields(raw: unknown): Managed {
  const managed: Managed = new Map();
  if (raw === undefined || raw === null) return managed;
  if (!Array.isArray(raw)) throw new ManagedFieldsError('managedFields must be a list');
  raw.forEach((e: unknown, i) => {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const entry = e as Record<string, unknown>;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof entry.apiVersion !== 'string' || entry.apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    if (entry.fieldsType === undefined || entry.fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`);
    for (const f of ['manager', 'subresource', 'time'] as const) {
      if (entry[f] !== undefined && entry[f] !== null && typeof entry[f] !== 'string') throw new ManagedFieldsError(`${f} must be a string`);
    }
    let set: FieldSet;
    try {
      set = entry.fieldsV1 === undefined || entry.fieldsV1 === null ? new FieldSet() : FieldSet.fromFieldsV1(entry.fieldsV1);
    } catch (err) {
      if (err instanceof FieldSetError) throw new ManagedFieldsError(`error decoding set: ${err.message}`);
      throw err;
    }
    const decoded: ManagedEntry = {
      manager: (entry.manager as string | undefined) ?? '',
      operation: entry.operation,
      apiVersion: entry.apiVersion,
      set,
    };
    if (entry.subresource) decoded.subresource = entry.subresource as string;
    if (entry.time) decoded.time = entry.time as string;
    managed.set(identityKey(decoded), decoded);
  });
  return managed;
}

/** decode, or nothing when the entries are invalid (kube resets invalid managed fields) */
export function decodeOrEmpty(raw: unknown): Managed {
  try {
    return decodeManagedFields(raw);
  } catch (err) {
    if (err instanceof ManagedFieldsError) return new Map();
    throw err;
  }
}

/** kube's isResetManagedFields: `[]` or `[{}]` in a request clears the managed fields */
export function isResetManagedFields(raw: unknown): boolean {
  if (!Array.isArray(raw)) return false;
  if (raw.length === 0) return true;
  return raw.length === 1 && raw[0] !== null && typeof raw[0] === 'object' && Object.keys(raw[0] as object).length === 0;
}

function seconds(time: string | undefined): number {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** the entries as kube encodes them: sorted by operation, time, manager, apiVersion, subresource */
export function encodeManagedFields(managed: Managed): Record<string, unknown>[] {
  const entries = [...managed.values()].filter((e) => !e.set.empty());
  entries.sort(
    (p, q) =>
      cmp(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager, q.manager) ||
      cmp(p.apiVersion, q.apiVersion) ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries.map((e) => {
    const out: Record<string, unknown> = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time) out.time = e.time;
    out.fieldsType = 'FieldsV1';
    out.fieldsV1 = e.set.toFieldsV1();
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function copyManaged(managed: Managed): Managed {
  const out: Managed = new Map();
  for (const [k, e] of managed) out.set(k, { ...e, set: e.set.copy() });
  return out;
}

/**
 * kube's capManagersManager: at most `max` Update entries; the oldest are merged, per apiVersion,
 * into an "ancient-changes" entry
 */
export function capUpdateManagers(managed: Managed, max = 10): void {
  const updaters = [...managed.keys()].filter((k) => managed.get(k)!.operation === 'Update');
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managed.get(a)!.time) - seconds(managed.get(b)!.time) || cmp(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const key = updaters[i];
    const entry = managed.get(key)!;
    const bucket: ManagerIdentity = { manager: 'ancient-changes', operation: 'Update', apiVersion: entry.apiVersion };
    const bucketKey = identityKey(bucket);
    const first = firstOfVersion.get(entry.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(entry.apiVersion, key);
      continue;
    }
    if (!managed.has(bucketKey)) {
      const firstEntry = managed.get(first)!;
      managed.delete(first);
      managed.set(bucketKey, { ...bucket, time: firstEntry.time, set: firstEntry.set });
    }
    const b = managed.get(bucketKey)!;
    managed.set(bucketKey, { ...bucket, time: entry.time, set: entry.set.union(b.set) });
    managed.delete(key);
    length--;
  }
}
