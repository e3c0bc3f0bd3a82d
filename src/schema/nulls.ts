/**
 * kube's JSON decoding of `null` into typed fields: a struct field set to null is absent (a nil
 * pointer, map or slice, or the zero value), so `nodePort: null`, `labels: null` or `env: null` in a
 * request body mean "not set". Charts render such nulls routinely. A null list item or map value
 * becomes the zero value of its type (`[null]` in a list of containers is one empty container, a
 * null label value is ""). Free-form fields (x-kubernetes-preserve-unknown-fields: RawExtension,
 * e.g. ControllerRevision.data) keep their nulls, as kube keeps their bytes; so do fields a schema
 * marks nullable (custom resources).
 */
import { INT_OR_STRING, QUANTITY } from './dsl';
import { deref } from './schema-path';
import type { Definitions, SchemaNode } from './types';

/** drop or zero the nulls of `value` (an instance of definition schemaName) in place; returns value */
export function decodeNulls<T>(defs: Definitions, schemaName: string, value: T): T {
  if (defs[schemaName]) walk(defs, { $ref: `#/definitions/${schemaName}` }, value);
  return value;
}

function walk(defs: Definitions, start: SchemaNode, value: unknown): void {
  if (value === null || typeof value !== 'object') return;
  const node = deref(defs, start).node;
  if (node['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (!node.items) return;
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null) value[i] = zeroOf(defs, node.items);
      else walk(defs, node.items, value[i]);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  const additional = node.additionalProperties;
  for (const key of Object.keys(record)) {
    const prop = node.properties && Object.prototype.hasOwnProperty.call(node.properties, key) ? node.properties[key] : undefined;
    if (prop) {
      if (record[key] !== null) walk(defs, prop, record[key]);
      else if (!isNullable(defs, prop)) delete record[key];
    } else if (additional && typeof additional === 'object') {
      if (record[key] === null) record[key] = zeroOf(defs, additional);
      else walk(defs, additional, record[key]);
    }
    // fields the schema does not declare are left to the unknown-field check (fieldValidation)
  }
}

type MaybeNullable = SchemaNode & { nullable?: boolean; 'x-nullable'?: boolean };

/** a field whose schema allows null (a custom resource's `nullable: true`); a RawExtension field set to null is absent in kube too */
function isNullable(defs: Definitions, node: SchemaNode): boolean {
  const here = node as MaybeNullable;
  const target = deref(defs, node).node as MaybeNullable;
  return !!(here.nullable || here['x-nullable'] || target.nullable || target['x-nullable']);
}

/**
 * Go's zero value of a list item or map value, as its JSON: "" for strings, 0 for numbers, an int-or-
 * string and a Quantity ("0"), false, {} for structs; null stays for what Go decodes to nil (lists,
 * maps, free-form values).
 */
function zeroOf(defs: Definitions, start: SchemaNode): unknown {
  const { node, name } = deref(defs, start);
  if (name === QUANTITY) return '0';
  if (name === INT_OR_STRING || node['x-kubernetes-int-or-string']) return 0;
  if (node['x-kubernetes-preserve-unknown-fields']) return null;
  switch (node.type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'object':
      return node.properties ? {} : null;
    default:
      return null;
  }
}
