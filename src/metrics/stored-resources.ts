/**
 * The resources apiserver_storage_objects reports: one entry per storage location of the served
 * kinds (kinds served in several versions share one), leaving out kinds answered without storage
 * (reviews, componentstatuses, bindings), which kube does not report either.
 */
import type { KindDefinition } from '../api/kind';
import { kindPrefix } from '../api/registry/keys';
import type { StoredResource } from './storage-pollers';

/** `group/resource` of a kind's storage location ('' group for core) */
export function storageLocation(k: Pick<KindDefinition, 'storage'>): string {
  return `${k.storage.group}/${k.storage.resource}`;
}

/** kube's resource label: `configmaps`, `deployments.apps` */
export function resourceLabel(k: Pick<KindDefinition, 'storage'>): string {
  return k.storage.group ? `${k.storage.resource}.${k.storage.group}` : k.storage.resource;
}

export function storedResources(kinds: readonly KindDefinition[], unstored: ReadonlySet<string>): StoredResource[] {
  const seen = new Set<string>();
  const out: StoredResource[] = [];
  for (const k of kinds) {
    const where = storageLocation(k);
    if (unstored.has(where) || seen.has(where)) continue;
    seen.add(where);
    out.push({ resource: resourceLabel(k), prefix: kindPrefix(k) });
  }
  return out;
}
