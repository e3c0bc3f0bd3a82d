/**
 * Managed fields on every write, as kube's FieldManager pipeline (k8s.io/apimachinery
 * pkg/util/managedfields/internal): Update operations take ownership of the fields they changed
 * (from everyone else), Apply operations own exactly the fields they applied, conflict with other
 * owners of fields whose value they change, and prune what they applied before and dropped.
 */
import type { KubeObject } from '../kind';
import { FieldSet, fieldElement } from './field-set';
import type { PathElement } from './field-set';
import { compareObjects, addedFields } from './compare';
import type { Comparison } from './compare';
import { fieldSetOf } from './to-field-set';
import { mergeObjects } from './merge';
import { removeFields } from './remove';
import type { SchemaType } from './schema-type';
import { jsonEqual } from '../json-value';
import {
  capUpdateManagers,
  copyManaged,
  decodeManagedFields,
  decodeOrEmpty,
  encodeManagedFields,
  identityKey,
  isResetManagedFields,
  ManagedFieldsError,
} from './managed-fields';
import type { Managed, ManagerIdentity } from './managed-fields';

export interface FieldManagerScope {
  /** the kind's type (its definition) */
  type: SchemaType;
  /** the kind's apiVersion (`apps/v1`) */
  apiVersion: string;
  /** 'status' or 'scale' for writes through a subresource */
  subresource?: string;
  /** the time of this write, RFC 3339 seconds */
  now: string;
  /**
   * kube's reset fields (fields the strategy resets, so nobody owns them through this endpoint):
   * 'status' for the main resource of kinds with a status subresource; 'allButStatus' for writes
   * to the status subresource (only metadata and status are kept)
   */
  resetFields?: 'status' | 'allButStatus';
}

/** kube's stripMetaManager: system fields nobody owns */
const STRIP = FieldSet.of(
  ['f:apiVersion'],
  ['f:kind'],
  ['f:metadata'],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    'f:metadata',
    fieldElement(f),
  ]),
);

function withoutManagedFields(obj: KubeObject | undefined): Record<string, unknown> {
  if (!obj) return {};
  const copy = { ...obj, metadata: { ...(obj.metadata ?? {}) } };
  delete copy.metadata.managedFields;
  delete copy.metadata.resourceVersion;
  return copy;
}

function filtered(set: FieldSet, scope: FieldManagerScope): FieldSet {
  if (scope.resetFields === 'status') return set.filterTop((pe: PathElement) => pe !== 'f:status');
  if (scope.resetFields === 'allButStatus') return set.filterTop((pe: PathElement) => pe === 'f:status' || pe === 'f:metadata');
  return set;
}

function compare(before: unknown, after: unknown, scope: FieldManagerScope): Comparison {
  const c = compareObjects(before, after, scope.type);
  return { added: filtered(c.added, scope), removed: filtered(c.removed, scope), modified: filtered(c.modified, scope) };
}

function setManaged(obj: KubeObject, managed: Managed): void {
  const entries = encodeManagedFields(managed);
  const meta = (obj.metadata ??= {});
  if (entries.length) meta.managedFields = entries;
  else delete meta.managedFields;
}

/**
 * The managed fields of `next` after an Update operation by `manager` over `live` (undefined on
 * create). As kube's UpdateNoErrors, this never fails: on any problem the live entries are kept.
 * Managed fields sent in the request are honoured when valid and non-empty (main resource only);
 * `[]` or `[{}]` clears them; an object with no managed fields that already exists stays untracked.
 */
export function updateManagedFields(live: KubeObject | undefined, next: KubeObject, manager: string, scope: FieldManagerScope): void {
  const liveManaged = live?.metadata?.managedFields;
  try {
    let managed: Managed;
    const requested = next.metadata?.managedFields;
    if (scope.subresource) managed = decodeOrEmpty(liveManaged);
    else if (isResetManagedFields(requested)) managed = new Map();
    else {
      let fromRequest: Managed | undefined;
      try {
        fromRequest = decodeManagedFields(requested);
      } catch (err) {
        if (!(err instanceof ManagedFieldsError)) throw err;
      }
      managed = fromRequest && fromRequest.size > 0 ? fromRequest : decodeOrEmpty(liveManaged);
    }
    // kube's skipNonAppliedManager: an existing object without managed fields is not tracked
    if (managed.size === 0 && live?.metadata?.uid) {
      setManaged(next, managed);
      return;
    }
    const id: ManagerIdentity = { manager: manager || 'unknown', operation: 'Update', apiVersion: scope.apiVersion };
    if (scope.subresource) id.subresource = scope.subresource;
    recordUpdate(managed, id, withoutManagedFields(live), withoutManagedFields(next), scope);
    capUpdateManagers(managed);
    setManaged(next, managed);
  } catch {
    if (next.metadata) {
      if (liveManaged === undefined) delete next.metadata.managedFields;
      else next.metadata.managedFields = structuredClone(liveManaged);
    }
  }
}

/** kube's Updater.Update through managedFieldsUpdater: changed fields move to `id` */
function recordUpdate(managed: Managed, id: ManagerIdentity, before: unknown, after: unknown, scope: FieldManagerScope): void {
  const c = compare(before, after, scope);
  const changed = c.modified.union(c.added);
  for (const [key, entry] of managed) {
    const rest = entry.set.difference(changed).difference(c.removed);
    if (rest.empty()) managed.delete(key);
    else managed.set(key, { ...entry, set: rest });
  }
  const owned = changed.difference(STRIP);
  if (owned.empty()) return;
  const key = identityKey(id);
  const previous = managed.get(key);
  managed.set(key, { ...id, time: scope.now, set: previous ? owned.union(previous.set) : owned });
}

/** one field owned by another manager whose value the apply changes */
export interface Conflict {
  /** the other manager's identity key */
  managerKey: string;
  path: readonly PathElement[];
}

export class ApplyConflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('apply conflicts');
  }
}

export interface ApplyResult {
  /** the merged object, with its managed fields */
  object: KubeObject;
  /** false when the apply changed nothing but (perhaps) ownership */
  changed: boolean;
}

/**
 * Apply `config` as `manager` over `live` (an empty object with only apiVersion/kind when the
 * object does not exist yet). Throws ApplyConflicts unless forced; ManagedFieldsError when the
 * live managed fields cannot be decoded.
 */
export function applyManagedFields(live: KubeObject, config: KubeObject, manager: string, force: boolean, scope: FieldManagerScope): ApplyResult {
  let managed = decodeManagedFields(live.metadata?.managedFields);
  const liveObj = withoutManagedFields(live);
  // kube's skipNonAppliedManager: the first apply to an untracked object gives what exists to "before-first-apply"
  if (managed.size === 0 && live.metadata?.uid) {
    recordUpdate(managed, { manager: 'before-first-apply', operation: 'Update', apiVersion: scope.apiVersion }, {}, liveObj, scope);
  }
  const attempt = (forced: boolean) => applyOnce(copyManaged(managed), liveObj, config, manager, forced, scope);
  let result = attempt(force);
  if (result instanceof ApplyConflicts && manager === 'kubectl') {
    // kube's lastAppliedManager: conflicts on fields kubectl's client-side apply set to today's values are allowed
    const allowed = allowedFromLastApplied(liveObj, scope);
    if (allowed) {
      const rest = result.conflicts.filter((c) => !allowed.has(c.path));
      result = rest.length ? new ApplyConflicts(rest) : attempt(true);
    }
  }
  if (result instanceof ApplyConflicts) throw result;
  managed = result.managed;
  const object = result.object as KubeObject;
  if (manager === 'kubectl') updateLastApplied(object, config);
  setManaged(object, managed);
  return { object, changed: result.changed };
}

function applyOnce(
  managed: Managed,
  live: Record<string, unknown>,
  config: KubeObject,
  manager: string,
  force: boolean,
  scope: FieldManagerScope,
): { object: Record<string, unknown>; managed: Managed; changed: boolean } | ApplyConflicts {
  const id: ManagerIdentity = { manager, operation: 'Apply', apiVersion: scope.apiVersion };
  if (scope.subresource) id.subresource = scope.subresource;
  const key = identityKey(id);
  const configSet = filtered(fieldSetOf(config, scope.type), scope);
  let merged = mergeObjects(live, config, scope.type);
  const previous = managed.get(key);
  managed.set(key, { ...id, time: previous?.time, set: configSet });
  if (previous && !previous.set.empty()) {
    let owned = new FieldSet();
    for (const e of managed.values()) owned = owned.union(e.set);
    merged = removeFields(merged, prunable(previous.set, owned), scope.type);
  }
  const c = compare(live, merged, scope);
  const changedFields = c.modified.union(c.added);
  const conflicts: Conflict[] = [];
  for (const [k, e] of managed) {
    if (k === key) continue;
    for (const path of e.set.intersection(changedFields).paths()) conflicts.push({ managerKey: k, path });
  }
  if (conflicts.length && !force) return new ApplyConflicts(conflicts);
  for (const [k, e] of managed) {
    if (k === key) continue;
    const rest = e.set.difference(changedFields).difference(c.removed);
    if (rest.empty()) managed.delete(k);
    else managed.set(k, { ...e, set: rest });
  }
  const mine = configSet.difference(STRIP);
  const changed = !jsonEqual(live, merged);
  if (mine.empty()) managed.delete(key);
  else managed.set(key, { ...id, time: changed ? scope.now : previous?.time, set: mine });
  return { object: merged, managed, changed };
}

/**
 * what an applier loses by no longer applying it: fields of its last set that nobody (the new
 * configuration included) owns, at or below the path (SMD's prune with addBackOwnedItems)
 */
function prunable(last: FieldSet, owned: FieldSet | undefined): FieldSet {
  const out = new FieldSet();
  for (const m of last.members) {
    const ownedBelow = owned?.children.get(m);
    if (!owned?.members.has(m) && (!ownedBelow || ownedBelow.empty())) out.insert([m]);
  }
  for (const [pe, child] of last.children) {
    if (out.members.has(pe)) continue;
    const sub = prunable(child, owned?.children.get(pe));
    for (const p of sub.paths()) out.insert([pe, ...p]);
  }
  return out;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** fields of the last-applied annotation whose live value is still the one applied */
function allowedFromLastApplied(live: Record<string, unknown>, scope: FieldManagerScope): FieldSet | undefined {
  const annotations = (live.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
  const text = annotations?.[LAST_APPLIED];
  if (!text) return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if ((lastApplied as { apiVersion?: unknown } | null)?.apiVersion !== scope.apiVersion) return undefined;
  const set = fieldSetOf(lastApplied, scope.type);
  const c = compareObjects(lastApplied, live, scope.type);
  return set.difference(c.modified).difference(c.added).difference(c.removed);
}

/** kube's lastAppliedUpdater: kubectl's server-side apply keeps an existing annotation current */
function updateLastApplied(obj: KubeObject, config: KubeObject): void {
  const annotations = obj.metadata?.annotations;
  if (!annotations?.[LAST_APPLIED]) return;
  const copy = structuredClone(config);
  if (copy.metadata?.annotations) delete copy.metadata.annotations[LAST_APPLIED];
  annotations[LAST_APPLIED] = goJson(copy) + '\n';
}

/** encoding/json of an unstructured object: map keys sorted */
function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${goJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  if (typeof v === 'string') {
    // encoding/json escapes HTML characters and the JavaScript line separators
    return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  return JSON.stringify(v);
}

export { addedFields };
