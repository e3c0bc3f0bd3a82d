/**
 * Removal of owned fields from an object (SMD's RemoveItems), used to prune what an applier
 * applied before and no longer applies. A member path removes that field or list item whole; a
 * path with children removes inside it. Maps and lists emptied by the removal are dropped, as
 * kube's typed objects omit empty optional fields.
 */
import { fieldElement } from './field-set';
import type { FieldSet } from './field-set';
import { listItemElement, isAtomicList } from './list-items';
import { isPlainObject } from './schema-type';
import type { SchemaType } from './schema-type';

export function removeFields(obj: Record<string, unknown>, set: FieldSet, type: SchemaType): Record<string, unknown> {
  return removeInMap(obj, set, type);
}

function removeInMap(obj: Record<string, unknown>, set: FieldSet, type: SchemaType): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    const pe = fieldElement(key);
    if (set.members.has(pe)) continue;
    const below = set.children.get(pe);
    if (!below) {
      out[key] = value;
      continue;
    }
    const kept = removeIn(value, below, type.field(key));
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

function removeIn(value: unknown, set: FieldSet, type: SchemaType): unknown {
  if (isPlainObject(value) && !type.atomicMap) {
    const out = removeInMap(value, set, type);
    return Object.keys(out).length === 0 && Object.keys(value).length > 0 ? undefined : out;
  }
  if (Array.isArray(value) && !isAtomicList(type)) {
    const item = type.item();
    const out: unknown[] = [];
    for (const v of value) {
      const pe = listItemElement(type, v);
      if (set.members.has(pe)) continue;
      const below = set.children.get(pe);
      out.push(below && isPlainObject(v) ? removeInMap(v, below, item) : v);
    }
    return out.length === 0 && value.length > 0 ? undefined : out;
  }
  return value;
}
