/**
 * The reverse of src/openapi/v2-proto.ts, for tests: a decoded `openapi.v2.Document` (plain object,
 * proto field names) back to Swagger JSON, so an encode/decode round trip can be compared with the
 * JSON document. Extension and default values are parsed from their YAML text, as kubectl does.
 */
import { load } from 'js-yaml';

type Pb = Record<string, any>;

const yaml = (any: Pb | undefined): unknown => load(any?.yaml ?? '');

function extensions(out: Pb, list: Pb[] | undefined): void {
  for (const e of list ?? []) out[e.name] = yaml(e.value);
}

const NUMBERS: Record<string, string> = {
  multiple_of: 'multipleOf', maximum: 'maximum', minimum: 'minimum', max_length: 'maxLength', min_length: 'minLength',
  max_items: 'maxItems', min_items: 'minItems', max_properties: 'maxProperties', min_properties: 'minProperties',
  exclusive_maximum: 'exclusiveMaximum', exclusive_minimum: 'exclusiveMinimum', unique_items: 'uniqueItems', read_only: 'readOnly',
};

export function schemaFromProto(s: Pb): Pb {
  const out: Pb = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === '_ref') out.$ref = value;
    else if (['format', 'title', 'description', 'pattern', 'discriminator', 'required'].includes(key)) out[key] = value;
    else if (key === 'default' || key === 'example') out[key] = yaml(value as Pb);
    else if (key === 'enum') out.enum = (value as Pb[]).map(yaml);
    else if (key === 'type') out.type = (value as Pb).value.length === 1 ? (value as Pb).value[0] : (value as Pb).value;
    else if (key === 'items') out.items = schemaFromProto((value as Pb).schema[0]);
    else if (key === 'all_of') out.allOf = (value as Pb[]).map(schemaFromProto);
    else if (key === 'properties') out.properties = Object.fromEntries((value as Pb).additional_properties.map((p: Pb) => [p.name, schemaFromProto(p.value)]));
    else if (key === 'additional_properties') out.additionalProperties = 'schema' in (value as Pb) ? schemaFromProto((value as Pb).schema) : (value as Pb).boolean;
    else if (key in NUMBERS) out[NUMBERS[key]] = value;
  }
  extensions(out, s.vendor_extension);
  return out;
}

function parameterFromProto(item: Pb): Pb {
  const p = item.parameter;
  if (p.body_parameter) {
    const b = p.body_parameter;
    return { name: b.name, in: b.in, required: b.required ?? false, schema: schemaFromProto(b.schema), ...(b.description ? { description: b.description } : {}) };
  }
  const sub = Object.values(p.non_body_parameter)[0] as Pb;
  const out: Pb = { uniqueItems: sub.unique_items ?? false, type: sub.type, description: sub.description, name: sub.name, in: sub.in };
  if (sub.required) out.required = true;
  if (!out.uniqueItems) delete out.uniqueItems;
  return out;
}

function operationFromProto(o: Pb): Pb {
  const out: Pb = {};
  if (o.description) out.description = o.description;
  if (o.consumes) out.consumes = o.consumes;
  if (o.produces) out.produces = o.produces;
  if (o.schemes) out.schemes = o.schemes;
  if (o.tags) out.tags = o.tags;
  if (o.operation_id) out.operationId = o.operation_id;
  if (o.parameters) out.parameters = o.parameters.map(parameterFromProto);
  if (o.responses) {
    out.responses = Object.fromEntries(
      o.responses.response_code.map((r: Pb) => {
        const resp = r.value.response;
        return [r.name, resp.schema ? { description: resp.description, schema: schemaFromProto(resp.schema.schema) } : { description: resp.description }];
      }),
    );
  }
  extensions(out, o.vendor_extension);
  return out;
}

export function documentFromProto(d: Pb): Pb {
  const paths: Pb = {};
  for (const { name, value } of d.paths.path) {
    const item: Pb = {};
    for (const method of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']) if (value[method]) item[method] = operationFromProto(value[method]);
    if (value.parameters) item.parameters = value.parameters.map(parameterFromProto);
    paths[name] = item;
  }
  return {
    swagger: d.swagger,
    info: { title: d.info.title, version: d.info.version },
    paths,
    definitions: Object.fromEntries(d.definitions.additional_properties.map((n: Pb) => [n.name, schemaFromProto(n.value)])),
  };
}
