/**
 * Aggregated discovery (apidiscovery.k8s.io v2 and v2beta1 APIGroupDiscoveryList): kubectl 1.32
 * asks for it on /api and /apis and, when answered in that type, needs no other discovery request.
 * With a DiscoveryExtension (the aggregator), groups follow kube's priorities and the versions of
 * extension servers carry the resources their servers last reported, or none and freshness Stale
 * while a server cannot be asked (kube 1.32's discovery manager).
 */
import type { KindDefinition } from '../api/kind';
import type { Scheme } from '../api/scheme';
import { subresourceVerbs, verbsOf } from './discovery';
import { aggregatedOrder, schemeOrder } from './discovery-extension';
import type { DiscoveredVersion, DiscoveryExtension } from './discovery-extension';

export type DiscoveryVersion = 'v2' | 'v2beta1';

function resourceDiscovery(k: KindDefinition): object {
  const subresources: object[] = [];
  if (k.scale) {
    subresources.push({ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: subresourceVerbs });
  }
  if (k.statusSubresource) {
    subresources.push({ subresource: 'status', responseKind: { group: k.group, version: k.version, kind: k.kind }, verbs: subresourceVerbs });
  }
  for (const s of k.subresources ?? []) {
    subresources.push({ subresource: s.name, responseKind: s.kind ?? { group: k.group, version: k.version, kind: k.kind }, verbs: [...s.verbs].sort() });
  }
  subresources.sort((a, b) => ((a as { subresource: string }).subresource < (b as { subresource: string }).subresource ? -1 : 1));
  return {
    resource: k.resource,
    responseKind: { group: k.group, version: k.version, kind: k.kind },
    scope: k.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: k.singular,
    verbs: verbsOf(k),
    ...(k.shortNames.length > 0 ? { shortNames: [...k.shortNames] } : {}),
    ...(k.categories.length > 0 ? { categories: [...k.categories] } : {}),
    ...(subresources.length > 0 ? { subresources } : {}),
  };
}

function versionDiscovery(scheme: Scheme, group: string, v: DiscoveredVersion): object {
  if (v.remote) {
    const { resources, freshness } = v.remote.discovery();
    return { version: v.version, ...(resources && resources.length > 0 ? { resources } : {}), freshness };
  }
  return {
    version: v.version,
    resources: scheme
      .inGroupVersion(group, v.version)
      .slice()
      .sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0))
      .map(resourceDiscovery),
    freshness: 'Current',
  };
}

/** the document for /api (core: true) or /apis (every other group) */
export function aggregatedDiscovery(scheme: Scheme, core: boolean, v: DiscoveryVersion, ext?: DiscoveryExtension): object {
  const items = (ext ? aggregatedOrder(scheme, ext) : schemeOrder(scheme))
    .filter((g) => (g.name === '') === core)
    .map((g) => ({
      metadata: { ...(g.name ? { name: g.name } : {}), creationTimestamp: null },
      versions: g.versions.map((version) => versionDiscovery(scheme, g.name, version)),
    }));
  return { kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${v}`, metadata: {}, items };
}
