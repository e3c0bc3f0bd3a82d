/**
 * The one schema source. Every served type is described once, as an OpenAPI v2 / JSON-Schema
 * definition keyed by kube's definition name (`io.k8s.api.apps.v1.Deployment`). From these the
 * server derives: ajv validators, the OpenAPI documents, and the strategic-merge-patch / apply
 * engines' list semantics (x-kubernetes-* extensions). Nothing else keeps a second table of them.
 */

export type SchemaType = 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';

export interface SchemaNode {
  /** `#/definitions/<name>` */
  $ref?: string;
  type?: SchemaType;
  format?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  /** map values (labels: { type: 'object', additionalProperties: { type: 'string' } }) */
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  enum?: unknown[];
  default?: unknown;
  /** int-or-string, quantities: kube's marker */
  'x-kubernetes-int-or-string'?: boolean;
  /** free-form object (RawExtension-like) */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** strategic merge patch: 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys' */
  'x-kubernetes-patch-strategy'?: string;
  /** strategic merge patch: the field that identifies list items (containers: name) */
  'x-kubernetes-patch-merge-key'?: string;
  /** server-side apply: 'atomic' | 'set' | 'map' */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  /** 'atomic' | 'granular' for maps and structs */
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** on top-level kinds: [{ group, version, kind }] */
  'x-kubernetes-group-version-kind'?: Array<{ group: string; version: string; kind: string }>;
}

/** definitions keyed by name, as in the `definitions` section of an OpenAPI v2 document */
export type Definitions = Record<string, SchemaNode>;
