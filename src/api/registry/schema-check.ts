/**
 * The schema check of a written object against the kind's OpenAPI definition, as kube's decoder
 * does it: wrong JSON types are 400 BadRequest (`Deployment in version "v1" cannot be handled as a
 * Deployment: json: cannot unmarshal ...`); unknown fields follow fieldValidation: Strict -> 400
 * `strict decoding error: unknown field "spec.x"` (after the body's duplicate fields, which the
 * HTTP codecs find: WriteOptions.strictDecodingErrors), Warn (the default) -> warnings, Ignore -> nothing;
 * with Warn and Ignore the unknown fields are dropped, as kube's typed decoding never keeps them.
 * Null-valued fields are dropped first (see schema/nulls.ts). Skipped when the registry has no definitions. Required/enum problems are left to the
 * kind's strategy, which reports them as kube's validation does (422).
 */
import { errors } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { WriteOptions } from './types';
import type { RegistryContext } from './context';
import { kindOptions } from './context';
import { createSchemaValidator } from '../../schema/validator';
import { decodeNulls } from '../../schema/nulls';
import type { SchemaValidator } from '../../schema/validator';
import type { Definitions } from '../../schema/types';

const validators = new WeakMap<Definitions, SchemaValidator>();

function validatorFor(defs: Definitions): SchemaValidator {
  let v = validators.get(defs);
  if (!v) validators.set(defs, (v = createSchemaValidator(defs)));
  return v;
}

/** type-check obj against the definition named schemaName; returns warnings for the response */
export function checkSchemaOf(
  ctx: RegistryContext,
  schemaName: string,
  label: { kind: string; version: string },
  obj: KubeObject,
  fieldValidation: WriteOptions['fieldValidation'],
  decodeErrors: string[] = [],
): string[] {
  if (!ctx.definitions || !ctx.definitions[schemaName]) return [];
  // kube decodes a body into its Go type: null-valued fields are unset from here on (defaulting,
  // validation, managed fields, storage); free-form fields keep theirs
  decodeNulls(ctx.definitions, schemaName, obj);
  const validator = validatorFor(ctx.definitions);
  // wrong JSON types and malformed formats (int32/int64 out of range, bad base64, timestamps,
  // quantities) both fail kube's decoding, before validation: 400, not 422
  const typeIssues = validator.validate(schemaName, obj).filter((i) => i.type === 'type' || i.type === 'format');
  if (typeIssues.length) {
    throw errors.badRequest(`${label.kind} in version "${label.version}" cannot be handled as a ${label.kind}: ${typeIssues[0].message}`);
  }
  const unknown = validator.unknownFields(schemaName, obj);
  // kube's strict decoder reports the body's duplicate fields and the unknown ones in one list
  const texts = [...decodeErrors, ...unknown.map((f) => `unknown field "${f}"`)];
  if (!texts.length) return [];
  if (fieldValidation === 'Strict') throw errors.badRequest(`strict decoding error: ${texts.join(', ')}`);
  for (const path of unknown) prune(obj, path);
  return fieldValidation === 'Ignore' ? [] : texts;
}

/** delete the field at a kube-style path (`spec.template.spec.containers[0].foo`) */
function prune(obj: unknown, path: string): void {
  const tokens = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));
  let node: unknown = obj;
  for (let i = 0; i < tokens.length - 1; i++) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string | number, unknown>)[tokens[i]];
  }
  const last = tokens[tokens.length - 1];
  if (node !== null && typeof node === 'object' && !Array.isArray(node) && typeof last === 'string') {
    delete (node as Record<string, unknown>)[last];
  }
}

export function checkSchema(
  ctx: RegistryContext,
  kind: KindDefinition,
  obj: KubeObject,
  fieldValidation?: WriteOptions['fieldValidation'],
  decodeErrors?: string[],
): string[] {
  // kinds with a schema of their own (custom resources) check themselves
  const own = kindOptions(kind).checkSchema;
  if (own) return own(obj, fieldValidation, decodeErrors ?? []);
  return checkSchemaOf(ctx, kind.schemaName, { kind: kind.kind, version: kind.version }, obj, fieldValidation, decodeErrors);
}
