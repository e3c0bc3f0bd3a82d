/**
 * Structural schemas (kube's apiserver/schema): a CRD's JSONSchemaProps split into the part that
 * says what a value IS (types, properties, items, additionalProperties, defaults, nullable and the
 * x-kubernetes-* extensions: what pruning, defaulting and apply need) and the part that only says
 * whether a value is VALID (value validation, including the logical junctors allOf/anyOf/oneOf/not,
 * whose nested schemas must not introduce types or extensions: checked by structural-validation.ts).
 */
import type { JSONSchemaProps } from '../types';
import { isObject } from '../types';

export interface Extensions {
  preserveUnknownFields: boolean;
  embeddedResource: boolean;
  intOrString: boolean;
  listMapKeys?: string[];
  listType?: string;
  mapType?: string;
}

export interface Generic {
  type?: string;
  description?: string;
  title?: string;
  /** the default value; `hasDefault` tells a default of null from none */
  default?: unknown;
  hasDefault: boolean;
  nullable: boolean;
  /** additionalProperties: a schema, or only a boolean */
  additionalProperties?: { schema?: Structural; allows: boolean };
}

export interface ValueValidation {
  format?: string;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  allOf: NestedValueValidation[];
  oneOf: NestedValueValidation[];
  anyOf: NestedValueValidation[];
  not?: NestedValueValidation;
}

/** a schema under a junctor: only value validation is allowed; the rest is recorded to be refused */
export interface NestedValueValidation extends ValueValidation {
  items?: NestedValueValidation;
  properties?: Record<string, NestedValueValidation>;
  forbiddenGenerics: Generic;
  forbiddenExtensions: Extensions;
}

export interface Structural extends Generic, Extensions {
  items?: Structural;
  properties?: Record<string, Structural>;
  valueValidation: ValueValidation;
}

/** a schema using what no structural schema may (kube's validateUnsupportedFields) */
export class StructuralError extends Error {}

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function checkSupported(s: JSONSchemaProps): void {
  if (s.id) throw new StructuralError("OpenAPIV3Schema 'id' is not supported");
  if (s.$schema) throw new StructuralError("OpenAPIV3Schema 'schema' is not supported");
  if (s.$ref) throw new StructuralError("OpenAPIV3Schema '$ref' is not supported");
  if (isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0) throw new StructuralError("OpenAPIV3Schema 'patternProperties' is not supported");
  if (isObject(s.dependencies) && Object.keys(s.dependencies).length > 0) throw new StructuralError("OpenAPIV3Schema 'dependencies' is not supported");
  if (s.additionalItems !== undefined && s.additionalItems !== null) throw new StructuralError("OpenAPIV3Schema 'additionalItems' is not supported");
  if (isObject(s.definitions) && Object.keys(s.definitions).length > 0) throw new StructuralError("OpenAPIV3Schema 'definitions' is not supported");
}

function extensions(s: JSONSchemaProps): Extensions {
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    throw new StructuralError("internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined");
  }
  const x: Extensions = {
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    intOrString: s['x-kubernetes-int-or-string'] === true,
  };
  if (Array.isArray(s['x-kubernetes-list-map-keys'])) x.listMapKeys = s['x-kubernetes-list-map-keys'].filter((k) => typeof k === 'string');
  if (typeof s['x-kubernetes-list-type'] === 'string') x.listType = s['x-kubernetes-list-type'];
  if (typeof s['x-kubernetes-map-type'] === 'string') x.mapType = s['x-kubernetes-map-type'];
  return x;
}

function generics(s: JSONSchemaProps): Generic {
  const g: Generic = { hasDefault: false, nullable: s.nullable === true };
  if (s.type) g.type = str(s.type);
  if (s.description) g.description = str(s.description);
  if (s.title) g.title = str(s.title);
  // kube's JSON type reads a literal null default as no default
  if (s.default !== undefined && s.default !== null) {
    g.default = s.default;
    g.hasDefault = true;
  }
  const ap = s.additionalProperties;
  if (isObject(ap)) g.additionalProperties = { schema: newStructural(ap as JSONSchemaProps), allows: true };
  else if (typeof ap === 'boolean') g.additionalProperties = { allows: ap };
  return g;
}

function valueValidation(s: JSONSchemaProps): ValueValidation {
  const v: ValueValidation = { allOf: [], oneOf: [], anyOf: [] };
  if (s.format) v.format = str(s.format);
  v.maximum = num(s.maximum);
  if (s.exclusiveMaximum) v.exclusiveMaximum = true;
  v.minimum = num(s.minimum);
  if (s.exclusiveMinimum) v.exclusiveMinimum = true;
  v.maxLength = num(s.maxLength);
  v.minLength = num(s.minLength);
  if (s.pattern) v.pattern = str(s.pattern);
  v.maxItems = num(s.maxItems);
  v.minItems = num(s.minItems);
  if (s.uniqueItems) v.uniqueItems = true;
  v.multipleOf = num(s.multipleOf);
  if (Array.isArray(s.enum)) v.enum = s.enum;
  v.maxProperties = num(s.maxProperties);
  v.minProperties = num(s.minProperties);
  if (Array.isArray(s.required)) v.required = s.required.filter((r) => typeof r === 'string');
  for (const junctor of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[junctor];
    if (Array.isArray(list)) for (const x of list) if (isObject(x)) v[junctor].push(newNested(x as JSONSchemaProps));
  }
  if (isObject(s.not)) v.not = newNested(s.not as JSONSchemaProps);
  for (const k of Object.keys(v) as Array<keyof ValueValidation>) if (v[k] === undefined) delete v[k];
  return v;
}

function itemsOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  if (Array.isArray(s.items)) {
    if (s.items.length > 0) throw new StructuralError("OpenAPIV3Schema 'items' must be a schema, but is an array");
    return undefined;
  }
  return isObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
}

function newNested(s: JSONSchemaProps): NestedValueValidation {
  checkSupported(s);
  const n: NestedValueValidation = { ...valueValidation(s), forbiddenGenerics: generics(s), forbiddenExtensions: extensions(s) };
  const items = itemsOf(s);
  if (items) n.items = newNested(items);
  if (isObject(s.properties)) {
    n.properties = {};
    for (const [k, x] of Object.entries(s.properties)) if (isObject(x)) n.properties[k] = newNested(x as JSONSchemaProps);
  }
  return n;
}

/** kube's NewStructural; throws StructuralError for what no structural schema can hold */
export function newStructural(s: JSONSchemaProps): Structural {
  checkSupported(s);
  const out: Structural = { ...generics(s), ...extensions(s), valueValidation: valueValidation(s) };
  const items = itemsOf(s);
  if (items) out.items = newStructural(items);
  if (isObject(s.properties) && Object.keys(s.properties).length > 0) {
    out.properties = {};
    for (const [k, x] of Object.entries(s.properties)) out.properties[k] = newStructural(isObject(x) ? (x as JSONSchemaProps) : {});
  }
  return out;
}

/** the schema of field `key` of an object: its property, else its additionalProperties schema */
export function fieldSchema(s: Structural | undefined, key: string): Structural | undefined {
  if (!s) return undefined;
  const prop = s.properties && Object.prototype.hasOwnProperty.call(s.properties, key) ? s.properties[key] : undefined;
  return prop ?? s.additionalProperties?.schema;
}

export function hasProperty(s: Structural | undefined, key: string): boolean {
  return !!s?.properties && Object.prototype.hasOwnProperty.call(s.properties, key);
}
