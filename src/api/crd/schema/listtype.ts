/**
 * kube's ValidateListSetsAndMaps: items of x-kubernetes-list-type=set lists are unique, items of
 * list-type=map lists are objects with unique keys (x-kubernetes-list-map-keys).
 */
import type { StatusCause } from '../../errors';
import { duplicate, invalid } from '../../validation/field-errors';
import type { Structural } from './structural';
import { hasProperty } from './structural';
import { isObject } from '../types';

const join = (path: string, k: string) => (path ? `${path}.${k}` : k);

export function validateListSetsAndMaps(s: Structural | undefined, obj: unknown, path = ''): StatusCause[] {
  if (!s || !isObject(obj)) return [];
  const out: StatusCause[] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (s.additionalProperties?.schema) out.push(...one(s.additionalProperties.schema, v, `${path}[${k}]`));
    if (hasProperty(s, k)) out.push(...one(s.properties![k], v, join(path, k)));
  }
  return out;
}

function one(s: Structural, v: unknown, path: string): StatusCause[] {
  if (Array.isArray(v)) return array(s, v, path);
  if (isObject(v)) return validateListSetsAndMaps(s, v, path);
  return [];
}

/** indices of items equal to an earlier one (reported once per value, at its second occurrence) */
function nonUnique(items: unknown[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  items.forEach((x, i) => {
    const k = x === undefined ? '\u0000unset' : JSON.stringify(x);
    const times = seen.get(k) ?? 0;
    if (times === 1) out.push(i);
    seen.set(k, times + 1);
  });
  return out;
}

function array(s: Structural, items: unknown[], path: string): StatusCause[] {
  const out: StatusCause[] = [];
  if (s.listType === 'set') {
    for (const i of nonUnique(items)) out.push(duplicate(`${path}[${i}]`, items[i]));
  } else if (s.listType === 'map') {
    const bad = items.findIndex((x) => x !== null && !isObject(x));
    if (bad >= 0) out.push(invalid(`${path}[${bad}]`, items[bad], 'must be an object for an array of list-type map'));
    else if (items.length > 1) {
      const keys = s.listMapKeys ?? [];
      const keyOf = (x: unknown): Record<string, unknown> => {
        const k: Record<string, unknown> = {};
        if (isObject(x)) for (const f of keys) if (f in x) k[f] = x[f];
        return k;
      };
      const ks = items.map(keyOf);
      for (const i of nonUnique(ks)) out.push(duplicate(`${path}[${i}]`, ks[i]));
    }
  }
  if (s.items) items.forEach((x, i) => out.push(...one(s.items!, x, `${path}[${i}]`)));
  return out;
}
