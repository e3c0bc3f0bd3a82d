/**
 * Turns the definitions into plain JSON Schema for ajv. Kube's wire forms that JSON Schema cannot
 * say in OpenAPI v2 words are spelled out here: int-or-string accepts integers and strings,
 * quantities accept numbers and strings (with kube's quantity syntax), RawExtension accepts any
 * value. Extensions and descriptions are dropped, so ajv can run in strict mode.
 */
import type { Definitions, SchemaNode } from './types';
import { INT_OR_STRING, QUANTITY, RAW_EXTENSION } from './dsl';

/** kube's Quantity parser accepts this shape (resource.Quantity UnmarshalJSON) */
export const QUANTITY_PATTERN = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

type JsonSchema = Record<string, unknown>;

function convert(node: SchemaNode): JsonSchema {
  if (node.$ref) return { $ref: node.$ref };
  if (node['x-kubernetes-int-or-string']) return { type: ['integer', 'string'] };
  if (node['x-kubernetes-preserve-unknown-fields']) return node.type ? { type: node.type } : {};
  const out: JsonSchema = {};
  if (node.type) out.type = node.type;
  if (node.format && node.format !== 'int-or-string') out.format = node.format;
  if (node.enum) out.enum = [...node.enum];
  if (node.required?.length) out.required = [...node.required];
  if (node.properties) {
    const props: Record<string, JsonSchema> = {};
    for (const [key, child] of Object.entries(node.properties)) props[key] = convert(child);
    out.properties = props;
  }
  if (node.additionalProperties !== undefined) {
    out.additionalProperties =
      typeof node.additionalProperties === 'boolean' ? node.additionalProperties : convert(node.additionalProperties);
  }
  if (node.items) out.items = convert(node.items);
  return out;
}

/** one schema holding every definition, addressable as `<id>#/definitions/<name>` */
export function toAjvSchema(defs: Definitions, id: string): JsonSchema {
  const converted: Record<string, JsonSchema> = {};
  for (const [name, node] of Object.entries(defs)) converted[name] = convert(node);
  if (defs[QUANTITY]) converted[QUANTITY] = { type: ['number', 'string'], pattern: QUANTITY_PATTERN };
  if (defs[INT_OR_STRING]) converted[INT_OR_STRING] = { type: ['integer', 'string'] };
  if (defs[RAW_EXTENSION]) converted[RAW_EXTENSION] = {};
  return { $id: id, definitions: converted };
}
