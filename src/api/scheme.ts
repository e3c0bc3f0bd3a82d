/**
 * The set of served kinds, indexed the ways the API needs them: by group/version/resource for
 * routing, by group/version/kind for decoding, and by group for discovery.
 */
import type { KindDefinition } from './kind';

export interface GroupVersion {
  group: string;
  version: string;
}

export interface ServedGroup {
  /** '' for core */
  name: string;
  /** versions in preference order (the first is the preferred version) */
  versions: string[];
}

function gvKey(group: string, version: string): string {
  return `${group}/${version}`;
}

/** kube's preference among versions: GA over beta over alpha, higher numbers first */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [0, 0, 0];
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), Number(m[3] ?? 0)];
  };
  const [sa, ma, na] = parse(a);
  const [sb, mb, nb] = parse(b);
  return sb - sa || mb - ma || nb - na;
}

export class Scheme {
  readonly kinds: readonly KindDefinition[];
  readonly #byResource = new Map<string, KindDefinition>();
  readonly #byKind = new Map<string, KindDefinition>();
  readonly #groups = new Map<string, Set<string>>();

  constructor(kinds: KindDefinition[]) {
    this.kinds = Object.freeze([...kinds]);
    for (const k of kinds) {
      const rkey = `${gvKey(k.group, k.version)}/${k.resource}`;
      if (this.#byResource.has(rkey)) throw new TypeError(`kind declared twice: ${rkey}`);
      this.#byResource.set(rkey, k);
      this.#byKind.set(`${gvKey(k.group, k.version)}/${k.kind}`, k);
      let versions = this.#groups.get(k.group);
      if (!versions) this.#groups.set(k.group, (versions = new Set()));
      versions.add(k.version);
    }
  }

  /** the kind served at /apis/<group>/<version>/<resource> (group '' = /api/v1) */
  byResource(group: string, version: string, resource: string): KindDefinition | undefined {
    return this.#byResource.get(`${gvKey(group, version)}/${resource}`);
  }

  /** the kind for an apiVersion ("apps/v1" or "v1") and kind name */
  byKind(apiVersion: string, kind: string): KindDefinition | undefined {
    const gv = parseApiVersion(apiVersion);
    return this.#byKind.get(`${gvKey(gv.group, gv.version)}/${kind}`);
  }

  /** every kind served in group/version, in declaration order */
  inGroupVersion(group: string, version: string): KindDefinition[] {
    return this.kinds.filter((k) => k.group === group && k.version === version);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.#groups.get(group)?.has(version) ?? false;
  }

  /** served groups: core first, then the others in declaration order; versions in preference order */
  groups(): ServedGroup[] {
    const out: ServedGroup[] = [];
    for (const [name, versions] of this.#groups) {
      out.push({ name, versions: [...versions].sort(compareVersions) });
    }
    return out.sort((a, b) => (a.name === '' ? -1 : b.name === '' ? 1 : 0));
  }

  /** the kinds that share a storage location with k (k included), e.g. CronJob in batch/v1 and v1beta1 */
  sharingStorage(k: KindDefinition): KindDefinition[] {
    return this.kinds.filter((o) => o.storage.group === k.storage.group && o.storage.resource === k.storage.resource);
  }
}

export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function apiVersionOf(k: { group: string; version: string }): string {
  return k.group ? `${k.group}/${k.version}` : k.version;
}
