/**
 * The OpenAPI v3 documents kube-apiserver serves under /openapi/v3: one OpenAPI 3.0 document per
 * group-version (`apis/apps/v1`, `api/v1`) and per discovery root (`apis/apps`, `apis`, `api`), each
 * with only the schemas reachable from its own paths. Refs point at `#/components/schemas/...`; a
 * `$ref` with a description (or any other sibling) beside it becomes `allOf: [{$ref}]`, since
 * OpenAPI 3.0 ignores a ref's siblings. kubectl 1.27+ reads these for `explain` and to learn that
 * PATCH takes `fieldValidation` (then it sends fieldValidation=Strict instead of validating itself).
 */
import type { Definitions } from '../schema/types';
import { apiOperations } from './operations';
import type { ApiOperation } from './operations';
import { operationTag } from './naming';
import { queryParameters } from './parameters';
import { byPath, documentDefinitions, operationExtensions, pathParameters } from './v2';
import type { JsonObject, OpenApiSource } from './v2';

const V2_PREFIX = '#/definitions/';
const V3_PREFIX = '#/components/schemas/';

const ref = (name: string): JsonObject => ({ $ref: V3_PREFIX + name });

/** a definition in OpenAPI 3.0 form: refs moved to components, described refs wrapped in allOf */
export function toV3Schema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toV3Schema);
  if (node === null || typeof node !== 'object') return node;
  const src = node as JsonObject;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(src)) {
    if (key === '$ref') continue;
    if (key === 'properties') {
      const props: JsonObject = {};
      for (const [name, child] of Object.entries(value as JsonObject)) props[name] = toV3Schema(child);
      out.properties = props;
    } else if (key === 'items' || key === 'allOf' || (key === 'additionalProperties' && typeof value === 'object')) {
      out[key] = toV3Schema(value);
    } else {
      out[key] = value;
    }
  }
  if (typeof src.$ref === 'string') {
    const target = V3_PREFIX + src.$ref.slice(V2_PREFIX.length);
    if (Object.keys(out).length === 0) return { $ref: target };
    out.allOf = [{ $ref: target }];
  }
  return out;
}

/** names of the definitions `node` refers to */
function refsOf(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) refsOf(item, found);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(V2_PREFIX)) found.add(value.slice(V2_PREFIX.length));
      else refsOf(value, found);
    }
  }
}

/** the named definitions and everything they reach, sorted by name */
function reachable(defs: Definitions, roots: Iterable<string>): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length) {
    const name = queue.pop() as string;
    if (seen.has(name) || !defs[name]) continue;
    seen.add(name);
    const refs = new Set<string>();
    refsOf(defs[name], refs);
    queue.push(...refs);
  }
  return [...seen].sort();
}

function v3Operation(op: ApiOperation): JsonObject {
  const out: JsonObject = {
    tags: [operationTag(op.group, op.version).replace(/_$/, '')],
    description: op.description,
    operationId: op.operationId,
  };
  const parameters = op.query.map((name) => {
    const p = queryParameters[name];
    return { name: p.name, in: 'query', description: p.description, schema: { type: p.type, uniqueItems: true } };
  });
  if (parameters.length) out.parameters = parameters;
  if (op.body) {
    const content: JsonObject = {};
    for (const type of op.consumes) content[type] = { schema: ref(op.body.schema) };
    out.requestBody = { content, required: op.body.required };
  }
  const responses: JsonObject = {};
  for (const r of op.responses) {
    if (!r.schema) {
      responses[r.code] = { description: r.description };
      continue;
    }
    const content: JsonObject = {};
    for (const type of op.produces) content[type] = { schema: ref(r.schema) };
    responses[r.code] = { description: r.description, content };
  }
  out.responses = responses;
  return { ...out, ...operationExtensions(op) };
}

function document(src: OpenApiSource, defs: Definitions, ops: ApiOperation[]): JsonObject {
  const paths: JsonObject = {};
  const roots = new Set<string>();
  for (const [path, pathOps] of byPath(ops)) {
    const item: JsonObject = {};
    for (const op of pathOps) {
      item[op.method] = v3Operation(op);
      if (op.body) roots.add(op.body.schema);
      for (const r of op.responses) if (r.schema) roots.add(r.schema);
    }
    const params = pathParameters(path, pathOps.find((o) => o.nameOf)?.nameOf);
    if (params.length) {
      item.parameters = params.map((p) => ({ name: p.name, in: 'path', description: p.description, required: true, schema: { type: 'string', uniqueItems: true } }));
    }
    paths[path] = item;
  }
  const schemas: JsonObject = {};
  for (const name of reachable(defs, roots)) schemas[name] = toV3Schema(defs[name]);
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: src.version },
    paths,
    components: { schemas },
  };
}

/** every v3 document, keyed as the /openapi/v3 index names them (`apis/apps/v1`), keys sorted */
export function buildOpenApiV3(src: OpenApiSource): Map<string, JsonObject> {
  const defs = documentDefinitions(src.definitions);
  const groups = new Map<string, ApiOperation[]>();
  for (const op of apiOperations(src.scheme)) {
    const list = groups.get(op.documentKey);
    if (list) list.push(op);
    else groups.set(op.documentKey, [op]);
  }
  const docs = new Map<string, JsonObject>();
  for (const key of [...groups.keys()].sort()) docs.set(key, document(src, defs, groups.get(key) as ApiOperation[]));
  return docs;
}
