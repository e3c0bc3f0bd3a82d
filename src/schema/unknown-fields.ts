/**
 * Finds fields a schema does not declare, for fieldValidation=Strict/Warn (kube's strict decoder
 * says `unknown field "spec.replicaz"`). Maps (additionalProperties) and preserve-unknown-fields
 * nodes accept any key; values of the wrong JSON type are left to the type checks.
 */
import type { Definitions, SchemaNode } from './types';
import { deref } from './schema-path';

export function findUnknownFields(defs: Definitions, node: SchemaNode, value: unknown, path = ''): string[] {
  const found: string[] = [];
  walk(defs, node, value, path, found);
  return found;
}

function walk(defs: Definitions, start: SchemaNode, value: unknown, path: string, found: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const node = deref(defs, start).node;
  if (node['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (node.items) value.forEach((item, i) => walk(defs, node.items as SchemaNode, item, `${path}[${i}]`, found));
    return;
  }
  if (node.type !== 'object') return;
  const additional = node.additionalProperties;
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const prop = node.properties?.[key];
    if (prop && Object.prototype.hasOwnProperty.call(node.properties, key)) {
      walk(defs, prop, child, path ? `${path}.${key}` : key, found);
    } else if (additional && typeof additional === 'object') {
      // kube's strict decoder writes map keys like struct fields: `extra.key.field`
      walk(defs, additional, child, path ? `${path}.${key}` : key, found);
    } else if (additional !== true) {
      found.push(path ? `${path}.${key}` : key);
    }
  }
}
