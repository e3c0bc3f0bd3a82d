/**
 * One custom resource version's schema at work, as kube's CR handler uses it: the OpenAPI schema
 * (validation), its structural form with pruned defaults (pruning, defaulting, embedded resources,
 * list types, apply), and the coercion kube applies when it decodes a request body and when it
 * reads an object from storage (unstructuredSchemaCoercer).
 */
import { ApiError, errors } from '../errors';
import type { KubeObject } from '../kind';
import type { WriteOptions } from '../registry/types';
import type { JSONSchemaProps } from './types';
import { isObject } from './types';
import type { Structural } from './schema/structural';
import { newStructural, StructuralError } from './schema/structural';
import { prune } from './schema/pruning';
import { pruneDefaults, pruneNonNullableNulls } from './schema/defaulting';
import { checkMetadata, coerceEmbedded, coerceMetadata } from './schema/objectmeta';

export interface VersionSchema {
  /** the version's OpenAPI v3 schema; undefined = none (preserveUnknownFields CRDs) */
  openAPI?: JSONSchemaProps;
  /** its structural form, defaults pruned; undefined = none or not structural */
  structural?: Structural;
  /** spec.preserveUnknownFields of the CRD: nothing is pruned */
  preserveUnknownFields: boolean;
}

export function versionSchema(openAPI: JSONSchemaProps | undefined, preserveUnknownFields: boolean): VersionSchema {
  let structural: Structural | undefined;
  if (openAPI) {
    try {
      structural = newStructural(openAPI);
      pruneDefaults(structural);
    } catch (err) {
      if (!(err instanceof StructuralError)) throw err;
      // only v1beta1 CRDs with preserveUnknownFields may have such schemas; they are not pruned
      structural = undefined;
    }
  }
  return { openAPI, structural, preserveUnknownFields };
}

/**
 * kube's unstructuredSchemaCoercer on an object of this version (in place): unknown fields pruned
 * (unless the CRD preserves them), non-nullable nulls without default dropped, embedded resources'
 * metadata coerced, the root metadata read as an ObjectMeta. Returns the pruned paths and unknown
 * metadata paths; the first hard problem (wrong metadata types) when not dropping invalid fields.
 */
export function coerceObject(obj: KubeObject, vs: VersionSchema, dropInvalid: boolean): { pruned: string[]; error?: string } {
  const pruned: string[] = [];
  if (!vs.preserveUnknownFields) {
    pruned.push(...prune(obj, vs.structural, true));
    pruneNonNullableNulls(obj, vs.structural);
  }
  const embedded = coerceEmbedded(obj, vs.structural, dropInvalid);
  pruned.push(...embedded.unknown);
  if (embedded.error) return { pruned, error: `${embedded.error.field}: ${embedded.error.message}` };
  if (obj.metadata !== undefined) {
    const check = checkMetadata(obj.metadata);
    if (check.typeError && !dropInvalid) return { pruned, error: check.typeError };
    if (isObject(obj.metadata)) {
      pruned.push(...check.unknown.filter((p) => !p.includes('.') && !p.includes('[')).map((p) => `metadata.${p}`));
      coerceMetadata(obj.metadata as Record<string, unknown>, dropInvalid);
    } else if (dropInvalid) delete obj.metadata;
  }
  return { pruned };
}

/**
 * the decode-time check of a written object (RegistryKindOptions.checkSchema): coercion as kube's
 * request decoder does it, then kube 1.25+'s fieldValidation over what was pruned (Strict: 400,
 * Warn: warnings, Ignore: nothing; the fields are gone either way)
 */
export function checkWritten(obj: KubeObject, vs: VersionSchema, label: { kind: string; version: string }, fieldValidation: WriteOptions['fieldValidation'], decodeErrors: string[]): string[] {
  const { pruned, error } = coerceObject(obj, vs, false);
  if (error) throw errors.badRequest(`${label.kind} in version "${label.version}" cannot be handled as a ${label.kind}: ${error}`);
  const texts = [...decodeErrors, ...pruned.map((p) => `unknown field "${p}"`)];
  if (!texts.length) return [];
  if (fieldValidation === 'Strict') throw new ApiError(400, 'BadRequest', `strict decoding error: ${texts.join(', ')}`);
  return fieldValidation === 'Ignore' ? [] : texts;
}
