/**
 * The aggregated-discovery entries of remote group/versions, as kube 1.32's discovery manager keeps
 * them: each registration's server is asked for its aggregated /apis (and, when it answers in
 * another type, for its legacy /apis/<group>/<version>, converted); the entry is Current when the
 * server answered and Stale, without resources, when it could not be asked (not Available,
 * unreachable, 503). Entries are refreshed when the registration changes and every minute.
 */
import type pino from 'pino';
import type { APIService } from './apiservice';
import { isRemote } from './apiservice';
import type { FetchedResponse } from './proxy';
import type { UserIdentity } from './front-proxy-headers';
import { SingleFlight } from './single-flight';

export const ACCEPT_AGGREGATED =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';

/** the identity kube's discovery manager asks with */
export const DISCOVERY_USER: UserIdentity = Object.freeze({ name: 'system:kube-aggregator', groups: ['system:masters'] });

export interface DiscoveryEntry {
  resources?: object[];
  freshness: 'Current' | 'Stale';
}

export interface RemoteDiscoveryOptions {
  fetch(s: APIService, path: string, accept: string): Promise<FetchedResponse>;
  /** called after an entry changed */
  onChange?: () => void;
  logger?: pino.Logger;
  /** kube: every minute */
  refreshMs?: number;
}

const STALE: DiscoveryEntry = Object.freeze({ freshness: 'Stale' });

/** true when the Content-Type names an aggregated discovery list */
function isAggregated(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const params = new Map(
    contentType
      .split(';')
      .slice(1)
      .map((p) => p.trim().split('=') as [string, string]),
  );
  return params.get('g') === 'apidiscovery.k8s.io' && ['v2', 'v2beta1'].includes(params.get('v') ?? '') && params.get('as') === 'APIGroupDiscoveryList';
}

interface LegacyResource {
  name: string;
  singularName?: string;
  namespaced?: boolean;
  group?: string;
  version?: string;
  kind?: string;
  verbs?: string[];
  shortNames?: string[];
  categories?: string[];
}

/** kube's ConvertGroupVersionIntoToDiscovery: resources with their subresources folded in */
export function convertLegacyResources(list: LegacyResource[]): object[] {
  const out: Array<Record<string, unknown>> = [];
  const parents = new Map<string, Record<string, unknown>>();
  for (const r of list) {
    if (r.name.includes('/')) continue;
    const entry: Record<string, unknown> = {
      resource: r.name,
      responseKind: { group: r.group ?? '', version: r.version ?? '', kind: r.kind ?? '' },
      scope: r.namespaced ? 'Namespaced' : 'Cluster',
      ...(r.singularName ? { singularResource: r.singularName } : {}),
      verbs: r.verbs ?? [],
      ...(r.shortNames?.length ? { shortNames: r.shortNames } : {}),
      ...(r.categories?.length ? { categories: r.categories } : {}),
    };
    out.push(entry);
    parents.set(r.name, entry);
  }
  for (const r of list) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parent = parents.get(r.name.slice(0, slash));
    if (!parent) continue;
    const sub: Record<string, unknown> = { subresource: r.name.slice(slash + 1) };
    if (r.kind) sub.responseKind = { group: r.group ?? '', version: r.version ?? '', kind: r.kind };
    sub.verbs = r.verbs ?? [];
    parent.subresources = [...((parent.subresources as unknown[]) ?? []), sub];
  }
  return out;
}

export class RemoteDiscovery {
  readonly #o: RemoteDiscoveryOptions;
  readonly #services = new Map<string, APIService>();
  readonly #entries = new Map<string, DiscoveryEntry>();
  readonly #flights = new SingleFlight((name) => this.#fetch(name));
  #timer: NodeJS.Timeout | undefined;

  constructor(o: RemoteDiscoveryOptions) {
    this.#o = o;
  }

  start(): void {
    this.#timer = setInterval(() => {
      for (const name of this.#services.keys()) void this.refresh(name);
    }, this.#o.refreshMs ?? 60_000);
    this.#timer.unref?.();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** the registration `name` changed (undefined: deleted) */
  update(name: string, s: APIService | undefined): void {
    if (!s || !isRemote(s)) {
      this.#services.delete(name);
      if (this.#entries.delete(name)) this.#o.onChange?.();
      return;
    }
    this.#services.set(name, s);
    void this.refresh(name);
  }

  entry(name: string): DiscoveryEntry {
    return this.#entries.get(name) ?? STALE;
  }

  /** fetch again; a refresh asked for while one runs runs once more after it */
  refresh(name: string): Promise<void> {
    return this.#flights.refresh(name);
  }

  async #fetch(name: string): Promise<void> {
    const s = this.#services.get(name);
    if (!s) return;
    let entry: DiscoveryEntry;
    try {
      entry = await this.#download(s);
    } catch (err) {
      this.#o.logger?.debug({ err, apiService: name }, 'discovery: backend not asked; stale');
      entry = STALE;
    }
    if (!this.#services.has(name)) return;
    const before = JSON.stringify(this.#entries.get(name));
    this.#entries.set(name, entry);
    if (JSON.stringify(entry) !== before) this.#o.onChange?.();
  }

  async #download(s: APIService): Promise<DiscoveryEntry> {
    const group = s.spec.group ?? '';
    const version = s.spec.version ?? '';
    const agg = await this.#o.fetch(s, '/apis', ACCEPT_AGGREGATED);
    if (agg.status === 503) throw new Error(`service returned non-success response code: ${agg.status}`);
    if (agg.status === 200 && isAggregated(agg.headers['content-type'])) {
      const list = JSON.parse(agg.body.toString('utf8')) as { items?: Array<{ metadata?: { name?: string }; versions?: Array<{ version: string; resources?: object[] }> }> };
      const found = list.items?.find((g) => (g.metadata?.name ?? '') === group)?.versions?.find((v) => v.version === version);
      return { ...(found?.resources?.length ? { resources: found.resources } : {}), freshness: 'Current' };
    }
    const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const legacy = await this.#o.fetch(s, path, 'application/json');
    if (legacy.status !== 200) throw new Error(`failed to download legacy discovery for ${path}: ${legacy.status}`);
    const parsed = JSON.parse(legacy.body.toString('utf8')) as { resources?: LegacyResource[] };
    const resources = convertLegacyResources(parsed.resources ?? []);
    return { ...(resources.length ? { resources } : {}), freshness: 'Current' };
  }
}
