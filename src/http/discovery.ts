/**
 * Legacy discovery documents (what kubectl 1.20 reads, and 1.32 falls back to): /api, /apis,
 * /apis/<group>, /api/v1 and /apis/<group>/<version>, built from the Scheme and, when given, a
 * DiscoveryExtension (the aggregator: kube's group order and the groups of extension servers; their
 * /apis/<group>/<version> documents are proxied and never built here).
 */
import { createHash } from 'node:crypto';
import type { KindDefinition } from '../api/kind';
import type { Scheme } from '../api/scheme';
import { legacyOrder, schemeOrder } from './discovery-extension';
import type { DiscoveredGroup, DiscoveryExtension } from './discovery-extension';

export const defaultVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
/** verbs of the status and scale subresources */
export const subresourceVerbs = ['get', 'patch', 'update'];

export interface GroupVersionForDiscovery {
  groupVersion: string;
  version: string;
}

export interface APIGroup {
  kind?: 'APIGroup';
  apiVersion?: 'v1';
  name: string;
  versions: GroupVersionForDiscovery[];
  preferredVersion: GroupVersionForDiscovery;
}

export interface APIResource {
  name: string;
  singularName: string;
  namespaced: boolean;
  group?: string;
  version?: string;
  kind: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  storageVersionHash?: string;
}

/** kube's storage version hash: base64 of the first 8 bytes of sha256("<group>/<version>/<kind>") of the stored form */
export function storageVersionHash(k: KindDefinition): string {
  const slash = k.storageVersion.indexOf('/');
  const gv = slash < 0 ? `${k.storage.group}/${k.storageVersion}` : k.storageVersion;
  return createHash('sha256').update(`${gv}/${k.kind}`).digest().subarray(0, 8).toString('base64');
}

export function verbsOf(k: KindDefinition): string[] {
  return [...(k.verbs ?? defaultVerbs)].sort();
}

function gvOf(group: string, version: string): GroupVersionForDiscovery {
  return { groupVersion: group ? `${group}/${version}` : version, version };
}

/** GET /api */
export function apiVersions(scheme: Scheme, serverAddress: string): object {
  const core = scheme.groups().find((g) => g.name === '');
  return {
    kind: 'APIVersions',
    versions: core ? core.versions : [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function discoveredGroups(scheme: Scheme, ext: DiscoveryExtension | undefined): DiscoveredGroup[] {
  return ext ? legacyOrder(scheme, ext) : schemeOrder(scheme);
}

function toApiGroup(g: DiscoveredGroup): APIGroup {
  const versions = g.versions.map((v) => gvOf(g.name, v.version));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiGroup(scheme: Scheme, name: string, ext?: DiscoveryExtension): APIGroup | undefined {
  const g = name === '' ? undefined : discoveredGroups(scheme, ext).find((x) => x.name === name);
  return g && toApiGroup(g);
}

/** GET /apis */
export function apiGroupList(scheme: Scheme, ext?: DiscoveryExtension): object {
  const groups = discoveredGroups(scheme, ext)
    .filter((g) => g.name !== '')
    .map(toApiGroup);
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** GET /apis/<group> */
export function apiGroupDocument(scheme: Scheme, name: string, ext?: DiscoveryExtension): object | undefined {
  const g = apiGroup(scheme, name, ext);
  return g && { kind: 'APIGroup', apiVersion: 'v1', ...g };
}

/** the resources of one kind: the main resource, then its subresources (status, scale, declared ones) by name */
export function apiResources(k: KindDefinition): APIResource[] {
  const out: APIResource[] = [
    {
      name: k.resource,
      singularName: k.singular,
      namespaced: k.namespaced,
      kind: k.kind,
      verbs: verbsOf(k),
      ...(k.shortNames.length > 0 ? { shortNames: [...k.shortNames] } : {}),
      ...(k.categories.length > 0 ? { categories: [...k.categories] } : {}),
      // kube publishes a storage version hash only for resources it stores; create-only virtual
      // resources (access reviews) have none
      ...(verbsOf(k).includes('get') ? { storageVersionHash: storageVersionHash(k) } : {}),
    },
  ];
  const subs: APIResource[] = [];
  if (k.statusSubresource) {
    subs.push({ name: `${k.resource}/status`, singularName: '', namespaced: k.namespaced, kind: k.kind, verbs: subresourceVerbs });
  }
  if (k.scale) {
    subs.push({
      name: `${k.resource}/scale`,
      singularName: '',
      namespaced: k.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: subresourceVerbs,
    });
  }
  for (const s of k.subresources ?? []) {
    const sk = s.kind;
    subs.push({
      name: `${k.resource}/${s.name}`,
      singularName: '',
      namespaced: k.namespaced,
      ...(sk && (sk.group !== k.group || sk.version !== k.version) ? { group: sk.group, version: sk.version } : {}),
      kind: sk?.kind ?? k.kind,
      verbs: [...s.verbs].sort(),
    });
  }
  // kube lists a resource's subresources in name order
  return [...out, ...subs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))];
}

/** GET /api/v1 or /apis/<group>/<version> */
export function apiResourceList(scheme: Scheme, group: string, version: string): object | undefined {
  if (!scheme.hasGroupVersion(group, version)) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group ? `${group}/${version}` : version,
    resources: scheme.inGroupVersion(group, version).flatMap(apiResources),
  };
}
