/**
 * JSON merge patch (RFC 7386) as kube applies it with evanphx/json-patch's MergePatch: maps merge
 * key by key, null deletes, anything else replaces; nulls inside newly placed maps are dropped.
 */
import { ApiError, errors } from '../errors';
import type { KubeObject } from '../kind';
import { JsonSyntaxError, isJsonObject, parseJsonBody } from './json-body';

type Json = unknown;
type JsonMap = Record<string, Json>;

/** drops null members of maps, at any depth (list elements that are null stay, as in json-patch) */
function pruneNulls(value: Json): Json {
  if (Array.isArray(value)) return value.map((v) => (v === null ? v : pruneNulls(v)));
  if (!isJsonObject(value)) return value;
  const out: JsonMap = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = pruneNulls(v);
  return out;
}

function mergeValue(current: Json, patch: Json): Json {
  if (!isJsonObject(current)) return pruneNulls(patch);
  if (!isJsonObject(patch)) return patch;
  mergeInto(current, patch);
  return current;
}

function mergeInto(doc: JsonMap, patch: JsonMap): void {
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete doc[k];
    else if (!Object.prototype.hasOwnProperty.call(doc, k) || doc[k] === null) doc[k] = pruneNulls(v);
    else doc[k] = mergeValue(doc[k], v);
  }
}

const badPatch = 'Invalid JSON Patch';

/**
 * Applies a merge patch to `doc` (never mutated). A body that is not JSON, or is null or a
 * scalar, is kube's 400 `Invalid JSON Patch`; an array replaces the whole object, which kube then
 * fails to decode: a 422 Invalid on field `patch`.
 */
export function applyMergePatch(doc: KubeObject, patchText: string): KubeObject {
  let patch: Json;
  try {
    patch = parseJsonBody(patchText);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw errors.badRequest(badPatch);
    throw err;
  }
  if (Array.isArray(patch)) throw undecodable(JSON.stringify(pruneNulls(patch)));
  if (!isJsonObject(patch)) throw errors.badRequest(badPatch);
  try {
    const result = structuredClone(doc) as JsonMap;
    mergeInto(result, patch);
    return result as KubeObject;
  } catch (err) {
    if (err instanceof RangeError) throw errors.badRequest(badPatch);
    throw err;
  }
}

/** kube's answer when the patched document is not an object: the codec cannot read its kind */
function undecodable(patched: string): ApiError {
  const reason =
    'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
  const message = `Invalid value: ${JSON.stringify(patched)}: ${reason}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, { causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] });
}
