/**
 * kube's ValidateStructural: a structural schema has a type everywhere it describes a value (or
 * int-or-string / preserve-unknown-fields), junctors (allOf/anyOf/oneOf/not) add only value
 * validation about fields described outside them, embedded resources are objects, and metadata at
 * the root may restrict only name and generateName. The causes are sorted by their text, as kube
 * sorts them.
 */
import type { StatusCause } from '../../errors';
import { forbidden, invalid, required } from '../../validation/field-errors';
import type { NestedValueValidation, Structural, ValueValidation } from './structural';
import { child, key } from './field-path';
import { goRegexpError } from './go-regexp';

type Level = 'root' | 'item' | 'field';


/** `{type: integer}` and `{type: string}` under anyOf: the two exceptions kube makes for int-or-string */
function isTypeOnly(n: NestedValueValidation, type: string): boolean {
  const { forbiddenGenerics: g, forbiddenExtensions: x, allOf, oneOf, anyOf, ...rest } = n;
  const restEmpty = Object.values(rest).every((v) => v === undefined);
  return (
    restEmpty &&
    allOf.length === 0 &&
    oneOf.length === 0 &&
    anyOf.length === 0 &&
    g.type === type &&
    !g.description &&
    !g.title &&
    !g.hasDefault &&
    !g.nullable &&
    !g.additionalProperties &&
    !x.preserveUnknownFields &&
    !x.embeddedResource &&
    !x.intOrString &&
    !x.listMapKeys?.length &&
    x.listType === undefined &&
    x.mapType === undefined
  );
}

const isIntOrStringAnyOf = (anyOf: NestedValueValidation[]): boolean => anyOf.length === 2 && isTypeOnly(anyOf[0], 'integer') && isTypeOnly(anyOf[1], 'string');

export function validateStructural(path: string, s: Structural): StatusCause[] {
  const causes = [...invariants(s, 'root', path), ...completeness(s, path)];
  const text = (c: StatusCause) => `${c.field}: ${c.message}`;
  return causes.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

function invariants(s: Structural | undefined, lvl: Level, path: string): StatusCause[] {
  if (!s) return [];
  const out: StatusCause[] = [];
  if (s.type === 'array' && !s.items) out.push(required(child(path, 'items'), 'must be specified'));
  out.push(...invariants(s.items, 'item', child(path, 'items')));
  for (const [k, v] of Object.entries(s.properties ?? {})) out.push(...invariants(v, 'field', key(child(path, 'properties'), k)));
  if (s.additionalProperties) {
    if (lvl === 'root') out.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (s.additionalProperties.schema) out.push(...invariants(s.additionalProperties.schema, 'field', child(path, 'additionalProperties')));
  }
  if (s.intOrString && s.preserveUnknownFields) out.push(invalid(child(path, 'x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (s.intOrString && s.embeddedResource) out.push(invalid(child(path, 'x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));

  const vv = s.valueValidation;
  const skipAnyOf = isIntOrStringAnyOf(vv.anyOf);
  const skipFirstAllOfAnyOf = vv.allOf.length >= 1 && isIntOrStringAnyOf(vv.allOf[0].anyOf);
  out.push(...valueValidation(vv, skipAnyOf, skipFirstAllOfAnyOf, path));

  const checkMetadata = lvl === 'root' || s.embeddedResource;
  if (s.embeddedResource && s.type !== 'object') {
    if (!s.type) out.push(required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'));
    else out.push(invalid(child(path, 'type'), s.type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!s.type && !s.intOrString && !s.preserveUnknownFields) {
    const what = lvl === 'root' ? 'at the root' : lvl === 'item' ? 'for specified array items' : 'for specified object fields';
    out.push(required(child(path, 'type'), `must not be empty ${what}`));
  }
  if (s.embeddedResource && s.additionalProperties) out.push(forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && s.type && s.type !== 'object') out.push(invalid(child(path, 'type'), s.type, 'must be object at the root'));

  const props = s.properties ?? {};
  if (checkMetadata && props.kind && props.kind.type !== 'string') out.push(invalid(child(key(child(path, 'properties'), 'kind'), 'type'), props.kind.type ?? '', 'must be string'));
  if (checkMetadata && props.apiVersion && props.apiVersion.type !== 'string') {
    out.push(invalid(child(key(child(path, 'properties'), 'apiVersion'), 'type'), props.apiVersion.type ?? '', 'must be string'));
  }
  if (checkMetadata && props.metadata && props.metadata.type !== 'object') {
    out.push(invalid(child(key(child(path, 'properties'), 'metadata'), 'type'), props.metadata.type ?? '', 'must be object'));
  }
  if (lvl === 'root' && props.metadata && !onlyNames(props.metadata)) {
    out.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
  }
  if (s.embeddedResource && !s.preserveUnknownFields && Object.keys(props).length === 0) {
    out.push(required(child(path, 'properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
  return out;
}

/** the root metadata schema: at most name and generateName, nothing else but its type and a default */
function onlyNames(m: Structural): boolean {
  const names = Object.keys(m.properties ?? {});
  const propsOk = names.length === 0 || names.every((n) => n === 'name' || n === 'generateName');
  const { allOf, oneOf, anyOf, ...scalars } = m.valueValidation;
  const vvEmpty = allOf.length === 0 && oneOf.length === 0 && anyOf.length === 0 && Object.values(scalars).every((v) => v === undefined);
  return (
    propsOk &&
    vvEmpty &&
    !m.items &&
    !m.description &&
    !m.title &&
    !m.nullable &&
    !m.additionalProperties &&
    !m.preserveUnknownFields &&
    !m.embeddedResource &&
    !m.intOrString &&
    !m.listMapKeys?.length &&
    m.listType === undefined &&
    m.mapType === undefined
  );
}

function valueValidation(v: ValueValidation | undefined, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, path: string): StatusCause[] {
  if (!v) return [];
  const out: StatusCause[] = [];
  if (!skipAnyOf) v.anyOf.forEach((n, i) => out.push(...nested(n, false, `${child(path, 'anyOf')}[${i}]`)));
  v.allOf.forEach((n, i) => out.push(...nested(n, skipFirstAllOfAnyOf && i === 0, `${child(path, 'allOf')}[${i}]`)));
  v.oneOf.forEach((n, i) => out.push(...nested(n, false, `${child(path, 'oneOf')}[${i}]`)));
  if (v.not) out.push(...nested(v.not, false, child(path, 'not')));
  if (v.pattern) {
    const error = goRegexpError(v.pattern);
    if (error !== undefined) out.push(invalid(child(path, 'pattern'), v.pattern, `must be a valid regular expression, but isn't: ${error}`));
  }
  return out;
}

function nested(n: NestedValueValidation, skipAnyOf: boolean, path: string): StatusCause[] {
  const out = valueValidation(n, skipAnyOf, false, path);
  if (n.items) out.push(...nested(n.items, false, child(path, 'items')));
  for (const [k, f] of Object.entries(n.properties ?? {})) out.push(...nested(f, false, key(child(path, 'properties'), k)));
  const g = n.forbiddenGenerics;
  const x = n.forbiddenExtensions;
  if (g.type) out.push(forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (g.additionalProperties) out.push(forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (g.hasDefault) out.push(forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (g.title) out.push(forbidden(child(path, 'title'), 'must be empty to be structural'));
  if (g.description) out.push(forbidden(child(path, 'description'), 'must be empty to be structural'));
  if (g.nullable) out.push(forbidden(child(path, 'nullable'), 'must be false to be structural'));
  if (x.preserveUnknownFields) out.push(forbidden(child(path, 'x-kubernetes-preserve-unknown-fields'), 'must be false to be structural'));
  if (x.embeddedResource) out.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must be false to be structural'));
  if (x.intOrString) out.push(forbidden(child(path, 'x-kubernetes-int-or-string'), 'must be false to be structural'));
  if (x.listMapKeys?.length) out.push(forbidden(child(path, 'x-kubernetes-list-map-keys'), 'must be empty to be structural'));
  if (x.listType !== undefined) out.push(forbidden(child(path, 'x-kubernetes-list-type'), 'must be undefined to be structural'));
  if (x.mapType !== undefined) out.push(forbidden(child(path, 'x-kubernetes-map-type'), 'must be undefined to be structural'));
  if (n.properties && 'metadata' in n.properties) out.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  return out;
}

/** kube's validateStructuralCompleteness: what junctors say about fields must be described outside them */
function completeness(s: Structural, path: string): StatusCause[] {
  return vvCompleteness(s.valueValidation, s, path, path);
}

function vvCompleteness(v: ValueValidation, s: Structural | undefined, sPath: string, vPath: string): StatusCause[] {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const out: StatusCause[] = [];
  if (v.not) out.push(...nestedCompleteness(v.not, s, sPath, child(vPath, 'not')));
  v.allOf.forEach((n, i) => out.push(...nestedCompleteness(n, s, sPath, `${child(vPath, 'allOf')}[${i}]`)));
  v.anyOf.forEach((n, i) => out.push(...nestedCompleteness(n, s, sPath, `${child(vPath, 'anyOf')}[${i}]`)));
  v.oneOf.forEach((n, i) => out.push(...nestedCompleteness(n, s, sPath, `${child(vPath, 'oneOf')}[${i}]`)));
  return out;
}

function nestedCompleteness(v: NestedValueValidation, s: Structural | undefined, sPath: string, vPath: string): StatusCause[] {
  if (!s) return [required(sPath, `because it is defined in ${vPath}`)];
  const out = vvCompleteness(v, s, sPath, vPath);
  if (v.items) out.push(...nestedCompleteness(v.items, s.items, child(sPath, 'items'), child(vPath, 'items')));
  for (const [k, f] of Object.entries(v.properties ?? {})) {
    const sf = s.properties?.[k];
    const sp = key(child(sPath, 'properties'), k);
    const vp = key(child(vPath, 'properties'), k);
    if (!sf) out.push(required(sp, `because it is defined in ${vp}`));
    else out.push(...nestedCompleteness(f, sf, sp, vp));
  }
  return out;
}
