/**
 * Validation of a custom object against its version's OpenAPI v3 schema, as kube does it with
 * kube-openapi's SchemaValidator and words it in ValidateCustomResource:
 *
 *   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
 *   spec.cronSpec: Required value
 *   spec.mode: Unsupported value: "x": supported values: "fast", "slow"
 *   <nil>: Invalid value: "": "spec.port" must validate at least one schema (anyOf)
 *
 * Per schema node the checks run in kube-openapi's order: type, junctors (allOf/anyOf/oneOf/not),
 * string (first failure only), format, number, list, enum, object. List items are named
 * `spec.items[0].name`, as kube 1.32 names them. Formats kube does not support are not checked.
 */
import type { StatusCause } from '../../errors';
import { invalid, notSupported, required } from '../../validation/field-errors';
import { jsonEqual } from '../../json-value';
import type { JSONSchemaProps } from '../types';
import { isObject } from '../types';
import { checkFormat, supportsFormat } from './formats';
import { goRegexpError, goRegexpMatches } from './go-regexp';

interface Issue {
  kind: 'required' | 'enum' | 'invalid' | 'composite';
  /** dotted path; '' for the root */
  name: string;
  value?: unknown;
  values?: unknown[];
  message: string;
}

const inBody = (name: string, text: string): string => `${name} in body ${text}`;

/** the JSON type kube-openapi reads a decoded value as */
function jsonType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (Array.isArray(v)) return 'array';
  return 'object';
}

/** Go's %v of a float64 bound */
const num = (n: number): string => String(n);

class Validator {
  readonly issues: Issue[] = [];

  run(s: JSONSchemaProps, data: unknown, path: string): void {
    const types = s['x-kubernetes-int-or-string'] ? ['integer', 'string'] : typeof s.type === 'string' && s.type ? [s.type] : [];
    if (data === null || data === undefined) {
      // kube-openapi runs only the type and enum checks on null
      if (types.length && !s.nullable) this.issues.push({ kind: 'invalid', name: path, value: 'null', message: inBody(path, `must be of type ${types.join(',')}: "null"`) });
      this.enumCheck(s, data, path);
      return;
    }
    const actual = jsonType(data);
    if (types.length && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
      this.issues.push({ kind: 'invalid', name: path, value: actual, message: inBody(path, `must be of type ${types.join(',')}: "${actual}"`) });
    }
    this.junctors(s, data, path);
    if (typeof data === 'string') this.stringChecks(s, data, path);
    if (typeof data === 'string' && s.format && supportsFormat(s.format) && !checkFormat(s.format, data)) {
      this.issues.push({ kind: 'invalid', name: path, value: data, message: inBody(path, `must be of type ${s.format}: ${JSON.stringify(data)}`) });
    }
    if (typeof data === 'number') this.numberChecks(s, data, path);
    if (Array.isArray(data)) this.listChecks(s, data, path);
    this.enumCheck(s, data, path);
    if (isObject(data)) this.objectChecks(s, data, path);
  }

  private sub(s: JSONSchemaProps, data: unknown, path: string): Issue[] {
    const v = new Validator();
    v.run(s, data, path);
    return v.issues;
  }

  private junctors(s: JSONSchemaProps, data: unknown, path: string): void {
    const schemas = (l: unknown) => (Array.isArray(l) ? l.filter(isObject) : []) as JSONSchemaProps[];
    const anyOf = schemas(s.anyOf);
    if (anyOf.length) {
      let best: Issue[] | undefined;
      let ok = false;
      for (const x of anyOf) {
        const r = this.sub(x, data, path);
        if (r.length === 0) {
          ok = true;
          break;
        }
        if (!best || r.length < best.length) best = r;
      }
      if (!ok) {
        this.issues.push({ kind: 'composite', name: path, message: `"${path}" must validate at least one schema (anyOf)` });
        this.issues.push(...(best ?? []));
      }
    }
    const oneOf = schemas(s.oneOf);
    if (oneOf.length) {
      let valid = 0;
      let best: Issue[] | undefined;
      for (const x of oneOf) {
        const r = this.sub(x, data, path);
        if (r.length === 0) valid++;
        else if (valid === 0 && (!best || r.length < best.length)) best = r;
      }
      if (valid !== 1) {
        const extra = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
        this.issues.push({ kind: 'composite', name: path, message: `"${path}" must validate one and only one schema (oneOf). ${extra}` });
        if (valid === 0) this.issues.push(...(best ?? []));
      }
    }
    const allOf = schemas(s.allOf);
    if (allOf.length) {
      let valid = 0;
      for (const x of allOf) {
        const r = this.sub(x, data, path);
        if (r.length === 0) valid++;
        this.issues.push(...r);
      }
      if (valid !== allOf.length) {
        this.issues.push({ kind: 'composite', name: path, message: `"${path}" must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}` });
      }
    }
    if (isObject(s.not) && this.sub(s.not as JSONSchemaProps, data, path).length === 0) {
      this.issues.push({ kind: 'composite', name: path, message: `"${path}" must not validate the schema (not)` });
    }
  }

  private stringChecks(s: JSONSchemaProps, data: string, path: string): void {
    const length = [...data].length;
    if (typeof s.maxLength === 'number' && length > s.maxLength) {
      this.issues.push({ kind: 'invalid', name: path, value: data, message: inBody(path, `should be at most ${s.maxLength} chars long`) });
      return;
    }
    if (typeof s.minLength === 'number' && length < s.minLength) {
      this.issues.push({ kind: 'invalid', name: path, value: data, message: inBody(path, `should be at least ${s.minLength} chars long`) });
      return;
    }
    // a Go pattern (the CRD's validation refused invalid ones; one stored before is not applied)
    if (typeof s.pattern === 'string' && s.pattern && goRegexpError(s.pattern) === undefined) {
      if (!goRegexpMatches(s.pattern, data)) this.issues.push({ kind: 'invalid', name: path, value: data, message: inBody(path, `should match '${s.pattern}'`) });
    }
  }

  private numberChecks(s: JSONSchemaProps, data: number, path: string): void {
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
      const q = data / s.multipleOf;
      if (Math.abs(q - Math.round(q)) > 1e-9) this.issues.push({ kind: 'invalid', name: path, value: data, message: inBody(path, `should be a multiple of ${num(s.multipleOf)}`) });
    }
    if (typeof s.minimum === 'number') {
      const bad = s.exclusiveMinimum ? data <= s.minimum : data < s.minimum;
      if (bad) {
        const text = s.exclusiveMinimum ? `should be greater than ${num(s.minimum)}` : `should be greater than or equal to ${num(s.minimum)}`;
        this.issues.push({ kind: 'invalid', name: path, value: data, message: inBody(path, text) });
      }
    }
    if (typeof s.maximum === 'number') {
      const bad = s.exclusiveMaximum ? data >= s.maximum : data > s.maximum;
      if (bad) {
        const text = s.exclusiveMaximum ? `should be less than ${num(s.maximum)}` : `should be less than or equal to ${num(s.maximum)}`;
        this.issues.push({ kind: 'invalid', name: path, value: data, message: inBody(path, text) });
      }
    }
  }

  private listChecks(s: JSONSchemaProps, data: unknown[], path: string): void {
    if (isObject(s.items)) data.forEach((item, i) => this.run(s.items as JSONSchemaProps, item, `${path}[${i}]`));
    if (typeof s.minItems === 'number' && data.length < s.minItems) {
      this.issues.push({ kind: 'invalid', name: path, value: data.length, message: inBody(path, `should have at least ${s.minItems} items`) });
    }
    if (typeof s.maxItems === 'number' && data.length > s.maxItems) {
      this.issues.push({ kind: 'invalid', name: path, value: data.length, message: inBody(path, `should have at most ${s.maxItems} items`) });
    }
    if (s.uniqueItems && data.some((a, i) => data.some((b, j) => j > i && jsonEqual(a, b)))) {
      this.issues.push({ kind: 'invalid', name: path, message: inBody(path, "shouldn't contain duplicates") });
    }
  }

  private enumCheck(s: JSONSchemaProps, data: unknown, path: string): void {
    if (!Array.isArray(s.enum) || s.enum.length === 0) return;
    if (s.enum.some((e) => jsonEqual(e, data))) return;
    this.issues.push({ kind: 'enum', name: path, value: data, values: s.enum, message: inBody(path, `should be one of ${JSON.stringify(s.enum)}`) });
  }

  private objectChecks(s: JSONSchemaProps, data: Record<string, unknown>, path: string): void {
    const count = Object.keys(data).length;
    if (typeof s.minProperties === 'number' && count < s.minProperties) {
      this.issues.push({ kind: 'invalid', name: path, value: s.minProperties, message: inBody(path, `should have at least ${s.minProperties} properties`) });
      return;
    }
    if (typeof s.maxProperties === 'number' && count > s.maxProperties) {
      this.issues.push({ kind: 'invalid', name: path, value: s.maxProperties, message: inBody(path, `should have at most ${s.maxProperties} properties`) });
      return;
    }
    const props = isObject(s.properties) ? s.properties : {};
    const child = (k: string) => (path ? `${path}.${k}` : k);
    if (s.additionalProperties === false) {
      for (const k of Object.keys(data)) {
        if (!Object.prototype.hasOwnProperty.call(props, k)) this.issues.push({ kind: 'invalid', name: path, value: k, message: `${child(k)} in body is a forbidden property` });
      }
    } else if (isObject(s.additionalProperties)) {
      for (const [k, v] of Object.entries(data)) {
        if (!Object.prototype.hasOwnProperty.call(props, k)) this.run(s.additionalProperties as JSONSchemaProps, v, child(k));
      }
    }
    for (const [k, ps] of Object.entries(props)) {
      if (isObject(ps) && Object.prototype.hasOwnProperty.call(data, k)) this.run(ps as JSONSchemaProps, data[k], child(k));
    }
    if (Array.isArray(s.required)) {
      for (const k of s.required) if (!Object.prototype.hasOwnProperty.call(data, k)) this.issues.push({ kind: 'required', name: child(k), message: '' });
    }
  }
}

/** the problems of `data` against `schema`, as kube's causes; fieldPrefix is kube's fldPath ('' for a custom object) */
export function validateValue(schema: JSONSchemaProps | undefined, data: unknown, fieldPrefix = ''): StatusCause[] {
  if (!schema) return [];
  const v = new Validator();
  v.run(schema, data, '');
  const join = (name: string) => (fieldPrefix ? (name ? `${fieldPrefix}.${name}` : fieldPrefix) : name || '<nil>');
  return v.issues.map((i) => {
    switch (i.kind) {
      case 'required':
        return required(join(i.name));
      case 'enum':
        return notSupported(join(i.name), i.value, (i.values ?? []).map((x) => (typeof x === 'string' ? x : JSON.stringify(x))));
      case 'composite':
        return invalid(fieldPrefix || '<nil>', '', i.message);
      default:
        return invalid(join(i.name), i.value ?? '', i.message);
    }
  });
}
