/**
 * CustomResourceDefinition between apiextensions.k8s.io v1beta1, kube's internal form and v1 (the
 * stored form), as kube's conversion functions do it:
 *
 * - v1 -> internal: `version` is versions[0]; per-version schema, subresources and printer columns
 *   that every version has alike move to the top level (validation, subresources,
 *   additionalPrinterColumns); the webhook's client config and review versions are flattened.
 * - internal -> v1: a lone `version` becomes the one served and stored version; top-level
 *   schema, subresources and columns are copied into every version.
 * - printer columns name their path `JSONPath` in v1beta1 and internally, `jsonPath` in v1.
 */
import { jsonEqual } from '../json-value';
import type { Column, InternalSpec, SpecV1, SpecV1beta1, Version } from './types';
import { isObject } from './types';

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

function columnsToInternal(columns: Column[] | undefined): Column[] | undefined {
  if (!Array.isArray(columns)) return columns;
  return columns.map((c) => {
    if (!isObject(c)) return c;
    const { jsonPath, ...rest } = c as Column;
    return jsonPath === undefined ? { ...rest } : { ...rest, JSONPath: jsonPath };
  });
}

function columnsToV1(columns: Column[] | undefined): Column[] | undefined {
  if (!Array.isArray(columns)) return columns;
  return columns.map((c) => {
    if (!isObject(c)) return c;
    const { JSONPath, ...rest } = c as Column;
    return JSONPath === undefined ? { ...rest } : { ...rest, jsonPath: JSONPath };
  });
}

const strip = <T extends object>(o: T): T => {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
};

/** kube's Convert_v1_CustomResourceDefinitionSpec_To_apiextensions_CustomResourceDefinitionSpec */
export function v1ToInternal(spec: SpecV1): InternalSpec {
  const versions: Version[] = Array.isArray(spec.versions) ? spec.versions.map((v) => (isObject(v) ? { ...clone(v), additionalPrinterColumns: columnsToInternal(v.additionalPrinterColumns) } : v)) : [];
  for (const v of versions) if (isObject(v) && v.additionalPrinterColumns === undefined) delete v.additionalPrinterColumns;
  const out: InternalSpec = strip({
    group: spec.group,
    names: clone(spec.names),
    scope: spec.scope,
    versions,
    preserveUnknownFields: typeof spec.preserveUnknownFields === 'boolean' ? spec.preserveUnknownFields : false,
  });
  const conv = spec.conversion;
  if (isObject(conv)) {
    out.conversion = strip({
      strategy: conv.strategy,
      webhookClientConfig: isObject(conv.webhook) ? clone(conv.webhook.clientConfig) : undefined,
      conversionReviewVersions: isObject(conv.webhook) ? clone(conv.webhook.conversionReviewVersions) : undefined,
    });
  }
  if (versions.length === 0) return out;
  out.version = versions[0]?.name;
  const first = versions[0] ?? {};
  const same = (pick: (v: Version) => unknown) => versions.every((v) => jsonEqual(pick(v ?? {}) ?? null, pick(first) ?? null));
  const subresourcesSame = same((v) => v.subresources);
  const schemaSame = same((v) => v.schema);
  const columnsSame = same((v) => (Array.isArray(v.additionalPrinterColumns) && v.additionalPrinterColumns.length === 0 ? undefined : v.additionalPrinterColumns));
  if (subresourcesSame && first.subresources !== undefined) out.subresources = first.subresources;
  if (schemaSame && first.schema !== undefined) out.validation = first.schema;
  if (columnsSame && first.additionalPrinterColumns !== undefined && first.additionalPrinterColumns.length > 0) out.additionalPrinterColumns = first.additionalPrinterColumns;
  for (const v of versions) {
    if (!isObject(v)) continue;
    if (subresourcesSame) delete v.subresources;
    if (schemaSame) delete v.schema;
    if (columnsSame) delete v.additionalPrinterColumns;
  }
  return out;
}

/** kube's Convert_apiextensions_CustomResourceDefinitionSpec_To_v1_CustomResourceDefinitionSpec */
export function internalToV1(spec: InternalSpec): SpecV1 {
  let versions: Version[] = spec.versions.map((v) => (isObject(v) ? clone(v) : v));
  if (versions.length === 0 && spec.version) versions = [{ name: spec.version, served: true, storage: true }];
  for (const v of versions) {
    if (!isObject(v)) continue;
    if (spec.subresources !== undefined) v.subresources = clone(spec.subresources);
    if (spec.validation !== undefined) v.schema = clone(spec.validation);
    if (spec.additionalPrinterColumns !== undefined) v.additionalPrinterColumns = clone(spec.additionalPrinterColumns);
    if (v.additionalPrinterColumns !== undefined) v.additionalPrinterColumns = columnsToV1(v.additionalPrinterColumns);
  }
  const out: SpecV1 = strip({ group: spec.group, names: clone(spec.names), scope: spec.scope, versions });
  const conv = spec.conversion;
  if (isObject(conv)) {
    const c: NonNullable<SpecV1['conversion']> = strip({ strategy: conv.strategy });
    if (conv.webhookClientConfig !== undefined || conv.conversionReviewVersions !== undefined) {
      c.webhook = strip({ clientConfig: clone(conv.webhookClientConfig), conversionReviewVersions: clone(conv.conversionReviewVersions) });
    }
    out.conversion = c;
  }
  if (spec.preserveUnknownFields) out.preserveUnknownFields = true;
  return out;
}

export function v1beta1ToInternal(spec: SpecV1beta1): InternalSpec {
  const out: InternalSpec = strip({
    group: spec.group,
    version: spec.version,
    names: clone(spec.names),
    scope: spec.scope,
    validation: clone(spec.validation),
    subresources: clone(spec.subresources),
    versions: Array.isArray(spec.versions) ? clone(spec.versions) : [],
    additionalPrinterColumns: clone(spec.additionalPrinterColumns),
    conversion: clone(spec.conversion),
    preserveUnknownFields: spec.preserveUnknownFields,
  });
  return out;
}

export function internalToV1beta1(spec: InternalSpec): SpecV1beta1 {
  const out: SpecV1beta1 = strip({
    group: spec.group,
    version: spec.version,
    names: clone(spec.names),
    scope: spec.scope,
    validation: clone(spec.validation),
    subresources: clone(spec.subresources),
    versions: spec.versions.length > 0 ? clone(spec.versions) : undefined,
    additionalPrinterColumns: clone(spec.additionalPrinterColumns),
    conversion: clone(spec.conversion),
    preserveUnknownFields: spec.preserveUnknownFields,
  });
  return out;
}

export const v1beta1ToV1 = (spec: SpecV1beta1): SpecV1 => internalToV1(v1beta1ToInternal(spec));
export const v1ToV1beta1 = (spec: SpecV1): SpecV1beta1 => internalToV1beta1(v1ToInternal(spec));
