/**
 * kube's ValidateCustomResourceDefinition[Update], on the internal form (crd-conversion.ts): the
 * name `<plural>.<group>`, the group, scope, names, versions (unique DNS-1035 names, exactly one
 * storage version), per-version vs top-level fields, subresources, printer columns, conversion,
 * status (accepted and stored versions), the api-approved.kubernetes.io annotation for protected
 * groups and preserveUnknownFields. What is checked depends on the request's version (v1beta1 is
 * lenient) and, on update, on what the stored definition already had, as kube's options do.
 */
import type { StatusCause } from '../errors';
import type { KubeObject } from '../kind';
import { forbidden, invalid, required } from '../validation/field-errors';
import { isDNS1035Label, isDNS1123Subdomain } from '../validation';
import { jsonEqual } from '../json-value';
import type { Column, CrdStatus, InternalSpec, JSONSchemaProps, Names, Subresources, Version } from './types';
import { API_APPROVED_ANNOTATION, isObject } from './types';
import { isConditionTrue } from './conditions';
import { mapListKeysMapSet, schemaHas, validateCrdValidation } from './crd-schema-validation';
import { ACCEPTED_REVIEW_VERSIONS, enumString, validateConversion } from './crd-conversion-validation';
import type { SchemaValidationOptions } from './crd-schema-validation';
import { newStructural, StructuralError } from './schema/structural';
import { validateStructural } from './schema/structural-validation';
import { child, index, key } from './schema/field-path';

export type RequestVersion = 'v1' | 'v1beta1';

const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

interface Options extends SchemaValidationOptions {
  requireRecognizedConversionReviewVersion: boolean;
  requireImmutableNames: boolean;
  requireOpenAPISchema: boolean;
}

// ---- schema predicates over a whole spec (kube's hasSchemaWith)

function schemas(spec: InternalSpec): unknown[] {
  const out: unknown[] = [];
  if (isObject(spec.validation)) out.push(spec.validation.openAPIV3Schema);
  for (const v of spec.versions) if (isObject(v) && isObject(v.schema)) out.push(v.schema.openAPIV3Schema);
  return out;
}
const specHas = (spec: InternalSpec, pred: (s: JSONSchemaProps) => boolean) => schemas(spec).some((s) => schemaHas(s, pred));
const hasDefaults = (spec: InternalSpec) => specHas(spec, (s) => s.default !== undefined && s.default !== null);
const hasKubernetesExtensions = (spec: InternalSpec) =>
  specHas(spec, (s) => !!s['x-kubernetes-embedded-resource'] || s['x-kubernetes-preserve-unknown-fields'] !== undefined || !!s['x-kubernetes-int-or-string'] || (Array.isArray(s['x-kubernetes-list-map-keys']) && s['x-kubernetes-list-map-keys'].length > 0) || s['x-kubernetes-list-type'] !== undefined);

function nonStructural(s: unknown): boolean {
  if (!isObject(s)) return false;
  try {
    return validateStructural('', newStructural(s as JSONSchemaProps)).length > 0;
  } catch (err) {
    if (err instanceof StructuralError) return true;
    throw err;
  }
}

function allVersionsHaveSchema(spec: InternalSpec): boolean {
  if (isObject(spec.validation) && isObject(spec.validation.openAPIV3Schema)) return true;
  return spec.versions.every((v) => isObject(v) && isObject(v.schema) && isObject(v.schema.openAPIV3Schema));
}

function options(request: RequestVersion, old: InternalSpec | undefined, oldObj: KubeObject | undefined): Options {
  const beta = request === 'v1beta1';
  const oldHasDefaults = !!old && hasDefaults(old);
  const oldReviews = old?.conversion?.conversionReviewVersions;
  return {
    allowDefaults: oldHasDefaults || !beta,
    disallowDefaultsReason: oldHasDefaults || !beta ? '' : '(cannot set default values in apiextensions.k8s.io/v1beta1 CRDs, must use apiextensions.k8s.io/v1)',
    requireRecognizedConversionReviewVersion: !old || !isObject(old.conversion) || !Array.isArray(oldReviews) || oldReviews.length === 0 || oldReviews.some((v) => ACCEPTED_REVIEW_VERSIONS.includes(v)),
    requireImmutableNames: !!oldObj && isConditionTrue(oldObj, 'Established'),
    requireOpenAPISchema: !beta && (!old || allVersionsHaveSchema(old)),
    requireValidPropertyType: !beta && !(old && specHas(old, (s) => typeof s.type === 'string' && s.type !== '' && !['array', 'boolean', 'integer', 'number', 'object', 'string'].includes(s.type))),
    requireStructuralSchema: !beta && !(old && schemas(old).some(nonStructural)),
    requirePrunedDefaults: true,
    requireAtomicSetType: !(old && specHas(old, (s) => {
      const items = isObject(s.items) ? (s.items as JSONSchemaProps) : undefined;
      if (s['x-kubernetes-list-type'] !== 'set' || !items) return false;
      if (items.type === 'array') return items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic';
      if (items.type === 'object') return items['x-kubernetes-map-type'] !== 'atomic';
      return false;
    })),
    requireMapListKeysMapSetValidation: !(old && specHas(old, (s) => mapListKeysMapSet(s, '').length > 0)),
  };
}

// ---- names, columns, subresources

export function validateNames(names: Names | undefined, path: string): StatusCause[] {
  const n = isObject(names) ? names : {};
  const out: StatusCause[] = [];
  const dns = (v: unknown, field: string, mixed = false) => {
    if (typeof v !== 'string' || v === '') return;
    const errs = isDNS1035Label(mixed ? v.toLowerCase() : v);
    if (errs.length) out.push(invalid(child(path, field), v, mixed ? `may have mixed case, but should otherwise match: ${errs.join(',')}` : errs.join(',')));
  };
  dns(n.plural, 'plural');
  dns(n.singular, 'singular');
  dns(n.kind, 'kind', true);
  dns(n.listKind, 'listKind', true);
  (Array.isArray(n.shortNames) ? n.shortNames : []).forEach((s, i) => {
    const errs = isDNS1035Label(String(s));
    if (errs.length) out.push(invalid(index(child(path, 'shortNames'), i), s, errs.join(',')));
  });
  if (n.kind && n.kind === n.listKind) out.push(invalid(child(path, 'listKind'), n.listKind, 'kind and listKind may not be the same'));
  (Array.isArray(n.categories) ? n.categories : []).forEach((c, i) => {
    const errs = isDNS1035Label(String(c));
    if (errs.length) out.push(invalid(index(child(path, 'categories'), i), c, errs.join(',')));
  });
  return out;
}

/** kube's validateSimpleJSONPath */
function simpleJsonPath(s: string, path: string): StatusCause[] {
  if (s.length === 0) return [invalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [invalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

function validateColumn(col: Column, path: string): StatusCause[] {
  const c = isObject(col) ? col : {};
  const out: StatusCause[] = [];
  if (!c.name) out.push(required(child(path, 'name'), ''));
  if (!c.type) out.push(required(child(path, 'type'), `must be one of ${COLUMN_TYPES.join(',')}`));
  else if (!COLUMN_TYPES.includes(c.type)) out.push(invalid(child(path, 'type'), c.type, `must be one of ${COLUMN_TYPES.join(',')}`));
  if (c.format && !COLUMN_FORMATS.includes(c.format)) out.push(invalid(child(path, 'format'), c.format, `must be one of ${COLUMN_FORMATS.join(',')}`));
  if (!c.JSONPath) out.push(required(child(path, 'JSONPath'), ''));
  else out.push(...simpleJsonPath(c.JSONPath, child(path, 'JSONPath')));
  return out;
}

function validateSubresources(sub: Subresources | undefined, path: string): StatusCause[] {
  if (!isObject(sub) || !isObject(sub.scale)) return [];
  const scale = sub.scale;
  const out: StatusCause[] = [];
  const spec = child(path, 'scale.specReplicasPath');
  if (!scale.specReplicasPath) out.push(required(spec, ''));
  else {
    const errs = simpleJsonPath(scale.specReplicasPath, spec);
    if (errs.length) out.push(...errs);
    else if (!scale.specReplicasPath.startsWith('.spec.')) out.push(invalid(spec, scale.specReplicasPath, 'should be a json path under .spec'));
  }
  const status = child(path, 'scale.statusReplicasPath');
  if (!scale.statusReplicasPath) out.push(required(status, ''));
  else {
    const errs = simpleJsonPath(scale.statusReplicasPath, status);
    if (errs.length) out.push(...errs);
    else if (!scale.statusReplicasPath.startsWith('.status.')) out.push(invalid(status, scale.statusReplicasPath, 'should be a json path under .status'));
  }
  if (scale.labelSelectorPath) {
    const sel = child(path, 'scale.labelSelectorPath');
    const errs = simpleJsonPath(scale.labelSelectorPath, sel);
    if (errs.length) out.push(...errs);
    else if (!scale.labelSelectorPath.startsWith('.spec.') && !scale.labelSelectorPath.startsWith('.status.')) {
      out.push(invalid(sel, scale.labelSelectorPath, 'should be a json path under either .spec or .status'));
    }
  }
  return out;
}

// ---- versions

function validateDeprecationWarning(v: Version): string[] {
  if (!v.deprecated && v.deprecationWarning !== undefined && v.deprecationWarning !== null) return ['can only be set for deprecated versions'];
  if (v.deprecationWarning === undefined || v.deprecationWarning === null) return [];
  const w = String(v.deprecationWarning);
  const out: string[] = [];
  if (Buffer.byteLength(w) > 256) out.push('must be <= 256 characters long');
  if (w.length === 0) out.push('must not be an empty string');
  const bad = [...w].findIndex((ch) => /[\p{C}]/u.test(ch));
  if (bad >= 0) out.push(`must only contain printable UTF-8 characters; non-printable character found at index ${Buffer.byteLength([...w].slice(0, bad).join(''))}`);
  return out;
}

const hasStatus = (s: Subresources | undefined) => isObject(s) && s.status !== undefined && s.status !== null;
const perVersion = (spec: InternalSpec, pick: (v: Version) => unknown) => spec.versions.some((v) => isObject(v) && pick(v) !== undefined && pick(v) !== null && !(Array.isArray(pick(v)) && (pick(v) as unknown[]).length === 0));
const identical = (spec: InternalSpec, pick: (v: Version) => unknown) => {
  if (spec.versions.length === 0) return false;
  const first = pick(spec.versions[0] ?? {});
  return spec.versions.every((v) => {
    const x = pick(v ?? {});
    return x !== undefined && x !== null && !(Array.isArray(x) && x.length === 0) && jsonEqual(x, first);
  });
};

function subresourcesFor(spec: InternalSpec, name: unknown): Subresources | undefined {
  if (!perVersion(spec, (v) => v.subresources)) return spec.subresources;
  return spec.versions.find((v) => isObject(v) && v.name === name)?.subresources;
}

function validateSpec(spec: InternalSpec, opts: Options, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  const group = typeof spec.group === 'string' ? spec.group : '';
  if (!group) out.push(required(child(path, 'group'), ''));
  else {
    const errs = isDNS1123Subdomain(group);
    if (errs.length) out.push(invalid(child(path, 'group'), group, errs.join(',')));
    else if (group.split('.').length < 2) out.push(invalid(child(path, 'group'), group, 'should be a domain with at least one dot'));
  }
  out.push(...enumString(spec.scope, ['Cluster', 'Namespaced'], child(path, 'scope')));
  const o: Options = { ...opts };
  if (spec.preserveUnknownFields !== true) o.requireStructuralSchema = true;
  const topSchema = isObject(spec.validation) && isObject(spec.validation.openAPIV3Schema);
  if (o.requireOpenAPISchema) {
    if (!topSchema) {
      spec.versions.forEach((v, i) => {
        if (!isObject(v) || !isObject(v.schema) || !isObject(v.schema.openAPIV3Schema)) out.push(required(child(child(index(child(path, 'versions'), i), 'schema'), 'openAPIV3Schema'), 'schemas are required'));
      });
    }
  } else if (spec.preserveUnknownFields !== true && !topSchema) {
    spec.versions.forEach((v, i) => {
      if (isObject(v) && v.served && (!isObject(v.schema) || !isObject(v.schema.openAPIV3Schema))) {
        out.push(required(child(index(child(path, 'versions'), i), 'schema.openAPIV3Schema'), 'because otherwise all fields are pruned'));
      }
    });
  }
  if (o.allowDefaults && hasDefaults(spec)) {
    o.requireStructuralSchema = true;
    if (spec.preserveUnknownFields === undefined || spec.preserveUnknownFields === true) out.push(invalid(child(path, 'preserveUnknownFields'), true, 'must be false in order to use defaults in the schema'));
  }
  if (hasKubernetesExtensions(spec)) o.requireStructuralSchema = true;

  let storageCount = 0;
  const names = new Set<string>();
  let unique = true;
  spec.versions.forEach((v, i) => {
    const vp = index(child(path, 'versions'), i);
    const ver = isObject(v) ? v : {};
    if (ver.storage) storageCount++;
    const name = typeof ver.name === 'string' ? ver.name : '';
    if (names.has(name)) unique = false;
    names.add(name);
    const errs = isDNS1035Label(name);
    if (errs.length) out.push(invalid(child(vp, 'name'), ver.name ?? '', errs.join(',')));
    for (const e of validateDeprecationWarning(ver)) out.push(invalid(child(vp, 'deprecationWarning'), ver.deprecationWarning, e));
    out.push(...validateCrdValidation(ver.schema, hasStatus(subresourcesFor(spec, ver.name)), o, child(vp, 'schema')));
    out.push(...validateSubresources(ver.subresources, child(vp, 'subresources')));
    (Array.isArray(ver.additionalPrinterColumns) ? ver.additionalPrinterColumns : []).forEach((c, j) => out.push(...validateColumn(c, index(child(vp, 'additionalPrinterColumns'), j))));
  });
  if (spec.validation !== undefined && perVersion(spec, (v) => v.schema)) out.push(forbidden(child(path, 'validation'), 'top-level and per-version schemas are mutually exclusive'));
  if (spec.subresources !== undefined && perVersion(spec, (v) => v.subresources)) out.push(forbidden(child(path, 'subresources'), 'top-level and per-version subresources are mutually exclusive'));
  if (Array.isArray(spec.additionalPrinterColumns) && spec.additionalPrinterColumns.length > 0 && perVersion(spec, (v) => v.additionalPrinterColumns)) {
    out.push(forbidden(child(path, 'additionalPrinterColumns'), 'top-level and per-version additionalPrinterColumns are mutually exclusive'));
  }
  const versionsValue = spec.versions;
  if (identical(spec, (v) => v.schema)) out.push(invalid(child(path, 'versions'), versionsValue, 'per-version schemas may not all be set to identical values (top-level validation should be used instead)'));
  if (identical(spec, (v) => v.subresources)) out.push(invalid(child(path, 'versions'), versionsValue, 'per-version subresources may not all be set to identical values (top-level subresources should be used instead)'));
  if (identical(spec, (v) => v.additionalPrinterColumns)) {
    out.push(invalid(child(path, 'versions'), versionsValue, 'per-version additionalPrinterColumns may not all be set to identical values (top-level additionalPrinterColumns should be used instead)'));
  }
  if (!unique) out.push(invalid(child(path, 'versions'), versionsValue, 'must contain unique version names'));
  if (storageCount !== 1) out.push(invalid(child(path, 'versions'), versionsValue, 'must have exactly one version marked as storage version'));
  if (spec.version) {
    const errs = isDNS1035Label(spec.version);
    if (errs.length) out.push(invalid(child(path, 'version'), spec.version, errs.join(',')));
    if (spec.versions.length >= 1 && spec.versions[0]?.name !== spec.version) out.push(invalid(child(path, 'version'), spec.version, 'must match the first version in spec.versions'));
  }
  const n = isObject(spec.names) ? spec.names : {};
  if (!n.plural) out.push(required(child(path, 'names.plural'), ''));
  if (!n.singular) out.push(required(child(path, 'names.singular'), ''));
  if (!n.kind) out.push(required(child(path, 'names.kind'), ''));
  if (!n.listKind) out.push(required(child(path, 'names.listKind'), ''));
  out.push(...validateNames(spec.names, child(path, 'names')));
  const anyStatus = hasStatus(spec.subresources) || spec.versions.some((v) => isObject(v) && hasStatus(v.subresources));
  out.push(...validateCrdValidation(spec.validation, anyStatus, o, child(path, 'validation')));
  out.push(...validateSubresources(spec.subresources, child(path, 'subresources')));
  (Array.isArray(spec.additionalPrinterColumns) ? spec.additionalPrinterColumns : []).forEach((c, j) => out.push(...validateColumn(c, index(child(path, 'additionalPrinterColumns'), j))));
  if (isObject(spec.conversion) && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields !== false) {
    out.push(invalid(child(child(path, 'conversion'), 'strategy'), spec.conversion.strategy ?? '', 'must be None if spec.preserveUnknownFields is true'));
  }
  out.push(...validateConversion(spec.conversion, o.requireRecognizedConversionReviewVersion, child(path, 'conversion')));
  return out;
}

function validateStoredVersions(status: CrdStatus, versions: Version[]): StatusCause[] {
  const path = 'status.storedVersions';
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (stored.length === 0) return [invalid(path, stored, 'must have at least one stored version')];
  const out: StatusCause[] = [];
  const left = new Map(stored.map((v, i) => [v, i] as const));
  for (const v of versions) {
    if (!isObject(v)) continue;
    const has = left.has(String(v.name));
    if (v.storage && !has) out.push(invalid(path, v, `must have the storage version ${v.name}`));
    if (has) left.delete(String(v.name));
  }
  for (const [v, i] of left) out.push(invalid(index(path, i), v, 'must appear in spec.versions'));
  return out;
}

type Approval = 'invalid' | 'approved' | 'bypassed' | 'missing';

function approvalState(annotations: unknown): { state: Approval; reason: string } {
  const a = isObject(annotations) && typeof annotations[API_APPROVED_ANNOTATION] === 'string' ? (annotations[API_APPROVED_ANNOTATION] as string) : '';
  const see = 'see https://github.com/kubernetes/enhancements/pull/1111';
  if (!a) return { state: 'missing', reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}", ${see}` };
  if (a.startsWith('unapproved')) return { state: 'bypassed', reason: `not approved: "${a}"` };
  try {
    const u = new URL(a);
    if (u.host && u.protocol) return { state: 'approved', reason: `approved in ${a}` };
  } catch {
    // not a URL: invalid below
  }
  return { state: 'invalid', reason: `protected groups must have approval annotation "${API_APPROVED_ANNOTATION}" with either a URL or a reason starting with "unapproved", ${see}` };
}

const isProtectedGroup = (g: string) => g === 'k8s.io' || g.endsWith('.k8s.io') || g === 'kubernetes.io' || g.endsWith('.kubernetes.io');

function validateApproval(obj: KubeObject, spec: InternalSpec, old: KubeObject | undefined, request: RequestVersion): StatusCause[] {
  if (request === 'v1beta1' || !isProtectedGroup(String(spec.group ?? ''))) return [];
  const next = approvalState(obj.metadata?.annotations);
  if (old && approvalState(old.metadata?.annotations).state === next.state) return [];
  const field = key('metadata.annotations', API_APPROVED_ANNOTATION);
  if (next.state === 'approved' || next.state === 'bypassed') return [];
  if (next.state === 'missing') return [required(field, next.reason)];
  return [invalid(field, obj.metadata?.annotations?.[API_APPROVED_ANNOTATION] ?? '', next.reason)];
}

export interface CrdValidationInput {
  obj: KubeObject;
  spec: InternalSpec;
  old?: KubeObject;
  oldSpec?: InternalSpec;
  request: RequestVersion;
}

/** every cause kube's CRD strategy reports for a create (old undefined) or an update */
export function validateCrd(input: CrdValidationInput): StatusCause[] {
  const { obj, spec, old, oldSpec, request } = input;
  const out: StatusCause[] = [];
  const name = obj.metadata?.name ?? '';
  const names = isObject(spec.names) ? spec.names : {};
  if (name !== `${names.plural ?? ''}.${spec.group ?? ''}`) out.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  const opts = options(request, oldSpec, old);
  out.push(...validateSpec(spec, opts, 'spec'));
  if (old && oldSpec) {
    if (opts.requireImmutableNames) {
      if (!jsonEqual(spec.scope ?? null, oldSpec.scope ?? null)) out.push(invalid('spec.scope', spec.scope ?? '', 'field is immutable'));
      if (!jsonEqual(names.kind ?? null, oldSpec.names?.kind ?? null)) out.push(invalid('spec.names.kind', names.kind ?? '', 'field is immutable'));
    }
    if ((spec.group ?? '') !== (oldSpec.group ?? '')) out.push(invalid('spec.group', spec.group ?? '', 'field is immutable'));
    if ((names.plural ?? '') !== (oldSpec.names?.plural ?? '')) out.push(invalid('spec.names.plural', names.plural ?? '', 'field is immutable'));
  }
  const status = isObject(obj.status) ? (obj.status as CrdStatus) : {};
  out.push(...validateNames(status.acceptedNames, 'status.acceptedNames'));
  out.push(...validateStoredVersions(status, spec.versions));
  out.push(...validateApproval(obj, spec, old, request));
  if (request === 'v1' && !(oldSpec && oldSpec.preserveUnknownFields === true) && spec.preserveUnknownFields === true) {
    out.push(invalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  return out;
}

/** kube's ValidateUpdateCustomResourceDefinitionStatus (metadata is the registry's) */
export function validateCrdStatus(obj: KubeObject): StatusCause[] {
  const status = isObject(obj.status) ? (obj.status as CrdStatus) : {};
  return validateNames(status.acceptedNames, 'status.acceptedNames');
}
