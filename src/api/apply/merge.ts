/**
 * The merge of an applied configuration into the live object, as SMD's typed Merge: the applied
 * value wins for scalars, atomic lists and atomic maps; maps merge field by field; granular lists
 * merge item by item (map lists by key, sets by value), keeping live-only items where they were and
 * the applied items in the applied order. Explicit nulls in the configuration unset fields (kube's
 * typed objects have no nulls); the live object's values are kept as they are.
 */
import { indexItems, isAtomicList } from './list-items';
import { isPlainObject } from './schema-type';
import type { SchemaType } from './schema-type';
import type { PathElement } from './field-set';

export function mergeObjects(live: unknown, config: unknown, type: SchemaType): Record<string, unknown> {
  const merged = mergeValue(live, config, type);
  return (isPlainObject(merged) ? merged : {}) as Record<string, unknown>;
}

function mergeValue(lhs: unknown, rhs: unknown, type: SchemaType): unknown {
  if (rhs === undefined) return structuredClone(lhs);
  // an explicit null in the configuration unsets the field (typed objects have no nulls)
  if (rhs === null) return undefined;
  if (lhs === undefined) return dropNulls(rhs);
  if (isPlainObject(lhs) && isPlainObject(rhs) && !type.atomicMap) {
    if (Object.keys(lhs).length === 0 && Object.keys(rhs).length === 0) return {};
    const out: Record<string, unknown> = {};
    for (const key of new Set([...Object.keys(lhs), ...Object.keys(rhs)])) {
      const v = mergeValue(lhs[key], rhs[key], type.field(key));
      if (v !== undefined) out[key] = v;
    }
    return out;
  }
  if (Array.isArray(lhs) && Array.isArray(rhs) && !isAtomicList(type) && (lhs.length > 0 || rhs.length > 0)) {
    return mergeItems(lhs, rhs, type);
  }
  return dropNulls(rhs);
}

/** SMD's visitListItems ordering: walk both lists, keeping shared items in the applied order */
function mergeItems(lhsList: unknown[], rhsList: unknown[], type: SchemaType): unknown[] {
  const item = type.item();
  const lhs = indexItems(type, lhsList);
  const rhs = indexItems(type, rhsList);
  const out: unknown[] = [];
  const mergeItem = (pe: PathElement) =>
    type.listRelationship === 'map' ? mergeValue(lhs.byElement.get(pe), rhs.byElement.get(pe), item) : dropNulls(rhs.byElement.get(pe));
  const sharedOrder = rhs.order.filter((pe) => lhs.byElement.has(pe));
  let nextShared: PathElement | undefined = sharedOrder.shift();
  const mergedRhs = new Set<PathElement>();
  const lLen = lhs.order.length;
  const rLen = rhs.order.length;
  for (let lI = 0, rI = 0; lI < lLen || rI < rLen; ) {
    if (lI < lLen && rI < rLen) {
      const pe = lhs.order[lI];
      if (pe === rhs.order[rI]) {
        mergedRhs.add(pe);
        out.push(mergeItem(pe));
        lI++;
        rI++;
        nextShared = sharedOrder.shift();
        continue;
      }
      if (rhs.byElement.has(pe) && nextShared !== undefined && nextShared !== pe) {
        lI++;
        continue;
      }
    }
    if (lI < lLen) {
      const pe = lhs.order[lI];
      if (!rhs.byElement.has(pe)) {
        out.push(structuredClone(lhs.byElement.get(pe)));
        lI++;
        continue;
      } else if (mergedRhs.has(pe)) {
        lI++;
      }
    }
    if (rI < rLen) {
      const pe = rhs.order[rI];
      mergedRhs.add(pe);
      out.push(mergeItem(pe));
      rI++;
      if (nextShared !== undefined && nextShared === pe) nextShared = sharedOrder.shift();
    }
  }
  return out;
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = dropNulls(v);
    return out;
  }
  return value;
}
