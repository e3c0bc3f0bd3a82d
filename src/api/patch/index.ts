/**
 * The three non-apply PATCH body types kube accepts, applied to an object as read from storage.
 * Inputs are never mutated; every failure is an ApiError with kube's code, reason and message.
 */
import { errors } from '../errors';
import type { KubeObject } from '../kind';
import { applyJsonPatch } from './json-patch';
import { applyMergePatch } from './merge-patch';
import { mergepatchErrors } from './patch-errors';
import { type StrategicPatchSchema, applyStrategicMergePatch } from './strategic-merge-patch';

export type PatchType = 'json' | 'merge' | 'strategic';

/** Content-Type of a PATCH request -> patch type (apply patches are not handled here) */
export const patchContentTypes: Readonly<Record<string, PatchType>> = Object.freeze({
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
});

/**
 * Applies a patch body of the given type. `schema` is required for 'strategic' (kinds without
 * one, like kube's custom resources, refuse strategic merge patch with a 400).
 */
export function applyPatch(type: PatchType, doc: KubeObject, patchText: string, schema?: StrategicPatchSchema): KubeObject {
  switch (type) {
    case 'json':
      return applyJsonPatch(doc, patchText);
    case 'merge':
      return applyMergePatch(doc, patchText);
    case 'strategic':
      if (!schema) throw errors.badRequest(mergepatchErrors.unsupportedStrategicMergePatchFormat().message);
      return applyStrategicMergePatch(doc, patchText, schema);
  }
}

export { applyJsonPatch, applyMergePatch, applyStrategicMergePatch };
export type { StrategicPatchSchema };
