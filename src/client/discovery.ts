/**
 * A small discovery client (client-go's ServerPreferredResources): the resources the server serves
 * at each group's preferred version, with their verbs, read from /api and /apis. Subresources are
 * left out. The garbage collector and the namespace controller build their work from it, so it can
 * be re-read on a period and at once when CRDs or APIServices change (ResourceWatcher).
 */
import type { Logger } from 'pino';
import type { RestClient } from './rest-client';
import { sleep } from './sleep';
import type { ResourceRef } from './types';

export interface DiscoveredResource extends ResourceRef {
  readonly verbs: readonly string[];
}

interface ApiResourceList {
  resources?: Array<{ name: string; namespaced?: boolean; kind: string; verbs?: string[] }>;
}
interface ApiGroupList {
  groups?: Array<{ name: string; preferredVersion?: { version: string }; versions?: Array<{ version: string }> }>;
}

/** what failed while reading one group/version (client-go's ErrGroupDiscoveryFailed) */
export class GroupDiscoveryFailedError extends Error {
  constructor(readonly failures: ReadonlyMap<string, Error>) {
    super(`unable to retrieve the complete list of server APIs: ${[...failures].map(([gv, e]) => `${gv}: ${e.message}`).join(', ')}`);
  }
}

export interface DiscoveryResult {
  resources: DiscoveredResource[];
  /** group/versions that could not be read (their resources are missing from `resources`) */
  failed: ReadonlyMap<string, Error>;
}

export class DiscoveryClient {
  readonly #client: RestClient;

  constructor(client: RestClient) {
    this.#client = client;
  }

  /** every resource at its group's preferred version; partial results come with the failures */
  async preferredResources(): Promise<DiscoveryResult> {
    const gvs: Array<{ group: string; version: string }> = [];
    const core = (await this.#client.request('GET', '/api')) as { versions?: string[] };
    if (core.versions?.includes('v1')) gvs.push({ group: '', version: 'v1' });
    const groups = (await this.#client.request('GET', '/apis')) as ApiGroupList;
    for (const g of groups.groups ?? []) {
      const version = g.preferredVersion?.version ?? g.versions?.[0]?.version;
      if (version) gvs.push({ group: g.name, version });
    }
    const failed = new Map<string, Error>();
    const lists = await Promise.all(
      gvs.map(async (gv) => {
        const path = gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`;
        try {
          return { gv, list: (await this.#client.request('GET', path)) as ApiResourceList };
        } catch (err) {
          failed.set(gv.group ? `${gv.group}/${gv.version}` : gv.version, err as Error);
          return { gv, list: {} as ApiResourceList };
        }
      }),
    );
    const resources: DiscoveredResource[] = [];
    for (const { gv, list } of lists) {
      for (const r of list.resources ?? []) {
        if (r.name.includes('/')) continue;
        resources.push(Object.freeze({ group: gv.group, version: gv.version, resource: r.name, kind: r.kind, namespaced: !!r.namespaced, verbs: Object.freeze([...(r.verbs ?? [])]) }));
      }
    }
    return { resources, failed };
  }
}

/** the resources that serve every one of `verbs` */
export function withVerbs(resources: readonly DiscoveredResource[], ...verbs: string[]): DiscoveredResource[] {
  return resources.filter((r) => verbs.every((v) => r.verbs.includes(v)));
}

/** `group/version/resource`, the identity of a resource across discovery reads */
export function resourceId(r: ResourceRef): string {
  return `${r.group}/${r.version}/${r.resource}`;
}

export interface ResourceWatcherOptions {
  discovery: DiscoveryClient;
  /** re-read period (kube's garbage collector: 30 s) */
  periodMs: number;
  /** called with the new list whenever the set of resources (or their verbs) changed, and once at the start */
  onChange(result: DiscoveryResult): void | Promise<void>;
  logger?: Logger;
  signal: AbortSignal;
}

/**
 * Re-read discovery every period, or sooner when `trigger()` is called (a CRD or an APIService
 * changed), and report a changed set. A read that fails is retried at the next period.
 */
export class ResourceWatcher {
  readonly #o: ResourceWatcherOptions;
  #fingerprint = '';
  #wake: (() => void) | undefined;
  #triggered = false;

  constructor(o: ResourceWatcherOptions) {
    this.#o = o;
  }

  trigger(): void {
    this.#triggered = true;
    this.#wake?.();
  }

  /** one read now; resolves after onChange ran if the set changed */
  async refresh(): Promise<boolean> {
    const result = await this.#o.discovery.preferredResources();
    const fp = result.resources.map((r) => `${resourceId(r)}:${r.namespaced}:${[...r.verbs].sort().join(',')}`).sort().join('|');
    if (fp === this.#fingerprint && result.failed.size === 0) return false;
    this.#fingerprint = fp;
    await this.#o.onChange(result);
    return true;
  }

  async run(): Promise<void> {
    const { signal } = this.#o;
    while (!signal.aborted) {
      this.#triggered = false;
      try {
        await this.refresh();
      } catch (err) {
        this.#o.logger?.warn({ err: (err as Error).message }, 'discovery failed; will retry');
      }
      if (signal.aborted || this.#triggered) continue;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        void sleep(this.#o.periodMs, signal).then(resolve, resolve);
      });
      this.#wake = undefined;
      // let a burst of CRD events settle into one read
      if (this.#triggered) await sleep(200, signal).catch(() => undefined);
    }
  }
}
