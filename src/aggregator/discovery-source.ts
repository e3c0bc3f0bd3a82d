/**
 * Discovery as the aggregator sees it: the priority of every group/version (its APIService's when
 * there is one, else kube's table, else the custom resource priority; apiregistration.k8s.io above
 * everything) and the group/versions remote registrations serve, with their aggregated-discovery
 * entries.
 */
import type { DiscoveryExtension, GroupVersionPriority, RemoteGroupVersion } from '../http/discovery-extension';
import type { APIService } from './apiservice';
import { APIREGISTRATION_GROUP, apiServiceName, isRemote } from './apiservice';
import { APIREGISTRATION_PRIORITY, CUSTOM_RESOURCE_PRIORITY, builtinPriority } from './priorities';
import type { DiscoveryEntry } from './remote-discovery';

export interface DiscoverySourceOptions {
  get(name: string): APIService | undefined;
  list(): APIService[];
  entry(name: string): DiscoveryEntry;
}

function specPriority(s: APIService): GroupVersionPriority {
  return { group: s.spec.groupPriorityMinimum ?? 0, version: s.spec.versionPriority ?? 0 };
}

export function discoverySource(o: DiscoverySourceOptions): DiscoveryExtension {
  return {
    priority(group, version) {
      if (group === APIREGISTRATION_GROUP) return APIREGISTRATION_PRIORITY;
      const s = o.get(apiServiceName(group, version));
      if (s?.spec) return specPriority(s);
      return builtinPriority(group, version) ?? CUSTOM_RESOURCE_PRIORITY;
    },
    remoteVersions(): RemoteGroupVersion[] {
      return o
        .list()
        .filter(isRemote)
        .map((s) => ({
          group: s.spec.group ?? '',
          version: s.spec.version ?? '',
          priority: specPriority(s),
          discovery: () => o.entry(s.metadata.name),
        }));
    },
  };
}
