/**
 * The shapes the client works with. Objects stay plain JSON values, as the API server keeps them;
 * only the fields every object has are typed.
 */

// the object shapes are the API server's own: one definition of what every object has
import type { KubeObject } from '../api/kind';
export type { KubeObject, ObjectMeta, OwnerReference } from '../api/kind';

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata?: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  items: T[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** one resource of one group/version, as discovery names it */
export interface ResourceRef {
  group: string;
  version: string;
  /** plural lowercase name, e.g. `deployments` */
  resource: string;
  kind: string;
  namespaced: boolean;
}

/** `namespace/name`, or `name` for cluster-scoped objects: client-go's MetaNamespaceKeyFunc */
export function objectKey(obj: KubeObject): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns ? `${ns}/${name}` : name;
}

/** the namespace and name of a key made by objectKey */
export function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
