/**
 * The conversion of kinds whose versions have the same fields (IngressClass, PriorityClass,
 * RuntimeClass v1beta1, the storage.k8s.io kinds): only apiVersion changes, both ways.
 */
import type { KindDefinition, KubeObject } from '../kind';
import { clone } from './util';

export function sameFieldsConversion(apiVersion: string, storageApiVersion: string): Pick<KindDefinition, 'fromStorage' | 'toStorage'> {
  return {
    fromStorage: (obj: KubeObject): KubeObject => ({ ...clone(obj), apiVersion }),
    toStorage: (obj: KubeObject): KubeObject => ({ ...clone(obj), apiVersion: storageApiVersion }),
  };
}
