/**
 * kube's validation of a CRD's OpenAPI v3 schema (validateCustomResourceDefinitionValidation and
 * ValidateCustomResourceDefinitionOpenAPISchema): the JSON schema features kube refuses, the
 * x-kubernetes-* rules, what the root may hold with a status subresource, and, when structural
 * schemas are required, kube's structural rules and the defaults (valid, and already pruned).
 * Field paths name kube's internal form: `spec.validation.openAPIV3Schema.properties[spec].type`.
 */
import type { StatusCause } from '../errors';
import { forbidden, invalid, notSupported, required } from '../validation/field-errors';
import { jsonEqual } from '../json-value';
import type { JSONSchemaProps, Validation } from './types';
import { isObject } from './types';
import { newStructural, StructuralError } from './schema/structural';
import { validateStructural } from './schema/structural-validation';
import { prune } from './schema/pruning';
import { validateValue } from './schema/value-validator';
import { coerceEmbedded, validateEmbedded } from './schema/objectmeta';
import { child, index, key } from './schema/field-path';

export interface SchemaValidationOptions {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  requireValidPropertyType: boolean;
  requireStructuralSchema: boolean;
  requirePrunedDefaults: boolean;
  requireAtomicSetType: boolean;
  requireMapListKeysMapSetValidation: boolean;
}

interface NodeRules {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

/** JSONSchemaProps' JSON keys in Go field order, and whether each may be set at the root with a status subresource */
const ROOT_FIELDS: Array<[string, string, boolean]> = [
  ['id', 'ID', false],
  ['$schema', 'Schema', false],
  ['$ref', 'Ref', false],
  ['description', 'Description', true],
  ['type', 'Type', true],
  ['format', 'Format', true],
  ['title', 'Title', true],
  ['default', 'Default', false],
  ['maximum', 'Maximum', true],
  ['exclusiveMaximum', 'ExclusiveMaximum', true],
  ['minimum', 'Minimum', true],
  ['exclusiveMinimum', 'ExclusiveMinimum', true],
  ['maxLength', 'MaxLength', true],
  ['minLength', 'MinLength', true],
  ['pattern', 'Pattern', true],
  ['maxItems', 'MaxItems', true],
  ['minItems', 'MinItems', true],
  ['uniqueItems', 'UniqueItems', true],
  ['multipleOf', 'MultipleOf', true],
  ['enum', 'Enum', false],
  ['maxProperties', 'MaxProperties', false],
  ['minProperties', 'MinProperties', false],
  ['required', 'Required', true],
  ['items', 'Items', true],
  ['allOf', 'AllOf', false],
  ['oneOf', 'OneOf', false],
  ['anyOf', 'AnyOf', false],
  ['not', 'Not', false],
  ['properties', 'Properties', true],
  ['additionalProperties', 'AdditionalProperties', false],
  ['patternProperties', 'PatternProperties', false],
  ['dependencies', 'Dependencies', false],
  ['additionalItems', 'AdditionalItems', false],
  ['definitions', 'Definitions', false],
  ['externalDocs', 'ExternalDocs', true],
  ['example', 'Example', true],
  ['nullable', 'Nullable', false],
  ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields', true],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource', false],
  ['x-kubernetes-int-or-string', 'XIntOrString', false],
  ['x-kubernetes-list-map-keys', 'XListMapKeys', false],
  ['x-kubernetes-list-type', 'XListType', false],
  ['x-kubernetes-map-type', 'XMapType', false],
  // CEL rules at the root are how status-subresource CRDs validate today (kube 1.25+)
  ['x-kubernetes-validations', 'XValidations', true],
];

/** Go's zero value test of a JSONSchemaProps field as JSON: unset, '', false, 0 of a value field */
function isZero(key: string, v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (key === 'x-kubernetes-preserve-unknown-fields' || key === 'x-kubernetes-list-type' || key === 'x-kubernetes-map-type' || key === '$ref') return false;
  return v === '' || v === false;
}

/** validateCustomResourceDefinitionValidation for the schema at `path` (`spec.validation` or `spec.versions[i].schema`) */
export function validateCrdValidation(validation: Validation | undefined, statusEnabled: boolean, opts: SchemaValidationOptions, path: string): StatusCause[] {
  if (!isObject(validation)) return [];
  const schema = validation.openAPIV3Schema;
  if (!isObject(schema)) return [];
  const out: StatusCause[] = [];
  const root = child(path, 'openAPIV3Schema');
  if (statusEnabled) {
    for (const [k, goName, allowed] of ROOT_FIELDS) {
      const v = (schema as Record<string, unknown>)[k];
      if (isZero(k, v)) continue;
      if (goName === 'Type') {
        if (v !== 'object') {
          out.push(invalid(child(path, 'openAPIV3Schema.type'), v, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!allowed) {
        const list = ROOT_FIELDS.filter(([, , a]) => a).map(([, n]) => n).filter((n) => n !== 'XValidations');
        out.push(invalid(root, schema, `only [${list.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (schema.nullable === true) out.push(forbidden(child(path, 'openAPIV3Schema.nullable'), 'nullable cannot be true at the root'));
  out.push(...validateOpenApiSchema(schema, root, { allowDefaults: opts.allowDefaults, disallowDefaultsReason: opts.disallowDefaultsReason, insideResourceMeta: false }, true, opts));
  if (opts.requireStructuralSchema) {
    let structural;
    try {
      structural = newStructural(schema);
    } catch (err) {
      if (!(err instanceof StructuralError)) throw err;
      if (out.length === 0) out.push(invalid(root, '', err.message));
    }
    if (structural) {
      const errs = validateStructural(root, structural);
      if (errs.length) out.push(...errs);
      else out.push(...validateDefaults(schema, root, opts.requirePrunedDefaults, true, false));
    }
  }
  return out;
}

function nodeChecks(s: JSONSchemaProps, path: string, rules: NodeRules, opts: SchemaValidationOptions): StatusCause[] {
  const out: StatusCause[] = [];
  if (opts.requireValidPropertyType && typeof s.type === 'string' && s.type && !OPENAPI_TYPES.includes(s.type)) out.push(notSupported(child(path, 'type'), s.type, OPENAPI_TYPES));
  if (s.default !== undefined && s.default !== null && !rules.allowDefaults) {
    out.push(forbidden(child(path, 'default'), `must not be set${rules.disallowDefaultsReason ? ` ${rules.disallowDefaultsReason}` : ''}`));
  }
  if (s.id) out.push(forbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined && s.additionalItems !== null) out.push(forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  if (isObject(s.patternProperties) && Object.keys(s.patternProperties).length) out.push(forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  if (isObject(s.definitions) && Object.keys(s.definitions).length) out.push(forbidden(child(path, 'definitions'), 'definitions is not supported'));
  if (s.dependencies !== undefined && s.dependencies !== null) out.push(forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  if (s.$ref !== undefined && s.$ref !== null) out.push(forbidden(child(path, '$ref'), '$ref is not supported'));
  if (s.type === 'null') out.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length) out.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  if (rules.insideResourceMeta && s['x-kubernetes-embedded-resource']) out.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  return out;
}

function validateOpenApiSchema(s: JSONSchemaProps | undefined, path: string, rules: NodeRules, isRoot: boolean, opts: SchemaValidationOptions): StatusCause[] {
  if (!isObject(s)) return [];
  const out = nodeChecks(s, path, rules, opts);
  if (s.uniqueItems === true) out.push(forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const props = isObject(s.properties) ? (s.properties as Record<string, JSONSchemaProps>) : {};
  const hasProps = Object.keys(props).length > 0;
  const ap = s.additionalProperties;
  if (ap !== undefined && ap !== null) {
    if (hasProps && (ap === false || isObject(ap))) out.push(forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    const sub = rules.insideResourceMeta ? { ...rules, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : rules;
    if (isObject(ap)) out.push(...validateOpenApiSchema(ap as JSONSchemaProps, child(path, 'additionalProperties'), sub, false, opts));
  }
  for (const [name, ps] of Object.entries(props)) {
    let sub = rules;
    if ((isRoot || s['x-kubernetes-embedded-resource']) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${name}` };
    }
    out.push(...validateOpenApiSchema(ps, key(child(path, 'properties'), name), sub, false, opts));
  }
  if (isObject(s.not)) out.push(...validateOpenApiSchema(s.not as JSONSchemaProps, child(path, 'not'), rules, false, opts));
  for (const j of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[j];
    if (Array.isArray(list)) list.forEach((x, i) => out.push(...validateOpenApiSchema(x, index(child(path, j), i), rules, false, opts)));
  }
  if (isObject(s.definitions)) for (const [d, x] of Object.entries(s.definitions)) out.push(...validateOpenApiSchema(x as JSONSchemaProps, key(child(path, 'definitions'), d), rules, false, opts));
  const items = s.items;
  if (isObject(items)) out.push(...validateOpenApiSchema(items as JSONSchemaProps, child(path, 'items'), rules, false, opts));
  else if (Array.isArray(items)) items.forEach((x, i) => out.push(...validateOpenApiSchema(x, index(child(path, 'items'), i), rules, false, opts)));
  if (isObject(s.dependencies)) {
    for (const [d, x] of Object.entries(s.dependencies)) if (isObject(x)) out.push(...validateOpenApiSchema(x as JSONSchemaProps, key(child(path, 'dependencies'), d), rules, false, opts));
  }
  out.push(...extensionChecks(s, path, opts));
  return out;
}

function extensionChecks(s: JSONSchemaProps, path: string, opts: SchemaValidationOptions): StatusCause[] {
  const out: StatusCause[] = [];
  if (s['x-kubernetes-preserve-unknown-fields'] === false) out.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type) out.push(required(child(path, 'type'), 'must be object if x-kubernetes-map-type is specified'));
    else out.push(invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') out.push(notSupported(child(path, 'x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  const listType = s['x-kubernetes-list-type'];
  const itemSchema = isObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type) out.push(required(child(path, 'type'), 'must be array if x-kubernetes-list-type is specified'));
    else out.push(invalid(child(path, 'type'), s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (opts.requireAtomicSetType && listType === 'set' && itemSchema) {
    if (itemSchema.type === 'array' && itemSchema['x-kubernetes-list-type'] !== undefined && itemSchema['x-kubernetes-list-type'] !== 'atomic') {
      out.push(invalid(child(child(path, 'items'), 'x-kubernetes-list-type'), itemSchema['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (itemSchema.type === 'object' && itemSchema['x-kubernetes-map-type'] !== 'atomic') {
      out.push(invalid(child(child(path, 'items'), 'x-kubernetes-map-type'), itemSchema['x-kubernetes-list-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') out.push(notSupported(child(path, 'x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : [];
  if (keys.length > 0) {
    if (listType === undefined) out.push(required(child(path, 'x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') out.push(invalid(child(path, 'x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (keys.length === 0) out.push(required(child(path, 'x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined || s.items === null) out.push(required(child(path, 'items'), 'must have a schema if x-kubernetes-list-type is map'));
    if (s.items !== undefined && s.items !== null && !itemSchema) out.push(invalid(child(path, 'items'), s.items, 'must only have a single schema if x-kubernetes-list-type is map'));
    if (itemSchema && itemSchema.type !== 'object') out.push(invalid(child(child(path, 'items'), 'type'), itemSchema.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    if (itemSchema && itemSchema.type === 'object') {
      const seen = new Set<string>();
      const props = isObject(itemSchema.properties) ? itemSchema.properties : {};
      for (const k of keys) {
        const p = props[k];
        if (p) {
          if (p.type === 'array' || p.type === 'object') out.push(invalid(child(key(child(child(path, 'items'), 'properties'), k), 'type'), itemSchema.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        } else out.push(invalid(child(path, 'x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'));
        if (seen.has(k)) out.push(invalid(child(path, 'x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if (opts.requireMapListKeysMapSetValidation) out.push(...mapListKeysMapSet(s, path));
  return out;
}

/** kube's validateMapListKeysMapSet: set/map items are not nullable; map keys are required or defaulted, never nullable */
export function mapListKeysMapSet(s: JSONSchemaProps, path: string): StatusCause[] {
  const items = isObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
  const lt = s['x-kubernetes-list-type'];
  if (!items || (lt !== 'set' && lt !== 'map')) return [];
  const out: StatusCause[] = [];
  if (items.nullable) out.push(forbidden(child(child(path, 'items'), 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${lt}`));
  if (lt === 'map') {
    const req = new Set(Array.isArray(items.required) ? items.required : []);
    const props = isObject(items.properties) ? items.properties : {};
    for (const k of Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'] : []) {
      const p = props[k];
      if (!p) continue;
      const base = key(child(child(path, 'items'), 'properties'), k);
      if (!req.has(k) && (p.default === undefined || p.default === null)) {
        out.push(required(child(base, 'default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (p.nullable) out.push(forbidden(child(base, 'nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
    }
  }
  return out;
}

/**
 * kube's ValidateDefaults over the (structural) schema: each default is already pruned, is a valid
 * value of its schema, and in embedded resources gives valid metadata. Only fields reach here:
 * defaults inside top-level metadata were refused above.
 */
function validateDefaults(s: JSONSchemaProps, path: string, requirePruned: boolean, isResourceRoot: boolean, insideMeta: boolean): StatusCause[] {
  const out: StatusCause[] = [];
  const embedded = isResourceRoot || s['x-kubernetes-embedded-resource'] === true;
  const inMeta = embedded ? false : insideMeta;
  if (s.default !== undefined && s.default !== null && !inMeta) {
    const structural = newStructural(s);
    if (requirePruned) {
      const pruned = structuredClone(s.default);
      prune(pruned, structural, structural.embeddedResource);
      if (!jsonEqual(pruned, s.default)) out.push(invalid(child(path, 'default'), s.default, 'must not have unknown fields'));
    }
    const coerced = coerceEmbedded(structuredClone(s.default), structural, false, child(path, 'default'));
    if (coerced.error) out.push(coerced.error);
    else {
      const metaErrs = validateEmbedded(s.default, structural, child(path, 'default'));
      if (metaErrs.length) out.push(...metaErrs);
      else out.push(...validateValue(s, s.default, child(path, 'default')));
    }
  }
  if (isObject(s.items)) out.push(...validateDefaults(s.items as JSONSchemaProps, child(path, 'items'), requirePruned, false, inMeta));
  if (isObject(s.properties)) {
    for (const [k, p] of Object.entries(s.properties)) {
      const sub = embedded && META_FIELDS.has(k) ? true : inMeta;
      out.push(...validateDefaults(p, key(child(path, 'properties'), k), requirePruned, false, sub));
    }
  }
  return out;
}

/** kube's schemaHas: some node of the schema satisfies pred */
export function schemaHas(s: unknown, pred: (s: JSONSchemaProps) => boolean): boolean {
  if (!isObject(s)) return false;
  const p = s as JSONSchemaProps;
  if (pred(p)) return true;
  const many = (l: unknown) => Array.isArray(l) && l.some((x) => schemaHas(x, pred));
  const values = (m: unknown) => isObject(m) && Object.values(m).some((x) => schemaHas(x, pred));
  return (
    schemaHas(p.items, pred) ||
    many(p.items) ||
    many(p.allOf) ||
    many(p.anyOf) ||
    many(p.oneOf) ||
    schemaHas(p.not, pred) ||
    values(p.properties) ||
    schemaHas(p.additionalProperties, pred) ||
    values(p.patternProperties) ||
    schemaHas(p.additionalItems, pred) ||
    values(p.definitions) ||
    values(p.dependencies)
  );
}
