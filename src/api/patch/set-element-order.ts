/**
 * `$setElementOrder/<list>` (kube's mergePatchIntoOriginal): kubectl apply sends the full order of
 * a merged list beside the changed items. The list is merged as usual, then ordered: items named in
 * the order list follow it, server-only items keep their live positions relative to them.
 */
import { isJsonObject } from './json-body';
import { PatchError, goValue, mergepatchErrors } from './patch-errors';
import type { PatchSchema } from './patch-meta';
import { directiveTarget, has, patchValueAsIs, setElementOrderPrefix as prefix } from './patch-values';
import { type MergeMapFn, isMapType, mergeList, orderMerged, partition, sliceElementType } from './strategic-lists';

type Json = unknown;
type JsonMap = Record<string, Json>;

/** kube's validatePatchWithSetOrderList: the patch's items must appear in the order list, in that order */
function checkPatchFollowsOrder(patchList: Json[], order: Json[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  let items = patchList;
  if (mergeKey !== '') {
    for (const v of items) if (!isJsonObject(v)) throw mergepatchErrors.badArgType('map', v);
    items = items.filter((v) => (v as JsonMap).$patch !== 'delete');
  }
  const same = (a: Json, b: Json): boolean => {
    if (mergeKey === '') return a === b;
    if (!isJsonObject(a)) throw mergepatchErrors.badArgType('map', a);
    if (!isJsonObject(b)) throw mergepatchErrors.badArgType('map', b);
    if (!has(a, mergeKey)) throw mergepatchErrors.noMergeKey(a, mergeKey);
    if (!has(b, mergeKey)) throw mergepatchErrors.noMergeKey(b, mergeKey);
    return a[mergeKey] === b[mergeKey];
  };
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p];
    if (isJsonObject(item) && has(item, '$patch')) {
      p++;
      continue;
    }
    if (same(items[p], order[o])) p++;
    o++;
  }
  if (p < items.length && o >= order.length) {
    throw new PatchError(`The order in patch list:\n${goValue(patchList)}\n doesn't match ${prefix} list:\n${goValue(order)}\n`);
  }
}

/** handles every `$setElementOrder/<list>` key of `patch`, removing it and its list from the patch */
export function applySetElementOrder(original: JsonMap, patch: JsonMap, schema: PatchSchema, merge: MergeMapFn): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(prefix)) continue;
    const order = patch[key];
    delete patch[key];
    if (!Array.isArray(order)) throw mergepatchErrors.badArgType('slice', order);
    const listKey = directiveTarget(key, prefix);
    const inOriginal = has(original, listKey);
    const inPatch = has(patch, listKey);
    const originalList = inOriginal ? original[listKey] : undefined;
    const patchList = inPatch ? patch[listKey] : undefined;
    if (inOriginal && !Array.isArray(originalList)) throw mergepatchErrors.badArgType('slice', originalList);
    if (inPatch && !Array.isArray(patchList)) throw mergepatchErrors.badArgType('slice', patchList);
    const originalItems = (originalList ?? []) as Json[];
    const patchItems = (patchList ?? []) as Json[];

    const { schema: itemSchema, meta } = schema.forList(listKey);
    checkPatchFollowsOrder(patchItems, order, meta.mergeKey);

    let merged: Json[];
    if (inOriginal && !inPatch) merged = originalItems;
    else if (!inOriginal && inPatch) merged = patchValueAsIs(patchItems) as Json[];
    else if (inOriginal && inPatch) {
      merged = meta.strategy === 'merge' ? mergeList(originalItems, patchItems, itemSchema, meta.mergeKey, false, merge) : patchItems;
    } else continue;

    const [named, serverOnly] = partition(merged, order, meta.mergeKey);
    const maps = isMapType(sliceElementType(originalItems, patchItems));
    original[listKey] = orderMerged(named, serverOnly, order, originalItems, meta.mergeKey, maps);
    delete patch[listKey];
  }
}
