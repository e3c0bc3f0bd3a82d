/**
 * Lists in a strategic merge patch (kube's mergeSlice and its helpers): merging lists of maps by
 * merge key, sets of primitives, `$patch: delete | replace` items, `$deleteFromPrimitiveList`, and
 * the ordering rules: items named in the patch keep the patch's order, items only on the server
 * keep theirs and are interleaved by their position in the live list.
 */
import { goSliceStable } from './go-stable-sort';
import { isJsonObject } from './json-body';
import { PatchError, goTypeName, goValue, mergepatchErrors } from './patch-errors';
import type { PatchSchema } from './patch-meta';
import { directiveMarker, has, stripDirectiveKeys } from './patch-values';

type Json = unknown;
type JsonMap = Record<string, Json>;

export type MergeMapFn = (original: JsonMap | null, patch: JsonMap, schema: PatchSchema) => JsonMap;

/** reflect.TypeOf of every element must agree; lists of lists are refused (kube's sliceElementType) */
export function sliceElementType(...lists: Json[][]): string {
  let prev: string | undefined;
  for (const list of lists) {
    for (const v of list) {
      const t = goTypeName(v);
      if (v === null) throw new PatchError('invalid list element: null');
      if (prev === undefined) {
        prev = t;
        if (t === '[]interface {}') throw mergepatchErrors.noListOfLists();
      } else if (prev !== t) {
        throw new PatchError(`list element types are not identical: [${lists.map((l) => goValue(l)).join(' ')}]`);
      }
    }
  }
  if (prev === undefined) throw new PatchError('no elements in any of the given slices');
  return prev;
}

export function isMapType(t: string): boolean {
  return t === 'map[string]interface {}';
}

/** the value identifying an item: its merge key value for maps, the item itself for primitives */
function identity(item: Json, mergeKey: string, maps: boolean): Json {
  if (!maps) return item;
  return isJsonObject(item) ? item[mergeKey] : undefined;
}

function indexIn(list: Json[], item: Json, mergeKey: string, maps: boolean): number {
  const id = identity(item, mergeKey, maps);
  return list.findIndex((v) => identity(v, mergeKey, maps) === id);
}

export function findByMergeKey(list: Json[], mergeKey: string, value: Json): number {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isJsonObject(v)) throw new PatchError(`value for key ${i} is not a map`);
    if (has(v, mergeKey) && v[mergeKey] === value) return i;
  }
  return -1;
}

function requireMergeKey(items: Json[], mergeKey: string): void {
  for (const item of items) {
    if (!isJsonObject(item)) throw mergepatchErrors.badArgType('map', item);
    if (!has(item, mergeKey)) throw mergepatchErrors.noMergeKey(item, mergeKey);
  }
}

/** sorts `items` by their position in `order` (kube's normalizeSliceOrder); `$patch: delete` items go last */
function sortByOrder(items: Json[], order: Json[], mergeKey: string, maps: boolean): Json[] {
  let keep = items;
  let deletions: Json[] = [];
  if (maps) {
    requireMergeKey(items, mergeKey);
    requireMergeKey(order, mergeKey);
    keep = items.filter((v) => (v as JsonMap)[directiveMarker] !== 'delete');
    deletions = items.filter((v) => (v as JsonMap)[directiveMarker] === 'delete');
  }
  goSliceStable(keep, (x, y) => {
    const ix = indexIn(order, x, mergeKey, maps);
    if (ix < 0) return true;
    const iy = indexIn(order, y, mergeKey, maps);
    if (iy < 0) return true;
    return ix < iy;
  });
  return [...keep, ...deletions];
}

/**
 * kube's normalizeElementOrder: patch items in patch order, server-only items in server order, then
 * each server-only item placed before the first patch item that comes after it on the server.
 */
export function orderMerged(patchItems: Json[], serverOnly: Json[], patchOrder: Json[], serverOrder: Json[], mergeKey: string, maps: boolean): Json[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, maps);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, maps);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], mergeKey, maps);
      const ri = indexIn(serverOrder, right[j], mergeKey, maps);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** splits `items` into those present in `by` (by value, or by merge key for maps) and the rest */
export function partition(items: Json[], by: Json[], mergeKey: string): [Json[], Json[]] {
  const present: Json[] = [];
  const absent: Json[] = [];
  for (const item of items) {
    let found: boolean;
    if (mergeKey === '') {
      if (isJsonObject(item) || Array.isArray(item)) throw new PatchError(`hash of unhashable type ${goTypeName(item)}`);
      found = by.includes(item);
    } else {
      if (!isJsonObject(item)) throw mergepatchErrors.badArgType('map', item);
      if (!has(item, mergeKey)) throw mergepatchErrors.noMergeKey(item, mergeKey);
      found = findByMergeKey(by, mergeKey, item[mergeKey]) >= 0;
    }
    (found ? present : absent).push(item);
  }
  return [present, absent];
}

/** primitives: set union keeping the first occurrence */
function dedupe(items: Json[]): Json[] {
  const out: Json[] = [];
  for (const v of items) if (!out.includes(v)) out.push(v);
  return out;
}

/**
 * kube's mergeSlice for a list with strategy merge (or a `$deleteFromPrimitiveList` list):
 * `schema` describes the items, `merge` merges two items that share a merge key.
 */
export function mergeList(original: Json[], patch: Json[], schema: PatchSchema, mergeKey: string, isDeleteList: boolean, merge: MergeMapFn): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const elementType = sliceElementType(original, patch);
  const maps = isMapType(elementType);
  let merged: Json[];
  let base = original;
  let patchItems = patch;
  if (!maps) {
    if (isDeleteList) return original.filter((v) => !patch.includes(v));
    merged = dedupe([...original, ...patch]);
  } else {
    if (mergeKey === '') throw new PatchError(`cannot merge lists without merge key for ${schema.name}`);
    [base, patchItems] = applySpecialItems(original, patch, mergeKey);
    merged = [...base];
    for (const item of patchItems) {
      const m = item as JsonMap;
      if (!has(m, mergeKey)) throw mergepatchErrors.noMergeKey(m, mergeKey);
      const at = findByMergeKey(merged, mergeKey, m[mergeKey]);
      if (at >= 0) merged[at] = merge(merged[at] as JsonMap, m, schema);
      else merged.push(stripDirectiveKeys(m));
    }
    // the server order is the live list after deletions, holding the merged items
    base = merged.slice(0, base.length);
  }
  const [inPatch, serverOnly] = partition(merged, patchItems, mergeKey);
  return orderMerged(inPatch, serverOnly, patchItems, base, mergeKey, maps);
}

/** `$patch` items of a list of maps: delete by merge key, replace the whole list, refuse merge */
function applySpecialItems(original: Json[], patch: Json[], mergeKey: string): [Json[], Json[]] {
  let base = original;
  const plain: Json[] = [];
  let replace = false;
  for (const v of patch) {
    const item = v as JsonMap;
    if (!has(item, directiveMarker)) {
      plain.push(item);
      continue;
    }
    const directive = item[directiveMarker];
    if (directive === 'delete') {
      if (!has(item, mergeKey)) throw mergepatchErrors.noMergeKey(item, mergeKey);
      // every item with that key goes, duplicates included
      base = base.filter((o) => {
        if (!isJsonObject(o)) throw new PatchError('value for key 0 is not a map');
        return !(has(o, mergeKey) && o[mergeKey] === item[mergeKey]);
      });
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch');
    } else {
      throw mergepatchErrors.badPatchType(directive, item);
    }
  }
  return replace ? [plain, []] : [base, plain];
}

