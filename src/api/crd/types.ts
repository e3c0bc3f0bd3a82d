/**
 * The JSON shapes of apiextensions.k8s.io CustomResourceDefinition: v1 (the stored form), v1beta1,
 * and the internal form kube validates (v1beta1's top-level fields, set when every version agrees).
 * Values come from clients: every field may be missing or of the wrong type, so readers check.
 */
import type { KubeObject } from '../kind';

export const GROUP = 'apiextensions.k8s.io';
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
export const API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';

/** JSONSchemaProps as JSON (both versions have the same keys; v1 adds x-kubernetes-validations) */
export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** a schema, or (not supported) a list of schemas */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  /** a schema, or true/false */
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: { description?: string; url?: string };
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
}

export interface Names {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface ScaleSubresource {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface Subresources {
  status?: Record<string, never>;
  scale?: ScaleSubresource;
}

export interface Validation {
  openAPIV3Schema?: JSONSchemaProps;
}

/** a printer column; v1 names the path `jsonPath`, v1beta1 and the internal form `JSONPath` */
export interface Column {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
  JSONPath?: string;
}

export interface ServiceReference {
  namespace?: string;
  name?: string;
  path?: string;
  port?: number;
}

export interface WebhookClientConfig {
  url?: string;
  service?: ServiceReference;
  /** base64 PEM */
  caBundle?: string;
}

export interface Version {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: Validation;
  subresources?: Subresources;
  additionalPrinterColumns?: Column[];
  selectableFields?: Array<{ jsonPath?: string }>;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string | null;
  reason?: string;
  message?: string;
}

export interface CrdStatus {
  conditions?: Condition[];
  acceptedNames?: Names;
  storedVersions?: string[];
}

/** apiextensions.k8s.io/v1 spec (the stored form) */
export interface SpecV1 {
  group?: string;
  names?: Names;
  scope?: string;
  versions?: Version[];
  conversion?: {
    strategy?: string;
    webhook?: { clientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
  };
  preserveUnknownFields?: boolean;
}

/** apiextensions.k8s.io/v1beta1 spec */
export interface SpecV1beta1 {
  group?: string;
  version?: string;
  names?: Names;
  scope?: string;
  validation?: Validation;
  subresources?: Subresources;
  versions?: Version[];
  additionalPrinterColumns?: Column[];
  conversion?: { strategy?: string; webhookClientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
  preserveUnknownFields?: boolean;
}

/**
 * kube's internal spec: what validation reads. Per-version schema, subresources and columns move
 * to the top level when every version has the same (kube's v1 -> internal conversion), so error
 * paths name `spec.validation...` for a CRD whose versions share one schema, as kube's do.
 */
export interface InternalSpec {
  group?: string;
  version?: string;
  names?: Names;
  scope?: string;
  validation?: Validation;
  subresources?: Subresources;
  versions: Version[];
  additionalPrinterColumns?: Column[];
  conversion?: { strategy?: string; webhookClientConfig?: WebhookClientConfig; conversionReviewVersions?: string[] };
  /** undefined = not set (v1beta1 defaults it to true; v1 always sets it) */
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinition extends KubeObject {
  spec: SpecV1;
  status?: CrdStatus;
}

export function specOf(crd: KubeObject): SpecV1 {
  const spec = crd.spec;
  return spec && typeof spec === 'object' && !Array.isArray(spec) ? (spec as SpecV1) : {};
}

export function statusOf(crd: KubeObject): CrdStatus {
  const status = crd.status;
  return status && typeof status === 'object' && !Array.isArray(status) ? (status as CrdStatus) : {};
}

/** a JSON object (not null, not a list); keeps the static type it was known by */
export function isObject<T>(v: T): v is T & Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
