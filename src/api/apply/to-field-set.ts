/**
 * The fields an object sets, as SMD's ToFieldSet: every scalar, every atomic list or map, every
 * null or empty map, and every item of a granular list (the item itself, then its fields).
 */
import { FieldSet, fieldElement } from './field-set';
import type { FieldPath } from './field-set';
import { indexItems, isAtomicList } from './list-items';
import { SchemaType, isPlainObject } from './schema-type';

export function fieldSetOf(obj: unknown, type: SchemaType): FieldSet {
  const set = new FieldSet();
  walk(obj, type, [], set);
  return set;
}

function walk(value: unknown, type: SchemaType, path: FieldPath, set: FieldSet): void {
  if (Array.isArray(value)) {
    if (isAtomicList(type)) {
      set.insert(path);
      return;
    }
    const item = type.item();
    const { order, byElement } = indexItems(type, value);
    for (const pe of order) {
      const itemPath = [...path, pe];
      set.insert(itemPath);
      const v = byElement.get(pe);
      if (type.listRelationship === 'map' && isPlainObject(v) && !item.atomicMap) walkMap(v, item, itemPath, set);
    }
    return;
  }
  if (isPlainObject(value)) {
    if (type.atomicMap) {
      set.insert(path);
      return;
    }
    walkMap(value, type, path, set);
    return;
  }
  set.insert(path);
}

function walkMap(value: Record<string, unknown>, type: SchemaType, path: FieldPath, set: FieldSet): void {
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const childPath = [...path, fieldElement(key)];
    if (v === null || (isPlainObject(v) && Object.keys(v).length === 0)) set.insert(childPath);
    else walk(v, type.field(key), childPath, set);
  }
}

export { SchemaType };
