/**
 * kube's ValidateObjectMeta / ValidateObjectMetaUpdate (k8s.io/apimachinery/pkg/api/validation),
 * with kube's field paths (`metadata.name`) and messages. The registry calls these for every write.
 */
import type { StatusCause } from '../errors';
import type { KindDefinition, ObjectMeta } from '../kind';
import { duplicate, forbidden, immutable, invalid, required, tooLong } from './field-errors';
import { isDNS1123Label, isQualifiedName, isValidLabelValue, validateName } from './names';
import { jsonEqual } from '../json-value';

/** kube's TotalAnnotationSizeLimitB: 256 KiB over all keys and values */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

export interface ObjectMetaValidationOptions {
  namespaced: boolean;
  nameValidation: KindDefinition['nameValidation'];
  isCreate: boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** label keys and values: kube's ValidateLabels */
export function validateLabels(labels: unknown, field: string): StatusCause[] {
  if (labels === undefined || labels === null) return [];
  if (!isRecord(labels)) return [invalid(field, labels, 'must be a map of string keys to string values')];
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) causes.push(invalid(field, k, msg));
    if (typeof v !== 'string') {
      causes.push(invalid(field, v, 'must be a string'));
      continue;
    }
    for (const msg of isValidLabelValue(v)) causes.push(invalid(field, v, msg));
  }
  return causes;
}

/** annotation keys are qualified names compared lower-cased; the total size is capped */
export function validateAnnotations(annotations: unknown, field: string): StatusCause[] {
  if (annotations === undefined || annotations === null) return [];
  if (!isRecord(annotations)) return [invalid(field, annotations, 'must be a map of string keys to string values')];
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) causes.push(invalid(field, k, msg));
    total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) causes.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return causes;
}

function validateOwnerReferences(refs: unknown, field: string): StatusCause[] {
  if (refs === undefined || refs === null) return [];
  if (!Array.isArray(refs)) return [invalid(field, refs, 'must be a list')];
  const causes: StatusCause[] = [];
  let controllers = 0;
  refs.forEach((ref, i) => {
    const p = `${field}[${i}]`;
    const r = isRecord(ref) ? ref : {};
    const apiVersion = typeof r.apiVersion === 'string' ? r.apiVersion : '';
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (!version) causes.push(invalid(`${p}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!r.kind) causes.push(invalid(`${p}.kind`, r.kind ?? '', 'kind must not be empty'));
    if (!r.name) causes.push(invalid(`${p}.name`, r.name ?? '', 'name must not be empty'));
    if (!r.uid) causes.push(invalid(`${p}.uid`, r.uid ?? '', 'uid must not be empty'));
    if (r.controller === true) controllers++;
  });
  if (controllers > 1) {
    causes.push(invalid(field, refs, 'Only one reference can have Controller set to true'));
  }
  return causes;
}

function validateFinalizers(finalizers: unknown, field: string): StatusCause[] {
  if (finalizers === undefined || finalizers === null) return [];
  if (!Array.isArray(finalizers)) return [invalid(field, finalizers, 'must be a list')];
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  for (const f of finalizers) {
    if (typeof f !== 'string') {
      causes.push(invalid(field, f, 'must be a string'));
      continue;
    }
    for (const msg of isQualifiedName(f)) causes.push(invalid(field, f, msg));
    if (seen.has(f)) causes.push(duplicate(field, f));
    seen.add(f);
  }
  // kube: orphaning and foreground deletion cannot both be asked for
  if (seen.has('orphan') && seen.has('foregroundDeletion')) {
    causes.push(invalid(field, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return causes;
}

/** kube's ValidateObjectMeta for one object */
export function validateObjectMeta(meta: ObjectMeta | undefined, opts: ObjectMetaValidationOptions): StatusCause[] {
  const m: ObjectMeta = isRecord(meta) ? meta : {};
  const causes: StatusCause[] = [];
  const nameKind = opts.nameValidation ?? 'dns1123Subdomain';
  const generateName = typeof m.generateName === 'string' ? m.generateName : '';
  const name = typeof m.name === 'string' ? m.name : '';
  if (generateName) {
    for (const msg of validateName(nameKind, generateName, true)) causes.push(invalid('metadata.generateName', generateName, msg));
  }
  // a create with generateName gets its name before validation; without either the name is required
  if (!name) {
    if (!(opts.isCreate && generateName)) causes.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const msg of validateName(nameKind, name, false)) causes.push(invalid('metadata.name', name, msg));
  }
  const namespace = typeof m.namespace === 'string' ? m.namespace : '';
  if (opts.namespaced) {
    if (!namespace) causes.push(required('metadata.namespace', ''));
    else for (const msg of isDNS1123Label(namespace)) causes.push(invalid('metadata.namespace', namespace, msg));
  } else if (namespace) {
    causes.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  if (typeof m.generation === 'number' && m.generation < 0) {
    causes.push(invalid('metadata.generation', m.generation, 'must be greater than or equal to 0'));
  }
  causes.push(...validateLabels(m.labels, 'metadata.labels'));
  causes.push(...validateAnnotations(m.annotations, 'metadata.annotations'));
  causes.push(...validateOwnerReferences(m.ownerReferences, 'metadata.ownerReferences'));
  causes.push(...validateFinalizers(m.finalizers, 'metadata.finalizers'));
  return causes;
}

/** kube's ValidateObjectMetaUpdate: identity and system fields never change */
export function validateObjectMetaUpdate(newMeta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined): StatusCause[] {
  const n: ObjectMeta = isRecord(newMeta) ? newMeta : {};
  const o: ObjectMeta = isRecord(oldMeta) ? oldMeta : {};
  const causes: StatusCause[] = [];
  causes.push(...immutable('metadata.name', n.name, o.name));
  causes.push(...immutable('metadata.namespace', n.namespace ?? '', o.namespace ?? ''));
  causes.push(...immutable('metadata.uid', n.uid, o.uid));
  causes.push(...immutable('metadata.creationTimestamp', n.creationTimestamp, o.creationTimestamp));
  // deletion fields may be set by a delete, never changed or cleared by an update
  if (o.deletionTimestamp !== undefined && !jsonEqual(n.deletionTimestamp, o.deletionTimestamp)) {
    causes.push(invalid('metadata.deletionTimestamp', n.deletionTimestamp ?? null, 'field is immutable; may only be changed via deletion'));
  }
  if (o.deletionGracePeriodSeconds !== undefined && !jsonEqual(n.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds)) {
    causes.push(invalid('metadata.deletionGracePeriodSeconds', n.deletionGracePeriodSeconds ?? null, 'field is immutable; may only be changed via deletion'));
  }
  if (typeof n.generation === 'number' && typeof o.generation === 'number' && n.generation < o.generation) {
    causes.push(invalid('metadata.generation', n.generation, 'must not be decremented'));
  }
  return causes;
}
