/**
 * Merging another server's OpenAPI v2 document into ours, as kube-openapi's aggregator does for
 * aggregated APIs (MergeSpecsIgnorePathConflictRenamingDefinitionsAndParameters):
 * - a path we already have stays ours (the first document wins);
 * - a definition we lack is added; one equal to ours (apart from its group-version-kind list) is
 *   shared, its kinds joined; one that differs is renamed `<name>_v2` (`_v3`, ...) and the
 *   incoming document's references follow the new name;
 * - defaults are pruned from the incoming definitions (kube's PruneDefaults).
 */
import { jsonEqual } from '../api/json-value';
import type { SchemaNode } from '../schema/types';

export interface SwaggerParts {
  paths?: Record<string, unknown>;
  definitions?: Record<string, SchemaNode>;
}

const GVK = 'x-kubernetes-group-version-kind';
const REF_PREFIX = '#/definitions/';

function withoutGvk(node: SchemaNode): SchemaNode {
  const { [GVK]: _ignored, ...rest } = node as Record<string, unknown>;
  return rest as SchemaNode;
}

/** a copy of `value` with every `$ref` to a renamed definition following it */
function renameRefs(value: unknown, renames: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameRefs(v, renames));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX)) {
      const target = v.slice(REF_PREFIX.length);
      out[k] = REF_PREFIX + (renames.get(target) ?? target);
    } else {
      out[k] = renameRefs(v, renames);
    }
  }
  return out;
}

/** a schema without `default` anywhere in it (properties named "default" are kept) */
export function pruneDefaults(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(pruneDefaults);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'default') continue;
    if (k === 'properties' || k === 'patternProperties' || k === 'definitions') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([name, child]) => [name, pruneDefaults(child)]));
    } else if (['items', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'not'].includes(k)) {
      out[k] = pruneDefaults(v);
    } else {
      out[k] = v;
    }
  }
  return out;
}

function joinGvks(a: SchemaNode, b: SchemaNode): SchemaNode {
  const left = (a[GVK] as unknown[] | undefined) ?? [];
  const right = (b[GVK] as unknown[] | undefined) ?? [];
  const joined = [...left];
  for (const g of right) if (!joined.some((x) => jsonEqual(x, g))) joined.push(g);
  return joined.length === left.length ? a : ({ ...a, [GVK]: joined } as SchemaNode);
}

/** `dest` with `source` merged in (neither input is changed) */
export function mergeSwagger<T extends SwaggerParts>(dest: T, source: SwaggerParts): T {
  const definitions: Record<string, SchemaNode> = { ...(dest.definitions ?? {}) };
  const incoming: Record<string, SchemaNode> = {};
  for (const [name, node] of Object.entries(source.definitions ?? {})) incoming[name] = pruneDefaults(node) as SchemaNode;

  const renames = new Map<string, string>();
  const used = new Set(Object.keys(definitions));
  for (const [name, node] of Object.entries(incoming)) {
    const existing = definitions[name];
    if (!existing || jsonEqual(withoutGvk(existing), withoutGvk(node))) continue;
    let i = 1;
    let candidate = '';
    let reused = false;
    // an earlier merge may already hold this very definition under a new name
    for (;;) {
      i++;
      candidate = `${name}_v${i}`;
      const taken = definitions[candidate];
      if (!taken) break;
      if (jsonEqual(withoutGvk(taken), withoutGvk(node))) {
        reused = true;
        break;
      }
    }
    if (!reused) {
      while (used.has(candidate) || candidate in incoming) candidate = `${name}_v${++i}`;
      used.add(candidate);
    }
    renames.set(name, candidate);
  }

  for (const [name, node] of Object.entries(incoming)) {
    const target = renames.get(name) ?? name;
    const renamed = renameRefs(node, renames) as SchemaNode;
    const existing = definitions[target];
    definitions[target] = existing ? joinGvks(existing, renamed) : renamed;
  }
  const paths: Record<string, unknown> = { ...(dest.paths ?? {}) };
  for (const [path, item] of Object.entries(source.paths ?? {})) {
    if (!(path in paths)) paths[path] = renameRefs(item, renames);
  }
  const sorted: Record<string, SchemaNode> = {};
  for (const name of Object.keys(definitions).sort()) sorted[name] = definitions[name];
  const sortedPaths: Record<string, unknown> = {};
  for (const p of Object.keys(paths).sort()) sortedPaths[p] = paths[p];
  return { ...dest, paths: sortedPaths, definitions: sorted };
}

function collectRefs(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, found);
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(REF_PREFIX)) found.add(v.slice(REF_PREFIX.length));
      else collectRefs(v, found);
    }
  }
}

/**
 * only the paths that start with one of `prefixes`, and the definitions they reach (kube's
 * FilterSpecByPathsWithoutSideEffects; kube keeps `/apis/` of aggregated servers)
 */
export function filterPaths<T extends SwaggerParts>(doc: T, prefixes: string[]): T {
  const paths: Record<string, unknown> = {};
  for (const [p, item] of Object.entries(doc.paths ?? {})) if (prefixes.some((x) => p.startsWith(x))) paths[p] = item;
  const all = doc.definitions ?? {};
  const reached = new Set<string>();
  const queue = new Set<string>();
  collectRefs(paths, queue);
  while (queue.size > 0) {
    const [name] = queue;
    queue.delete(name);
    if (reached.has(name) || !all[name]) continue;
    reached.add(name);
    const next = new Set<string>();
    collectRefs(all[name], next);
    for (const n of next) if (!reached.has(n)) queue.add(n);
  }
  const definitions: Record<string, SchemaNode> = {};
  for (const name of Object.keys(all)) if (reached.has(name)) definitions[name] = all[name];
  return { ...doc, paths, definitions };
}
