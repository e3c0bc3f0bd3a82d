/**
 * kube's structural pruning: fields a structural schema does not describe are dropped, except
 * below x-kubernetes-preserve-unknown-fields (where described fields are still pruned inside) and
 * apiVersion/kind/metadata of a resource (the root and x-kubernetes-embedded-resource objects),
 * which ObjectMeta handling covers (objectmeta.ts). Returns the paths of what was dropped, as kube
 * 1.25+ reports them under fieldValidation (`spec.foo`, `spec.items[0].bar`).
 */
import type { Structural } from './structural';
import { hasProperty } from './structural';
import { isObject } from '../types';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** prune obj in place; isResourceRoot treats obj as a whole resource (custom objects, defaults of one) */
export function prune(obj: unknown, s: Structural | undefined, isResourceRoot: boolean): string[] {
  const dropped: string[] = [];
  let schema = s;
  if (isResourceRoot) schema = { ...(s ?? { hasDefault: false, nullable: false, preserveUnknownFields: false, embeddedResource: false, intOrString: false, valueValidation: { allOf: [], oneOf: [], anyOf: [] } }), embeddedResource: true };
  walk(obj, schema, '', dropped);
  return dropped;
}

const join = (path: string, k: string) => (path ? `${path}.${k}` : k);

function walk(x: unknown, s: Structural | undefined, path: string, dropped: string[]): void {
  if (s?.preserveUnknownFields) {
    skip(x, s, path, dropped);
    return;
  }
  if (isObject(x)) {
    if (!s) {
      for (const k of Object.keys(x)) {
        dropped.push(join(path, k));
        delete x[k];
      }
      return;
    }
    for (const k of Object.keys(x)) {
      if (s.embeddedResource && META_FIELDS.has(k)) continue;
      if (hasProperty(s, k)) walk(x[k], s.properties![k], join(path, k), dropped);
      else if (s.additionalProperties) walk(x[k], s.additionalProperties.schema, join(path, k), dropped);
      else {
        dropped.push(join(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((item, i) => walk(item, s?.items, `${path}[${i}]`, dropped));
  }
}

/** below preserve-unknown-fields: keep unknown keys, prune inside the described ones */
function skip(x: unknown, s: Structural, path: string, dropped: string[]): void {
  if (isObject(x)) {
    for (const k of Object.keys(x)) {
      if (s.embeddedResource && META_FIELDS.has(k)) continue;
      if (hasProperty(s, k)) walk(x[k], s.properties![k], join(path, k), dropped);
      else if (s.additionalProperties) walk(x[k], s.additionalProperties.schema, join(path, k), dropped);
    }
  } else if (Array.isArray(x) && s.items) {
    x.forEach((item, i) => skip(item, s.items!, `${path}[${i}]`, dropped));
  }
}
