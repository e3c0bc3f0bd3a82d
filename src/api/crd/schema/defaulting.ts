/**
 * kube's structural defaulting: a missing field (or a null one that is not nullable) whose schema
 * has a default gets a copy of it; list items and map values that are null get their schema's
 * default. Applied to request bodies and to objects read from storage, in the version's schema.
 * Also kube's PruneNonNullableNullsWithoutDefaults, which drops such nulls before defaulting, and
 * PruneDefaults, which prunes the default values themselves.
 */
import type { Structural } from './structural';
import { fieldSchema, hasProperty } from './structural';
import { isObject } from '../types';
import { prune } from './pruning';

const nonNullableNull = (x: unknown, s: Structural | undefined): boolean => x === null && !!s && !s.nullable;

export function applyDefaults(x: unknown, s: Structural | undefined): void {
  if (!s) return;
  if (isObject(x)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (!prop.hasDefault) continue;
      if (!Object.prototype.hasOwnProperty.call(x, k) || nonNullableNull(x[k], prop)) x[k] = structuredClone(prop.default);
    }
    for (const k of Object.keys(x)) {
      if (hasProperty(s, k)) applyDefaults(x[k], s.properties![k]);
      else if (s.additionalProperties?.schema) {
        const vs = s.additionalProperties.schema;
        if (nonNullableNull(x[k], vs) && vs.hasDefault) x[k] = structuredClone(vs.default);
        applyDefaults(x[k], vs);
      }
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (nonNullableNull(x[i], s.items) && s.items?.hasDefault) x[i] = structuredClone(s.items.default);
      applyDefaults(x[i], s.items);
    }
  }
}

/** drop null fields whose schema neither allows null nor has a default (kube drops them when decoding) */
export function pruneNonNullableNulls(x: unknown, s: Structural | undefined): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      const fs = fieldSchema(s, k);
      if (x[k] === null && fs && !fs.nullable && !fs.hasDefault) delete x[k];
      else pruneNonNullableNulls(x[k], fs);
    }
  } else if (Array.isArray(x)) {
    for (const item of x) pruneNonNullableNulls(item, s?.items);
  }
}

/** kube's PruneDefaults: every default loses the fields its own schema would prune (in place) */
export function pruneDefaults(s: Structural | undefined): void {
  if (!s) return;
  if (s.hasDefault && s.default !== null && typeof s.default === 'object') {
    const copy = structuredClone(s.default);
    prune(copy, s, false);
    s.default = copy;
  }
  pruneDefaults(s.additionalProperties?.schema);
  pruneDefaults(s.items);
  for (const p of Object.values(s.properties ?? {})) pruneDefaults(p);
}
