/**
 * Strategic merge patch, as kube-apiserver applies it (k8s.io/apimachinery/pkg/util/strategicpatch,
 * StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls): a JSON merge patch in
 * which lists whose schema says x-kubernetes-patch-strategy: merge are merged item by item (by
 * x-kubernetes-patch-merge-key, or as sets for primitives), plus the directives `$patch`,
 * `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>`.
 */
import { errors } from '../errors';
import type { KubeObject } from '../kind';
import type { Definitions } from '../../schema/types';
import { JsonSyntaxError, isJsonObject, jsonTypeWord, parseJsonBody } from './json-body';
import { mergepatchErrors, toApiError } from './patch-errors';
import { deleteFromPrimitiveListPrefix, directiveMarker, directiveTarget, has, kindOf, patchValueAsIs, retainKeysDirective, setElementOrderPrefix } from './patch-values';
import { PatchSchema } from './patch-meta';
import { mergeList } from './strategic-lists';
import { applySetElementOrder } from './set-element-order';

type Json = unknown;
type JsonMap = Record<string, Json>;

export interface StrategicPatchSchema {
  definitions: Definitions;
  /** the definition of the patched object, e.g. `io.k8s.api.apps.v1.Deployment` */
  root: string;
}

/** `$retainKeys`: keys of the original missing from the list are cleared; the patch may only set listed keys */
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!has(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw mergepatchErrors.badPatchFormatForRetainKeys();
  const keep = new Set(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue;
    if (!keep.has(k)) throw mergepatchErrors.badPatchFormatForRetainKeys();
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

/** kube's mergeMap; `original` and `patch` are private copies and are consumed */
export function mergeMap(original: JsonMap | null, patch: JsonMap, schema: PatchSchema): JsonMap {
  if (has(patch, directiveMarker)) {
    const directive = patch[directiveMarker];
    if (directive === 'replace') {
      // the map is the patch as sent, minus the marker
      delete patch[directiveMarker];
      return patch;
    }
    if (directive === 'delete') return {};
    throw mergepatchErrors.badPatchType(directive, patch);
  }
  const target: JsonMap = original ?? {};
  applyRetainKeys(target, patch);
  // ordered lists first: they consume their list from the patch
  applySetElementOrder(target, patch, schema, mergeMap);

  for (const [rawKey, patchValue] of Object.entries(patch)) {
    if (rawKey.startsWith(setElementOrderPrefix)) continue;
    let key = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(deleteFromPrimitiveListPrefix)) {
      key = directiveTarget(rawKey, deleteFromPrimitiveListPrefix);
      isDeleteList = true;
    }
    if (patchValue === null) {
      // null deletes; a null never reaches the result
      delete target[key];
      continue;
    }
    const present = has(target, key);
    if (!present || kindOf(target[key]) !== kindOf(patchValue)) {
      if (isDeleteList) continue;
      const value = patchValueAsIs(patchValue);
      if (value === undefined) delete target[key];
      else target[key] = value;
      continue;
    }
    const current = target[key];
    if (kindOf(current) === 'map') {
      const { schema: sub, meta } = schema.forField(key);
      target[key] = meta.strategy === 'replace' ? patchValue : mergeMap(current as JsonMap, patchValue as JsonMap, sub);
    } else if (kindOf(current) === 'list') {
      const { schema: sub, meta } = schema.forList(key);
      target[key] =
        meta.strategy === 'merge' || isDeleteList
          ? mergeList(current as Json[], patchValue as Json[], sub, meta.mergeKey, isDeleteList, mergeMap)
          : patchValue;
    } else {
      target[key] = patchValue;
    }
  }
  return target;
}

/** parses a strategic merge patch body: a JSON object, or null for no change */
export function parseStrategicPatch(patchText: string): JsonMap {
  let parsed: Json;
  try {
    parsed = parseJsonBody(patchText);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw errors.badRequest(err.message);
    throw err;
  }
  if (parsed === null) return {};
  if (!isJsonObject(parsed)) throw errors.badRequest(`json: cannot unmarshal ${jsonTypeWord(parsed)} into Go value of type map[string]interface {}`);
  return parsed;
}

/**
 * Applies a strategic merge patch to `doc` (never mutated) with list semantics from `schema`.
 * Throws ApiError with kube's code and reason: 400 for a malformed body or directive, 422 for
 * lists of lists, 500 (reason empty) for the merge errors kube passes through untyped.
 */
export function applyStrategicMergePatch(doc: KubeObject, patchText: string, schema: StrategicPatchSchema): KubeObject {
  const patch = parseStrategicPatch(patchText);
  try {
    const original = structuredClone(doc) as JsonMap;
    return mergeMap(original, patch, PatchSchema.forDefinition(schema.definitions, schema.root)) as KubeObject;
  } catch (err) {
    throw toApiError(err);
  }
}
