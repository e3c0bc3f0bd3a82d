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

/**
 * Built-in kinds are given at construction; custom resources (and anything else served only while
 * some object says so) are added and removed at runtime. Every change bumps `generation` and calls
 * the change listeners, so documents derived from the Scheme (OpenAPI) know to rebuild; routing
 * and discovery read the Scheme on each request and follow at once.
 */
export class Scheme {
  #kinds: readonly KindDefinition[] = Object.freeze([]);
  #byResource = new Map<string, KindDefinition>();
  #byKind = new Map<string, KindDefinition>();
  #groups = new Map<string, Set<string>>();
  #generation = 0;
  readonly #listeners = new Set<() => void>();

  constructor(kinds: KindDefinition[]) {
    this.#index([...kinds]);
  }

  /** every served kind, in declaration order (built-in first, then those added at runtime) */
  get kinds(): readonly KindDefinition[] {
    return this.#kinds;
  }

  /** bumped by every add and remove */
  get generation(): number {
    return this.#generation;
  }

  /** serve more kinds; a group/version/resource that is already served is a TypeError and nothing changes */
  add(kinds: KindDefinition[]): void {
    if (kinds.length === 0) return;
    this.#index([...this.#kinds, ...kinds]);
    this.#changed();
  }

  /** stop serving the kinds `match` selects; returns them */
  remove(match: (k: KindDefinition) => boolean): KindDefinition[] {
    const removed = this.#kinds.filter(match);
    if (removed.length === 0) return removed;
    this.#index(this.#kinds.filter((k) => !match(k)));
    this.#changed();
    return removed;
  }

  /** replace the kinds `match` selects by `kinds` in one change (a custom resource definition's update) */
  replace(match: (k: KindDefinition) => boolean, kinds: KindDefinition[]): void {
    this.#index([...this.#kinds.filter((k) => !match(k)), ...kinds]);
    this.#changed();
  }

  /** call `listener` after every change; returns its removal */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** the definitions that served kinds bring with them (custom resources), beside the built-in schema source */
  extraDefinitions(): Record<string, NonNullable<KindDefinition['definitions']>[string]> {
    const out: Record<string, NonNullable<KindDefinition['definitions']>[string]> = {};
    for (const k of this.#kinds) if (k.definitions) Object.assign(out, k.definitions);
    return out;
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
    return this.#kinds.filter((k) => k.group === group && k.version === version);
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
    return this.#kinds.filter((o) => o.storage.group === k.storage.group && o.storage.resource === k.storage.resource);
  }

  /** rebuild every index from `kinds`; throws before changing anything when a resource is declared twice */
  #index(kinds: KindDefinition[]): void {
    const byResource = new Map<string, KindDefinition>();
    const byKind = new Map<string, KindDefinition>();
    const groups = new Map<string, Set<string>>();
    for (const k of kinds) {
      const rkey = `${gvKey(k.group, k.version)}/${k.resource}`;
      if (byResource.has(rkey)) throw new TypeError(`kind declared twice: ${rkey}`);
      byResource.set(rkey, k);
      byKind.set(`${gvKey(k.group, k.version)}/${k.kind}`, k);
      let versions = groups.get(k.group);
      if (!versions) groups.set(k.group, (versions = new Set()));
      versions.add(k.version);
    }
    this.#kinds = Object.freeze(kinds);
    this.#byResource = byResource;
    this.#byKind = byKind;
    this.#groups = groups;
  }

  #changed(): void {
    this.#generation++;
    for (const listener of [...this.#listeners]) listener();
  }
}

export function parseApiVersion(apiVersion: string): GroupVersion {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

export function apiVersionOf(k: { group: string; version: string }): string {
  return k.group ? `${k.group}/${k.version}` : k.version;
}
