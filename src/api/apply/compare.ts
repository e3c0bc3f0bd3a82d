/**
 * What changed between two versions of an object, as SMD's typed Compare: Added (absent before),
 * Removed (absent after) and Modified (a leaf whose value changed). Maps and granular lists are
 * compared field by field and item by item; scalars, atomic lists and atomic maps are leaves.
 *
 * A node that appears or disappears as a whole is recorded together with everything below it. Kube
 * compares typed Go objects, where a non-pointer struct always exists; here a new struct is not
 * recorded as owned in itself (kube's `f:strategy` has no `.`), while new maps and lists are
 * (`f:labels: {".": {}}`), except required lists (`containers`), which exist in Go's zero value.
 */
import { FieldSet, fieldElement } from './field-set';
import type { FieldPath } from './field-set';
import { indexItems, isAtomicList } from './list-items';
import { isPlainObject } from './schema-type';
import type { SchemaType } from './schema-type';
import { jsonEqual } from '../json-value';

export interface Comparison {
  added: FieldSet;
  removed: FieldSet;
  modified: FieldSet;
}

export function compareObjects(before: unknown, after: unknown, type: SchemaType): Comparison {
  const c: Comparison = { added: new FieldSet(), removed: new FieldSet(), modified: new FieldSet() };
  compareMapFields(isPlainObject(before) ? before : {}, isPlainObject(after) ? after : {}, type, [], c);
  return c;
}

/** the object seen as entirely new (kube's create: compared with the empty object) */
export function addedFields(obj: unknown, type: SchemaType): FieldSet {
  return compareObjects({}, obj, type).added;
}

function isLeaf(value: unknown, type: SchemaType): boolean {
  if (Array.isArray(value)) return isAtomicList(type) || value.length === 0;
  if (isPlainObject(value)) return type.atomicMap || Object.keys(value).length === 0;
  return true;
}

function compareMapFields(before: Record<string, unknown>, after: Record<string, unknown>, type: SchemaType, path: FieldPath, c: Comparison): void {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    const b = before[key];
    const a = after[key];
    const childType = type.field(key);
    const childPath = [...path, fieldElement(key)];
    const ownNode = !(type.isStruct && type.required.includes(key) && Array.isArray(a ?? b));
    compareValue(b, a, childType, childPath, c, ownNode);
  }
}

function compareValue(b: unknown, a: unknown, type: SchemaType, path: FieldPath, c: Comparison, ownNode: boolean): void {
  if (b === undefined && a === undefined) return;
  if (b === undefined) {
    recordWhole(a, type, path, c.added, ownNode);
    return;
  }
  if (a === undefined) {
    recordWhole(b, type, path, c.removed, true);
    return;
  }
  const bothMaps = isPlainObject(b) && isPlainObject(a) && !type.atomicMap;
  const bothLists = Array.isArray(b) && Array.isArray(a) && !isAtomicList(type);
  if (bothMaps && !(Object.keys(b as object).length === 0 && Object.keys(a as object).length === 0)) {
    compareMapFields(b as Record<string, unknown>, a as Record<string, unknown>, type, path, c);
    return;
  }
  if (bothLists && ((b as unknown[]).length > 0 || (a as unknown[]).length > 0)) {
    compareItems(b as unknown[], a as unknown[], type, path, c);
    return;
  }
  if (!jsonEqual(b, a)) c.modified.insert(path);
}

function compareItems(before: unknown[], after: unknown[], type: SchemaType, path: FieldPath, c: Comparison): void {
  const item = type.item();
  const b = indexItems(type, before);
  const a = indexItems(type, after);
  const all = [...b.order, ...a.order.filter((pe) => !b.byElement.has(pe))];
  for (const pe of all) {
    const itemPath = [...path, pe];
    const bv = b.byElement.get(pe);
    const av = a.byElement.get(pe);
    if (!b.byElement.has(pe)) recordWhole(av, item, itemPath, c.added, true, type);
    else if (!a.byElement.has(pe)) recordWhole(bv, item, itemPath, c.removed, true, type);
    else if (type.listRelationship === 'map') compareValue(bv, av, item, itemPath, c, true);
    else if (!jsonEqual(bv, av)) c.modified.insert(itemPath);
  }
}

/** a node present on one side only: itself (unless a struct) and everything below it */
function recordWhole(value: unknown, type: SchemaType, path: FieldPath, into: FieldSet, ownNode: boolean, list?: SchemaType): void {
  if (list) {
    into.insert(path);
    if (list.listRelationship === 'map' && isPlainObject(value) && !type.atomicMap) recordMap(value, type, path, into);
    return;
  }
  if (isLeaf(value, type)) {
    into.insert(path);
    return;
  }
  if (isPlainObject(value)) {
    if (ownNode && !type.isStruct) into.insert(path);
    recordMap(value, type, path, into);
    return;
  }
  if (Array.isArray(value)) {
    if (ownNode) into.insert(path);
    const { order, byElement } = indexItems(type, value);
    for (const pe of order) recordWhole(byElement.get(pe), type.item(), [...path, pe], into, true, type);
  }
}

function recordMap(value: Record<string, unknown>, type: SchemaType, path: FieldPath, into: FieldSet): void {
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const ownNode = !(type.isStruct && type.required.includes(key) && Array.isArray(v));
    recordWhole(v, type.field(key), [...path, fieldElement(key)], into, ownNode);
  }
}
