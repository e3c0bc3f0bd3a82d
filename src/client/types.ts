/**
 * The shapes the client works with. Objects stay plain JSON values, as the API server keeps them;
 * only the fields every object has are typed.
 */

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  [field: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

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
