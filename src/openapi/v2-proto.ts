/**
 * The OpenAPI v2 document as gnostic's `openapi_v2.Document` protobuf, the form kubectl asks for
 * (`Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`) and requires. JSON maps
 * become repeated name/value pairs in document order; a `$ref` is `_ref`; `type` is a TypeItem list;
 * every `x-` extension and every free-form value (default, enum, example) is an Any holding the
 * value's YAML text, which kubectl parses back with a YAML decoder.
 */
import fs from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { dump } from 'js-yaml';
import type { JsonObject, SwaggerDocument } from './v2';

const PROTO_FILE = path.join('proto', 'openapi', 'openapiv2.proto');

/** the repository root holding proto/: found upwards from this file (src/ or dist/src/) */
function protoPath(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, PROTO_FILE);
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) throw new Error(`cannot find ${PROTO_FILE} above ${__dirname}`);
  }
}

/** the `openapi.v2.Document` message type, loaded from our .proto with its field names as written */
export function openApiV2DocumentType(): protobuf.Type {
  const root = new protobuf.Root().loadSync(protoPath(), { keepCase: true });
  root.resolveAll();
  return root.lookupType('openapi.v2.Document');
}

type Pb = Record<string, unknown>;

/** YAML text of a value, as gnostic keeps extension values */
function any(value: unknown): Pb {
  return { yaml: dump(value, { lineWidth: -1, noRefs: true }) };
}

function named(obj: JsonObject, convert: (v: unknown) => Pb): Pb[] {
  return Object.entries(obj).map(([name, value]) => ({ name, value: convert(value) }));
}

function extensions(obj: JsonObject): Pb[] {
  return Object.entries(obj)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: any(value) }));
}

const SCHEMA_NUMBERS: Record<string, string> = {
  multipleOf: 'multiple_of', maximum: 'maximum', minimum: 'minimum', maxLength: 'max_length', minLength: 'min_length',
  maxItems: 'max_items', minItems: 'min_items', maxProperties: 'max_properties', minProperties: 'min_properties',
};
const SCHEMA_FLAGS: Record<string, string> = {
  exclusiveMaximum: 'exclusive_maximum', exclusiveMinimum: 'exclusive_minimum', uniqueItems: 'unique_items', readOnly: 'read_only',
};

function schema(node: unknown): Pb {
  const s = node as JsonObject;
  const out: Pb = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === '$ref') out._ref = value;
    else if (['format', 'title', 'description', 'pattern', 'discriminator'].includes(key)) out[key] = value;
    else if (key === 'default' || key === 'example') out[key] = any(value);
    else if (key === 'required') out.required = value;
    else if (key === 'enum') out.enum = (value as unknown[]).map(any);
    else if (key === 'type') out.type = { value: Array.isArray(value) ? value : [value] };
    else if (key === 'items') out.items = { schema: Array.isArray(value) ? value.map(schema) : [schema(value)] };
    else if (key === 'allOf') out.all_of = (value as unknown[]).map(schema);
    else if (key === 'properties') out.properties = { additional_properties: named(value as JsonObject, schema) };
    else if (key === 'additionalProperties') out.additional_properties = typeof value === 'boolean' ? { boolean: value } : { schema: schema(value) };
    else if (key in SCHEMA_NUMBERS) out[SCHEMA_NUMBERS[key]] = value;
    else if (key in SCHEMA_FLAGS) out[SCHEMA_FLAGS[key]] = value;
  }
  const ext = extensions(s);
  if (ext.length) out.vendor_extension = ext;
  return out;
}

function parameter(node: unknown): Pb {
  const p = node as JsonObject;
  if (p.in === 'body') {
    const body: Pb = { name: p.name, in: 'body', required: p.required === true, schema: schema(p.schema) };
    if (p.description) body.description = p.description;
    return { parameter: { body_parameter: body } };
  }
  const sub: Pb = { required: p.required === true, in: p.in, name: p.name, type: p.type };
  if (p.description) sub.description = p.description;
  if (p.uniqueItems) sub.unique_items = true;
  const ext = extensions(p);
  if (ext.length) sub.vendor_extension = ext;
  const which = p.in === 'path' ? 'path_parameter_sub_schema' : p.in === 'header' ? 'header_parameter_sub_schema' : 'query_parameter_sub_schema';
  return { parameter: { non_body_parameter: { [which]: sub } } };
}

function responses(node: unknown): Pb {
  return {
    response_code: Object.entries(node as JsonObject).map(([code, value]) => {
      const r = value as JsonObject;
      const response: Pb = { description: r.description };
      if (r.schema) response.schema = { schema: schema(r.schema) };
      return { name: code, value: { response } };
    }),
  };
}

function operation(node: unknown): Pb {
  const o = node as JsonObject;
  const out: Pb = {};
  if (o.tags) out.tags = o.tags;
  if (o.description) out.description = o.description;
  if (o.operationId) out.operation_id = o.operationId;
  if (o.produces) out.produces = o.produces;
  if (o.consumes) out.consumes = o.consumes;
  if (o.parameters) out.parameters = (o.parameters as unknown[]).map(parameter);
  if (o.responses) out.responses = responses(o.responses);
  if (o.schemes) out.schemes = o.schemes;
  if (o.deprecated) out.deprecated = true;
  const ext = extensions(o);
  if (ext.length) out.vendor_extension = ext;
  return out;
}

function pathItem(node: unknown): Pb {
  const item = node as JsonObject;
  const out: Pb = {};
  for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']) {
    if (item[method]) out[method] = operation(item[method]);
  }
  if (item.parameters) out.parameters = (item.parameters as unknown[]).map(parameter);
  return out;
}

/** the plain object form of the protobuf Document (field names as in the .proto) */
export function toProtoObject(doc: SwaggerDocument): Pb {
  return {
    swagger: doc.swagger,
    info: { title: doc.info.title, version: doc.info.version },
    paths: { path: named(doc.paths, pathItem) },
    definitions: { additional_properties: named(doc.definitions as JsonObject, schema) },
  };
}

/** encode the document as an `openapi.v2.Document` message */
export function encodeOpenApiV2(doc: SwaggerDocument, type: protobuf.Type = openApiV2DocumentType()): Buffer {
  const message = type.fromObject(toProtoObject(doc));
  return Buffer.from(type.encode(message).finish());
}
