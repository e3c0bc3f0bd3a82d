/**
 * JSON patch (RFC 6902, including `test`) applied with fast-json-patch, with the answers of kube's
 * patch handler: a body that is not a JSON array of objects is a 400 with Go's decoding message;
 * more than 10000 operations a 413; a patch that does not apply (failed test, missing path, unknown
 * op) a 422 Invalid whose message, as in kube, does not say why.
 */
import { applyPatch, type Operation } from 'fast-json-patch';
import { ApiError, errors } from '../errors';
import type { KubeObject } from '../kind';
import { JsonSyntaxError, isJsonObject, jsonTypeWord, parseJsonBody } from './json-body';
import { maxJsonPatchOperations, unprocessable } from './patch-errors';

/** parses and checks the body: a JSON array of objects (null is an empty patch, as in kube) */
export function parseJsonPatch(patchText: string): Operation[] {
  let ops: unknown;
  try {
    ops = parseJsonBody(patchText);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw errors.badRequest(err.message);
    throw err;
  }
  if (ops === null) return [];
  if (!Array.isArray(ops)) throw errors.badRequest(`json: cannot unmarshal ${jsonTypeWord(ops)} into Go value of type jsonpatch.Patch`);
  for (const op of ops) {
    if (op !== null && !isJsonObject(op)) throw errors.badRequest(`json: cannot unmarshal ${jsonTypeWord(op)} into Go value of type jsonpatch.Operation`);
  }
  if (ops.length > maxJsonPatchOperations) {
    throw new ApiError(413, 'RequestEntityTooLarge', `The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${ops.length}`);
  }
  return ops as Operation[];
}

/** applies a JSON patch to `doc` (never mutated) */
export function applyJsonPatch(doc: KubeObject, patchText: string): KubeObject {
  const ops = parseJsonPatch(patchText);
  if (ops.length === 0) return structuredClone(doc);
  let result: unknown;
  try {
    // a null operation has no kind: kube fails it like an unknown op
    if (ops.some((op) => op === null)) throw new Error('Unexpected kind: unknown');
    result = applyPatch(doc, ops, true, false).newDocument;
  } catch {
    throw unprocessable();
  }
  // a patch may replace the whole document; what is not an object cannot be decoded into one
  if (!isJsonObject(result)) throw unprocessable();
  return result as KubeObject;
}
