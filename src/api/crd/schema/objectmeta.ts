/**
 * ObjectMeta in custom objects, as kube's schema/objectmeta package handles it: the metadata of the
 * object and of every x-kubernetes-embedded-resource inside it is read as an ObjectMeta (fields of
 * the wrong type fail the decode, or are dropped when reading from storage; unknown fields are
 * dropped; a null creationTimestamp is removed), and embedded resources are validated like objects:
 * apiVersion and kind present and well formed, metadata by ValidateObjectMeta with path-segment
 * names (a missing name is fine there).
 */
import type { StatusCause } from '../../errors';
import type { ObjectMeta } from '../../kind';
import { invalid, required } from '../../validation/field-errors';
import { validateObjectMeta, isDNS1035Label } from '../../validation';
import { definitions } from '../../../schema';
import { createSchemaValidator } from '../../../schema/validator';
import type { SchemaValidator } from '../../../schema/validator';
import type { Definitions } from '../../../schema/types';
import type { Structural } from './structural';
import { hasProperty } from './structural';
import { isObject } from '../types';

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** ObjectMeta and the definitions it reaches: a small validator instead of the whole schema source */
function metaDefinitions(): Definitions {
  const out: Definitions = {};
  const queue = [OBJECT_META];
  while (queue.length) {
    const name = queue.pop()!;
    if (out[name] || !definitions[name]) continue;
    out[name] = definitions[name];
    JSON.stringify(definitions[name], (k, v) => {
      if (k === '$ref' && typeof v === 'string') queue.push(v.replace('#/definitions/', ''));
      return v;
    });
  }
  return out;
}

let validator: SchemaValidator | undefined;
/** built on first use from the frozen built-in definitions (a pure derivation, kept for the process) */
const metaValidator = (): SchemaValidator => (validator ??= createSchemaValidator(metaDefinitions()));

export interface MetadataCheck {
  /** the first decode problem (wrong JSON type), in kube's JSON decoder words */
  typeError?: string;
  /** paths of fields ObjectMeta does not have, relative to the metadata (`foo`, `labels.x` never) */
  unknown: string[];
}

/** the decode view of a metadata value: wrong types and unknown fields */
export function checkMetadata(meta: unknown): MetadataCheck {
  if (!isObject(meta)) return { typeError: 'expected object', unknown: [] };
  const v = metaValidator();
  const issues = v.validate(OBJECT_META, meta).filter((i) => i.type === 'type' || i.type === 'format');
  return { typeError: issues[0]?.message, unknown: v.unknownFields(OBJECT_META, meta) };
}

/** drop fields ObjectMeta does not have (and those of the wrong type, when reading from storage) */
export function coerceMetadata(meta: Record<string, unknown>, dropInvalid: boolean): void {
  const v = metaValidator();
  for (const path of v.unknownFields(OBJECT_META, meta)) if (!path.includes('.') && !path.includes('[')) delete meta[path];
  if (dropInvalid) {
    for (const issue of v.validate(OBJECT_META, meta)) {
      if (issue.type !== 'type' && issue.type !== 'format') continue;
      const top = issue.field.split(/[.[]/)[0];
      if (top) delete meta[top];
    }
  }
  if (meta.creationTimestamp === null) delete meta.creationTimestamp;
}

const join = (path: string, k: string) => (path ? `${path}.${k}` : k);

/**
 * kube's objectmeta.Coerce below the root: embedded resources' apiVersion and kind must be strings
 * and their metadata an ObjectMeta. Returns the first problem (a 400/422 on write) or, when
 * dropInvalid (reading from storage), drops what is wrong instead. Unknown metadata fields are
 * dropped either way; their paths are returned for fieldValidation.
 */
export function coerceEmbedded(x: unknown, s: Structural | undefined, dropInvalid: boolean, path = ''): { error?: StatusCause; unknown: string[] } {
  const unknown: string[] = [];
  const error = walkCoerce(x, s, dropInvalid, path, unknown);
  return { error, unknown };
}

function walkCoerce(x: unknown, s: Structural | undefined, dropInvalid: boolean, path: string, unknown: string[]): StatusCause | undefined {
  if (!s) return undefined;
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s.embeddedResource) {
        if (k === 'apiVersion' || k === 'kind') {
          if (typeof x[k] !== 'string') {
            if (dropInvalid) delete x[k];
            else return invalid(join(path, k), x[k], 'must be a string');
          }
        } else if (k === 'metadata') {
          const check = checkMetadata(x[k]);
          if (check.typeError && !dropInvalid) return invalid(join(path, 'metadata'), x[k], check.typeError);
          if (isObject(x[k])) {
            unknown.push(...check.unknown.filter((p) => !p.includes('.')).map((p) => `${join(path, 'metadata')}.${p}`));
            coerceMetadata(x[k] as Record<string, unknown>, dropInvalid);
          } else if (dropInvalid) delete x[k];
        }
      }
      const next = hasProperty(s, k) ? s.properties![k] : s.additionalProperties?.schema;
      const err = walkCoerce(x[k], next, dropInvalid, join(path, k), unknown);
      if (err) return err;
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const err = walkCoerce(x[i], s.items, dropInvalid, `${path}[${i}]`, unknown);
      if (err) return err;
    }
  }
  return undefined;
}

/** kube's ParseGroupVersion problems */
function groupVersionError(apiVersion: string): string | undefined {
  if (apiVersion === '' || apiVersion === '/') return undefined;
  return apiVersion.split('/').length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

/** kube's objectmeta.Validate: every embedded resource below the root (the root is the registry's) */
export function validateEmbedded(x: unknown, s: Structural | undefined, path = ''): StatusCause[] {
  if (!s) return [];
  const out: StatusCause[] = [];
  if (isObject(x)) {
    if (s.embeddedResource) out.push(...embeddedResource(x, path));
    for (const k of Object.keys(x)) {
      if (hasProperty(s, k)) out.push(...validateEmbedded(x[k], s.properties![k], join(path, k)));
      else if (s.additionalProperties) out.push(...validateEmbedded(x[k], s.additionalProperties.schema, `${path}[${k}]`));
    }
  } else if (Array.isArray(x)) {
    x.forEach((item, i) => out.push(...validateEmbedded(item, s.items, `${path}[${i}]`)));
  }
  return out;
}

function embeddedResource(x: Record<string, unknown>, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (!('apiVersion' in x)) out.push(required(join(path, 'apiVersion'), 'must not be empty'));
  if (!('kind' in x)) out.push(required(join(path, 'kind'), 'must not be empty'));
  for (const [k, v] of Object.entries(x)) {
    if (k === 'apiVersion') {
      if (typeof v !== 'string') out.push(invalid(join(path, k), v, 'must be a string'));
      else if (!v) out.push(invalid(join(path, k), v, 'must not be empty'));
      else {
        const e = groupVersionError(v);
        if (e) out.push(invalid(join(path, k), v, e));
      }
    } else if (k === 'kind') {
      if (typeof v !== 'string') out.push(invalid(join(path, k), v, 'must be a string'));
      else if (!v) out.push(invalid(join(path, k), v, 'must not be empty'));
      else {
        const errs = isDNS1035Label(v.toLowerCase());
        if (errs.length) out.push(invalid(join(path, k), v, `may have mixed case, but should otherwise match: ${errs.join(',')}`));
      }
    } else if (k === 'metadata') {
      const check = checkMetadata(v);
      if (check.typeError) {
        out.push(invalid(join(path, 'metadata'), v, check.typeError));
        continue;
      }
      const meta = { ...(v as ObjectMeta) };
      if (!meta.name) meta.name = 'fakename';
      const causes = validateObjectMeta(meta, { namespaced: typeof meta.namespace === 'string' && meta.namespace !== '', nameValidation: 'pathSegment', isCreate: false });
      for (const c of causes) out.push({ ...c, field: c.field ? join(path, c.field) : c.field });
    }
  }
  return out;
}
