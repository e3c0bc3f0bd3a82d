/**
 * The scale subresource of a custom resource version (autoscaling/v1 Scale) from the CRD's paths:
 * specReplicasPath, statusReplicasPath and labelSelectorPath (simple dotted paths, as kube's
 * unstructured.Nested* read them). Missing values read as 0 and ''.
 */
import type { KubeObject, ScaleDefinition } from '../kind';
import type { ScaleSubresource } from './types';
import { isObject } from './types';

export const pathKeys = (path: string): string[] => path.replace(/^\./, '').split('.');

export function nested(obj: unknown, keys: string[]): unknown {
  let cur = obj;
  for (const k of keys) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

export function customScale(scale: ScaleSubresource): ScaleDefinition {
  const spec = pathKeys(scale.specReplicasPath ?? '.spec.replicas');
  const status = pathKeys(scale.statusReplicasPath ?? '.status.replicas');
  const selector = scale.labelSelectorPath ? pathKeys(scale.labelSelectorPath) : undefined;
  const int = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? v : 0);
  return {
    getSpecReplicas: (obj) => int(nested(obj, spec)),
    setSpecReplicas(obj: KubeObject, replicas: number) {
      let cur: Record<string, unknown> = obj;
      for (const k of spec.slice(0, -1)) {
        if (!isObject(cur[k])) cur[k] = {};
        cur = cur[k] as Record<string, unknown>;
      }
      cur[spec[spec.length - 1]] = replicas;
    },
    getStatusReplicas: (obj) => int(nested(obj, status)),
    getSelector(obj) {
      const v = selector ? nested(obj, selector) : undefined;
      return typeof v === 'string' ? v : '';
    },
  };
}
