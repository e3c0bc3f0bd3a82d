/**
 * An OpenAPI v2 (Swagger 2.0) document as an OpenAPI 3.0 one, as kube-openapi's openapiconv does for
 * aggregated servers that publish only /openapi/v2: body parameters become request bodies, other
 * parameters carry their type in `schema`, responses get one content entry per produced media type,
 * and definitions move to `components.schemas` (refs rewritten, described refs wrapped in allOf).
 */
import { toV3Schema } from './v3';
import type { JsonObject } from './v2';

const PARAMETER_SCHEMA_KEYS = ['type', 'format', 'items', 'enum', 'default', 'uniqueItems', 'minimum', 'maximum', 'pattern'];

function asObject(v: unknown): JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}

function convertParameter(p: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of ['name', 'in', 'description', 'required']) if (p[key] !== undefined) out[key] = p[key];
  const schema: JsonObject = {};
  for (const key of PARAMETER_SCHEMA_KEYS) if (p[key] !== undefined) schema[key] = key === 'items' ? toV3Schema(p[key]) : p[key];
  if (Object.keys(schema).length > 0) out.schema = schema;
  return out;
}

function content(schema: unknown, mediaTypes: string[]): JsonObject {
  const out: JsonObject = {};
  for (const type of mediaTypes) out[type] = schema === undefined ? {} : { schema: toV3Schema(schema) };
  return out;
}

function convertOperation(op: JsonObject, consumes: string[], produces: string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(op)) {
    if (['parameters', 'responses', 'consumes', 'produces', 'schemes'].includes(key)) continue;
    out[key] = value;
  }
  const opConsumes = strings(op.consumes) ?? consumes;
  const opProduces = strings(op.produces) ?? produces;
  const params = ((op.parameters as unknown[] | undefined) ?? []).map(asObject);
  const converted: JsonObject[] = [];
  for (const p of params) {
    if (p.in === 'body') out.requestBody = { content: content(p.schema, opConsumes), ...(p.required ? { required: true } : {}) };
    else if (p.in !== 'formData') converted.push(convertParameter(p));
  }
  if (converted.length > 0) out.parameters = converted;
  const responses: JsonObject = {};
  for (const [code, r] of Object.entries(asObject(op.responses))) {
    const resp = asObject(r);
    responses[code] = { description: resp.description ?? '', ...(resp.schema !== undefined ? { content: content(resp.schema, opProduces) } : {}) };
  }
  out.responses = responses;
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

export function convertV2ToV3(doc: JsonObject): JsonObject {
  const consumes = strings(doc.consumes) ?? ['application/json'];
  const produces = strings(doc.produces) ?? ['application/json'];
  const paths: JsonObject = {};
  for (const [path, rawItem] of Object.entries(asObject(doc.paths))) {
    const item = asObject(rawItem);
    const shared = ((item.parameters as unknown[] | undefined) ?? []).map(asObject);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(item)) {
      if (METHODS.includes(key)) out[key] = convertOperation(asObject(value), consumes, produces);
    }
    const sharedNonBody = shared.filter((p) => p.in !== 'body');
    if (sharedNonBody.length > 0) out.parameters = sharedNonBody.map(convertParameter);
    paths[path] = out;
  }
  const schemas: JsonObject = {};
  for (const [name, def] of Object.entries(asObject(doc.definitions))) schemas[name] = toV3Schema(def);
  return {
    openapi: '3.0.0',
    info: doc.info ?? { title: 'Kubernetes', version: '' },
    paths,
    components: { schemas },
  };
}
