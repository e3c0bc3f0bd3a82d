/**
 * Validates JSON objects against the definitions with ajv, and words the problems like kube:
 * decode errors as Go's JSON decoder does (`json: cannot unmarshal string into Go struct field
 * DeploymentSpec.spec.replicas of type int32`), field paths as kube's field.Path
 * (`spec.template.spec.containers[0].image`).
 *
 * Like kube's decoder, `null` anywhere means "unset": null-valued fields are dropped before
 * validation (so `creationTimestamp: null` in templates is fine, and a required field set to null
 * is reported as missing).
 */
import Ajv from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Definitions } from './types';
import { QUANTITY_PATTERN, toAjvSchema } from './ajv-schema';
import { goType, locate, splitPointer } from './schema-path';
import type { Location } from './schema-path';
import { findUnknownFields } from './unknown-fields';

export interface SchemaIssue {
  /** kube-style path: `spec.template.spec.containers[0].ports[1].containerPort`; '' for the root */
  field: string;
  message: string;
  type: 'type' | 'required' | 'enum' | 'format' | 'other';
}

export interface SchemaValidator {
  /** problems of `obj` against definition `schemaName`; empty when valid. Throws for an unknown name. */
  validate(schemaName: string, obj: unknown): SchemaIssue[];
  /** paths of fields `obj` has that the definition does not declare, e.g. `spec.replicaz` */
  unknownFields(schemaName: string, obj: unknown): string[];
}

const SCHEMA_ID = 'ballast-definitions';

export function createSchemaValidator(defs: Definitions): SchemaValidator {
  // strict mode stays on: the converted schema carries only standard keywords
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(toAjvSchema(defs, SCHEMA_ID));
  const compiled = new Map<string, ValidateFunction>();

  function validatorFor(name: string): ValidateFunction {
    let fn = compiled.get(name);
    if (!fn) {
      if (!defs[name]) throw new Error(`unknown schema definition ${name}`);
      fn = ajv.getSchema(`${SCHEMA_ID}#/definitions/${name}`);
      if (!fn) throw new Error(`schema definition ${name} did not compile`);
      compiled.set(name, fn);
    }
    return fn;
  }

  return {
    validate(schemaName, obj) {
      const fn = validatorFor(schemaName);
      const value = dropNulls(obj);
      if (value === undefined) return [];
      if (fn(value)) return [];
      // a null list item decodes to the zero value in Go: not a type error
      const errors = (fn.errors ?? []).filter((err) => !(err.keyword === 'type' && valueAt(value, splitPointer(err.instancePath)) === null));
      return dedupe(errors.map((err) => toIssue(defs, schemaName, value, err)));
    },
    unknownFields(schemaName, obj) {
      if (!defs[schemaName]) throw new Error(`unknown schema definition ${schemaName}`);
      return findUnknownFields(defs, { $ref: `#/definitions/${schemaName}` }, obj);
    },
  };
}

/** a copy without null-valued fields: kube's decoder treats null as unset */
function dropNulls(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.map((item) => (item === null ? null : dropNulls(item)));
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (child !== null) out[key] = dropNulls(child);
  }
  return out;
}

/** JSON's name for a value's kind, as Go's decoder words it */
function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function valueAt(root: unknown, segments: string[]): unknown {
  let data = root;
  for (const seg of segments) {
    if (data === null || typeof data !== 'object') return undefined;
    data = Array.isArray(data) ? data[Number(seg)] : (data as Record<string, unknown>)[seg];
  }
  return data;
}

function decodeError(defs: Definitions, loc: Location, what: string): string {
  const type = goType(defs, loc.node);
  if (!loc.goPath) return `json: cannot unmarshal ${what} into Go value of type ${type}`;
  return `json: cannot unmarshal ${what} into Go struct field ${loc.struct}.${loc.goPath} of type ${type}`;
}

function toIssue(defs: Definitions, root: string, value: unknown, err: ErrorObject): SchemaIssue {
  const segments = splitPointer(err.instancePath);
  const here = valueAt(value, segments);
  switch (err.keyword) {
    case 'type': {
      const loc = locate(defs, root, value, segments);
      return { field: loc.field, type: 'type', message: decodeError(defs, loc, jsonKind(here)) };
    }
    case 'required': {
      const missing = (err.params as { missingProperty: string }).missingProperty;
      const loc = locate(defs, root, value, [...segments, missing]);
      return { field: loc.field, type: 'required', message: 'Required value' };
    }
    case 'enum': {
      const loc = locate(defs, root, value, segments);
      const allowed = (err.params as { allowedValues: unknown[] }).allowedValues;
      const list = allowed.map((v) => JSON.stringify(v)).join(', ');
      return { field: loc.field, type: 'enum', message: `Unsupported value: ${JSON.stringify(here)}: supported values: ${list}` };
    }
    case 'format': {
      const loc = locate(defs, root, value, segments);
      return { field: loc.field, type: 'format', message: formatMessage(defs, loc, err, here) };
    }
    case 'pattern': {
      const loc = locate(defs, root, value, segments);
      const message =
        (err.params as { pattern: string }).pattern === QUANTITY_PATTERN
          ? `quantities must match the regular expression '${QUANTITY_PATTERN}'`
          : `must match the pattern ${(err.params as { pattern: string }).pattern}`;
      return { field: loc.field, type: 'format', message };
    }
    default: {
      const loc = locate(defs, root, value, segments);
      return { field: loc.field, type: 'other', message: err.message ?? err.keyword };
    }
  }
}

function formatMessage(defs: Definitions, loc: Location, err: ErrorObject, here: unknown): string {
  const format = (err.params as { format: string }).format;
  switch (format) {
    case 'date-time':
      // metav1.Time parses RFC 3339 with Go's reference layout
      return `parsing time ${JSON.stringify(here)} as "2006-01-02T15:04:05Z07:00": not an RFC 3339 timestamp`;
    case 'byte':
      return 'illegal base64 data';
    case 'int32':
    case 'int64':
      return decodeError(defs, loc, `number ${String(here)}`);
    default:
      return `must be a valid ${format}`;
  }
}

function dedupe(issues: SchemaIssue[]): SchemaIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.field}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
