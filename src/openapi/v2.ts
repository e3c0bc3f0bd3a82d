/**
 * The OpenAPI v2 (Swagger 2.0) document kube-apiserver serves at /openapi/v2, built from the one
 * schema source (definitions, descriptions beside `$ref` as kube writes them) and the operations
 * the Scheme serves. kubectl reads it for client-side apply (strategic merge patch list keys),
 * `diff`/`--dry-run=server` (does the PATCH take dryRun?), 1.20's validation and `explain`.
 */
import type { Definitions, SchemaNode } from '../schema/types';
import type { Scheme } from '../api/scheme';
import { apiOperations, PATCH_SCHEMA } from './operations';
import type { ApiOperation } from './operations';
import { operationTag } from './naming';
import { queryParameters } from './parameters';

export type JsonObject = Record<string, unknown>;

export interface SwaggerDocument {
  swagger: '2.0';
  info: { title: string; version: string };
  paths: Record<string, JsonObject>;
  definitions: Record<string, SchemaNode>;
}

export interface OpenApiSource {
  scheme: Scheme;
  definitions: Definitions;
  /** info.version: the server's gitVersion, as kube writes it (`v1.32.0`) */
  version: string;
}

/**
 * definitions the documents need beyond the served objects: the PATCH body type, which kube
 * names and describes but never validates (the body is a patch, not an object)
 */
export const documentOnlyDefinitions: Definitions = {
  [PATCH_SCHEMA]: { description: 'The body of a PATCH request: a patch in the format its Content-Type names.', type: 'object' },
};

/** the definitions a document carries: the schema source plus the document-only ones */
export function documentDefinitions(defs: Definitions): Definitions {
  return { ...documentOnlyDefinitions, ...defs };
}

export const ref = (name: string): { $ref: string } => ({ $ref: `#/definitions/${name}` });

/** the `{name}` and `{namespace}` parameters a path has, described as kube does */
export function pathParameters(path: string, nameOf: string | undefined): Array<{ name: string; description: string }> {
  const params: Array<{ name: string; description: string }> = [];
  if (path.includes('{name}')) params.push({ name: 'name', description: `name of the ${nameOf ?? 'object'}` });
  if (path.includes('{namespace}')) params.push({ name: 'namespace', description: 'object name and auth scope, such as for teams and projects' });
  return params;
}

/** operations grouped by path, paths sorted as kube's document has them */
export function byPath(ops: ApiOperation[]): Array<[string, ApiOperation[]]> {
  const paths = new Map<string, ApiOperation[]>();
  for (const op of ops) {
    const list = paths.get(op.path);
    if (list) list.push(op);
    else paths.set(op.path, [op]);
  }
  return [...paths.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** the vendor extensions of an operation: its action and the kind it reads or writes */
export function operationExtensions(op: ApiOperation): JsonObject {
  const ext: JsonObject = {};
  if (op.action !== 'discovery') ext['x-kubernetes-action'] = op.action;
  if (op.gvk) ext['x-kubernetes-group-version-kind'] = { group: op.gvk.group, kind: op.gvk.kind, version: op.gvk.version };
  return ext;
}

function v2Operation(op: ApiOperation): JsonObject {
  const parameters: JsonObject[] = [];
  if (op.body) parameters.push({ name: 'body', in: 'body', required: op.body.required, schema: ref(op.body.schema) });
  for (const name of op.query) {
    const p = queryParameters[name];
    parameters.push({ uniqueItems: true, type: p.type, description: p.description, name: p.name, in: 'query' });
  }
  const responses: JsonObject = {};
  for (const r of op.responses) responses[r.code] = r.schema ? { description: r.description, schema: ref(r.schema) } : { description: r.description };
  const out: JsonObject = {
    description: op.description,
    consumes: [...op.consumes],
    produces: [...op.produces],
    schemes: ['https'],
    tags: [operationTag(op.group, op.version).replace(/_$/, '')],
    operationId: op.operationId,
  };
  if (parameters.length) out.parameters = parameters;
  out.responses = responses;
  return { ...out, ...operationExtensions(op) };
}

function sortedDefinitions(defs: Definitions): Record<string, SchemaNode> {
  const out: Record<string, SchemaNode> = {};
  for (const name of Object.keys(defs).sort()) out[name] = defs[name];
  return out;
}

export function buildOpenApiV2(src: OpenApiSource): SwaggerDocument {
  const paths: Record<string, JsonObject> = {};
  for (const [path, ops] of byPath(apiOperations(src.scheme))) {
    const item: JsonObject = {};
    for (const op of ops) item[op.method] = v2Operation(op);
    const params = pathParameters(path, ops.find((o) => o.nameOf)?.nameOf);
    if (params.length) {
      item.parameters = params.map((p) => ({ uniqueItems: true, type: 'string', description: p.description, name: p.name, in: 'path', required: true }));
    }
    paths[path] = item;
  }
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: src.version },
    paths,
    definitions: sortedDefinitions(documentDefinitions(src.definitions)),
  };
}
