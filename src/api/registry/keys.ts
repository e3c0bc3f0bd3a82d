/**
 * Storage keys, as kube-apiserver lays them out in etcd:
 * `/registry/<group or core>/<resource>/<namespace>/<name>` for namespaced kinds and
 * `/registry/<group or core>/<resource>/<name>` for cluster-scoped ones. Kinds served in several
 * versions share one location (kind.storage), so every version reads and writes the same keys.
 */
import type { KindDefinition } from '../kind';

function base(kind: KindDefinition): string {
  return `/registry/${kind.storage.group || 'core'}/${kind.storage.resource}/`;
}

/** the key of one object */
export function objectKey(kind: KindDefinition, namespace: string | undefined, name: string): string {
  return kind.namespaced ? `${base(kind)}${namespace ?? ''}/${name}` : `${base(kind)}${name}`;
}

/**
 * the prefix of a collection: one namespace (ending in '/', so `a` never matches `ab`), or every
 * object of the kind when namespace is undefined or the kind is cluster-scoped
 */
export function collectionPrefix(kind: KindDefinition, namespace?: string): string {
  return kind.namespaced && namespace !== undefined ? `${base(kind)}${namespace}/` : base(kind);
}

/** the prefix under which every object of every namespace of the kind lives */
export function kindPrefix(kind: KindDefinition): string {
  return base(kind);
}
