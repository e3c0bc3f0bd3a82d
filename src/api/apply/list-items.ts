/**
 * How list items are named in field paths (SMD's listItemToPathElement): items of a map list by
 * their key fields, items of a set by their value. Atomic lists have no item paths.
 */
import { keyElement, valueElement } from './field-set';
import type { PathElement } from './field-set';
import { isPlainObject } from './schema-type';
import type { SchemaType } from './schema-type';

export function listItemElement(list: SchemaType, item: unknown): PathElement {
  if (list.listRelationship === 'map' && isPlainObject(item)) {
    const key: Record<string, unknown> = {};
    for (const k of list.listKeys) if (item[k] !== undefined && item[k] !== null) key[k] = item[k];
    return keyElement(key);
  }
  return valueElement(item);
}

/** the items of a granular list by path element; later duplicates are dropped (kube allows them in live objects) */
export function indexItems(list: SchemaType, items: readonly unknown[]): { order: PathElement[]; byElement: Map<PathElement, unknown> } {
  const order: PathElement[] = [];
  const byElement = new Map<PathElement, unknown>();
  for (const item of items) {
    const pe = listItemElement(list, item);
    if (byElement.has(pe)) continue;
    byElement.set(pe, item);
    order.push(pe);
  }
  return { order, byElement };
}

/** a list whose items are not tracked one by one */
export function isAtomicList(list: SchemaType): boolean {
  return list.listRelationship === 'atomic';
}
