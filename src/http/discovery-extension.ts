/**
 * What discovery needs beyond the Scheme, from whoever knows it (the aggregator): kube's priority
 * of each group/version (APIService groupPriorityMinimum and versionPriority, which order /apis),
 * and the group/versions other servers serve (remote APIServices), which join the lists and replace
 * a Scheme group/version of the same name. Without an extension discovery lists the Scheme alone,
 * in its own order.
 *
 * kube's two orders (both: highest group priority first, versions by versionPriority then by
 * Kubernetes version order):
 * - legacy /apis (kube-aggregator's apisHandler): registrations sorted by priority then by
 *   APIService name (`<version>.<group>`), each group placed where its first registration falls;
 * - aggregated discovery (the discovery ResourceManager): groups by their highest priority, then by
 *   group name.
 */
import type { Scheme } from '../api/scheme';

export interface GroupVersionPriority {
  group: number;
  version: number;
}

export type Freshness = 'Current' | 'Stale';

export interface RemoteGroupVersion {
  group: string;
  version: string;
  priority: GroupVersionPriority;
  /** the aggregated-discovery entry: the backend's resources when known, and whether they are current */
  discovery(): { resources?: object[]; freshness: Freshness };
}

export interface DiscoveryExtension {
  /** the priority of a group/version the Scheme serves */
  priority(group: string, version: string): GroupVersionPriority;
  /** group/versions served by other servers, proxied */
  remoteVersions(): RemoteGroupVersion[];
}

export interface DiscoveredVersion {
  version: string;
  /** set when another server serves it */
  remote?: RemoteGroupVersion;
}

export interface DiscoveredGroup {
  /** '' for core */
  name: string;
  /** in preference order: the first is the preferred version */
  versions: DiscoveredVersion[];
}

interface Entry {
  group: string;
  version: string;
  priority: GroupVersionPriority;
  remote?: RemoteGroupVersion;
}

function parseKubeVersion(v: string): [number, number, number] | undefined {
  const m = /^v([1-9][0-9]*)(?:(alpha|beta)([1-9][0-9]*))?$/.exec(v);
  if (!m) return undefined;
  return [m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0, Number(m[1]), Number(m[3] ?? 0)];
}

/** apimachinery's CompareKubeAwareVersionStrings: > 0 when a ranks above b (v2 > v1 > v1beta2 > v1alpha1 > others by name) */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const pa = parseKubeVersion(a);
  const pb = parseKubeVersion(b);
  if (!pa && !pb) return a < b ? 1 : -1;
  if (!pa) return -1;
  if (!pb) return 1;
  return pa[0] - pb[0] || pa[1] - pb[1] || pa[2] - pb[2];
}

function entries(scheme: Scheme, ext: DiscoveryExtension): Entry[] {
  const remote = ext.remoteVersions();
  const claimed = new Set(remote.map((r) => `${r.group}/${r.version}`));
  const out: Entry[] = [];
  for (const g of scheme.groups()) {
    for (const version of g.versions) {
      if (!claimed.has(`${g.name}/${version}`)) out.push({ group: g.name, version, priority: ext.priority(g.name, version) });
    }
  }
  for (const r of remote) out.push({ group: r.group, version: r.version, priority: r.priority, remote: r });
  return out;
}

function byVersionPriority(a: Entry, b: Entry): number {
  return b.priority.version - a.priority.version || compareKubeAwareVersions(b.version, a.version);
}

function toGroups(order: string[], byGroup: Map<string, Entry[]>): DiscoveredGroup[] {
  return order.map((name) => ({
    name,
    versions: (byGroup.get(name) ?? []).sort(byVersionPriority).map((e) => ({ version: e.version, ...(e.remote ? { remote: e.remote } : {}) })),
  }));
}

function grouped(list: Entry[]): Map<string, Entry[]> {
  const byGroup = new Map<string, Entry[]>();
  for (const e of list) {
    const l = byGroup.get(e.group);
    if (l) l.push(e);
    else byGroup.set(e.group, [e]);
  }
  return byGroup;
}

/** the groups of legacy discovery in kube-aggregator's order */
export function legacyOrder(scheme: Scheme, ext: DiscoveryExtension): DiscoveredGroup[] {
  const list = entries(scheme, ext).sort(
    (a, b) => b.priority.group - a.priority.group || (`${a.version}.${a.group}` < `${b.version}.${b.group}` ? -1 : 1),
  );
  const order: string[] = [];
  for (const e of list) if (!order.includes(e.group)) order.push(e.group);
  return toGroups(order, grouped(list));
}

/** the groups of aggregated discovery in the ResourceManager's order */
export function aggregatedOrder(scheme: Scheme, ext: DiscoveryExtension): DiscoveredGroup[] {
  const byGroup = grouped(entries(scheme, ext));
  const top = (name: string): number => Math.max(...(byGroup.get(name) ?? []).map((e) => e.priority.group));
  const order = [...byGroup.keys()].sort((a, b) => top(b) - top(a) || (a < b ? -1 : a > b ? 1 : 0));
  return toGroups(order, byGroup);
}

/** the Scheme's own order, for discovery without an extension */
export function schemeOrder(scheme: Scheme): DiscoveredGroup[] {
  return scheme.groups().map((g) => ({ name: g.name, versions: g.versions.map((version) => ({ version })) }));
}
