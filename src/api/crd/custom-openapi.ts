/**
 * The OpenAPI definitions a custom resource version publishes, under kube's names (the group
 * reversed: `com.example.stable.v1.CronTab` and `...CronTabList`), so that `kubectl explain`,
 * client-side validation and `kubectl diff` know the kind. Like kube's CRD OpenAPI builder for v2:
 * the schema's types, fields, descriptions, required lists, enums and x-kubernetes markers, with
 * apiVersion, kind and metadata (ObjectMeta) added at the root; nullable, junctors and value
 * validation are left out. Without a structural schema the kind publishes a free-form object.
 */
import type { Definitions, SchemaNode, SchemaType } from '../../schema/types';
import { kindProps, ref, str } from '../../schema/dsl';
import type { JSONSchemaProps } from './types';
import { isObject } from './types';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/** kube's definition name prefix of a group: `stable.example.com` -> `com.example.stable` */
export function reversedGroup(group: string): string {
  return group.split('.').reverse().join('.');
}

export function definitionName(group: string, version: string, kind: string): string {
  return `${reversedGroup(group)}.${version}.${kind}`;
}

/**
 * a schema node as kube publishes it in OpenAPI v2 (ToStructuralOpenAPIV2): nullable nodes and
 * preserve-unknown-fields nodes lose their structure (kubectl 1.20 would otherwise refuse null or
 * unknown fields), nullable fields are not required
 */
function node(s: JSONSchemaProps): SchemaNode {
  const out: SchemaNode = {};
  const free = s['x-kubernetes-preserve-unknown-fields'] === true || s.nullable === true;
  const items = isObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
  if (typeof s.description === 'string' && s.description) out.description = s.description;
  if (s['x-kubernetes-int-or-string']) out['x-kubernetes-int-or-string'] = true;
  else if (typeof s.type === 'string' && TYPES.has(s.type) && !s.nullable && !(free && s.type === 'object') && !(s.type === 'array' && (!items || free))) out.type = s.type as SchemaType;
  if (typeof s.format === 'string' && s.format) out.format = s.format;
  const props = isObject(s.properties) ? s.properties : {};
  if (!free && Object.keys(props).length > 0) {
    out.properties = {};
    for (const [k, v] of Object.entries(props)) if (isObject(v)) out.properties[k] = node(v);
  }
  const nullableValues = isObject(s.additionalProperties) && (s.additionalProperties as JSONSchemaProps).nullable === true;
  if (Array.isArray(s.required) && s.required.length && !nullableValues) {
    const required = s.required.filter((r) => typeof r === 'string' && !(isObject(props[r]) && props[r].nullable === true));
    if (required.length) out.required = required;
  }
  if (items && !free) out.items = node(items);
  if (isObject(s.additionalProperties)) out.additionalProperties = node(s.additionalProperties as JSONSchemaProps);
  else if (typeof s.additionalProperties === 'boolean') out.additionalProperties = s.additionalProperties;
  if (Array.isArray(s.enum)) out.enum = [...s.enum];
  if (s.default !== undefined && s.default !== null) out.default = s.default;
  if (s['x-kubernetes-preserve-unknown-fields']) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (s['x-kubernetes-embedded-resource']) (out as Record<string, unknown>)['x-kubernetes-embedded-resource'] = true;
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'atomic' || lt === 'set' || lt === 'map') out['x-kubernetes-list-type'] = lt;
  if (Array.isArray(s['x-kubernetes-list-map-keys'])) out['x-kubernetes-list-map-keys'] = [...s['x-kubernetes-list-map-keys']];
  const mt = s['x-kubernetes-map-type'];
  if (mt === 'atomic' || mt === 'granular') out['x-kubernetes-map-type'] = mt;
  return out;
}

export interface CustomDefinitionsInput {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** the version's schema when it is structural and published; undefined = free-form */
  schema?: JSONSchemaProps;
}

export function customDefinitions(input: CustomDefinitionsInput): Definitions {
  const name = definitionName(input.group, input.version, input.kind);
  const gvk = { group: input.group, version: input.version, kind: input.kind };
  // kube publishes a free-form kind (no schema, or one preserving unknown fields at the root) as a
  // bare object: with properties, kubectl 1.20 would refuse every field but them
  const freeForm = !input.schema || input.schema['x-kubernetes-preserve-unknown-fields'] === true;
  const root: SchemaNode = freeForm ? { type: 'object' } : node(input.schema!);
  if (!freeForm) {
    root.type = 'object';
    root.properties = {
      ...kindProps(),
      ...Object.fromEntries(Object.entries(root.properties ?? {}).filter(([k]) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata')),
    };
  }
  root['x-kubernetes-group-version-kind'] = [gvk];
  const list: SchemaNode = {
    description: `A list of ${input.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: str('Versioned schema of this list, as group/version.'),
      items: { description: `The ${input.kind} objects.`, type: 'array', items: { $ref: `#/definitions/${name}` } },
      kind: str('Kind of this list, in CamelCase.'),
      metadata: ref(`${META}ListMeta`, 'List metadata: resourceVersion and continue token.'),
    },
    'x-kubernetes-group-version-kind': [{ ...gvk, kind: input.listKind }],
  };
  return { [name]: root, [definitionName(input.group, input.version, input.listKind)]: list };
}
