/**
 * The OpenAPI documents of extension servers, as kube's OpenAPI aggregation controllers collect
 * them (v2: every registration's /openapi/v2, its /apis/ paths merged after ours; v3: the server's
 * /openapi/v3 index entry for the registration's group/version, whose document requests are then
 * proxied to it, or, for a server without /openapi/v3, its v2 document converted and served from
 * here). Documents are fetched when a registration changes and every minute; a failed download
 * keeps the last good document.
 */
import type pino from 'pino';
import type { OpenApiExtension } from '../openapi/service';
import type { SwaggerParts } from '../openapi/merge';
import { filterPaths } from '../openapi/merge';
import { convertV2ToV3 } from '../openapi/v2-to-v3';
import type { JsonObject } from '../openapi/v2';
import type { APIService } from './apiservice';
import { isRemote } from './apiservice';
import type { FetchedResponse } from './proxy';
import { SingleFlight } from './single-flight';

export interface RemoteOpenApiOptions {
  fetch(s: APIService, path: string, headers: Record<string, string>): Promise<FetchedResponse>;
  logger?: pino.Logger;
  /** kube: a minute after a successful download */
  refreshMs?: number;
}

interface Documents {
  v2?: SwaggerParts;
  etag?: string;
  /** the backend's index entry for the group/version: its documents are proxied */
  v3Link?: string;
  /** the backend has no /openapi/v3: its v2 document, converted */
  v3Converted?: object;
}

/** `apis/<group>/<version>`, the v3 index key of a registration */
export function v3Key(s: APIService): string {
  return s.spec.group ? `apis/${s.spec.group}/${s.spec.version}` : `api/${s.spec.version}`;
}

/** kube's order of aggregated specs: group priority, then version priority, both highest first, then name */
function byPriority(a: APIService, b: APIService): number {
  return (
    b.spec.groupPriorityMinimum - a.spec.groupPriorityMinimum ||
    b.spec.versionPriority - a.spec.versionPriority ||
    (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0)
  );
}

export class RemoteOpenApi implements OpenApiExtension {
  readonly #o: RemoteOpenApiOptions;
  readonly #services = new Map<string, APIService>();
  readonly #docs = new Map<string, Documents>();
  readonly #flights = new SingleFlight((name) => this.#download(name));
  #generation = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(o: RemoteOpenApiOptions) {
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

  update(name: string, s: APIService | undefined): void {
    if (!s || !isRemote(s)) {
      this.#services.delete(name);
      if (this.#docs.delete(name)) this.#generation++;
      return;
    }
    const before = this.#services.get(name);
    this.#services.set(name, s);
    if (before && JSON.stringify(before.spec) !== JSON.stringify(s.spec)) this.#generation++;
    void this.refresh(name);
  }

  /** the registration whose v3 document requests go to its server, for an index key */
  linked(key: string): APIService | undefined {
    for (const [name, docs] of this.#docs) {
      const s = this.#services.get(name);
      if (s && docs.v3Link && v3Key(s) === key) return s;
    }
    return undefined;
  }

  generation(): number {
    return this.#generation;
  }

  v2Documents(): SwaggerParts[] {
    return [...this.#services.values()]
      .sort(byPriority)
      .map((s) => this.#docs.get(s.metadata.name)?.v2)
      .filter((d): d is SwaggerParts => d !== undefined);
  }

  v3Documents(): Map<string, object> {
    const out = new Map<string, object>();
    for (const [name, docs] of this.#docs) {
      const s = this.#services.get(name);
      if (s && docs.v3Converted && !docs.v3Link) out.set(v3Key(s), docs.v3Converted);
    }
    return out;
  }

  v3Links(): Map<string, string> {
    const out = new Map<string, string>();
    for (const [name, docs] of this.#docs) {
      const s = this.#services.get(name);
      if (s && docs.v3Link) out.set(v3Key(s), docs.v3Link);
    }
    return out;
  }

  refresh(name: string): Promise<void> {
    return this.#flights.refresh(name);
  }

  async #download(name: string): Promise<void> {
    const s = this.#services.get(name);
    if (!s) return;
    const prev = this.#docs.get(name) ?? {};
    const next: Documents = { ...prev };
    try {
      const v2 = await this.#o.fetch(s, '/openapi/v2', { Accept: 'application/json', ...(prev.etag ? { 'If-None-Match': prev.etag } : {}) });
      if (v2.status === 200) {
        const doc = JSON.parse(v2.body.toString('utf8')) as JsonObject;
        next.v2 = filterPaths(doc as SwaggerParts, ['/apis/']);
        next.etag = typeof v2.headers.etag === 'string' ? v2.headers.etag : undefined;
        next.v3Converted = convertV2ToV3(filterPaths(doc as SwaggerParts, [`/${v3Key(s)}/`]) as JsonObject);
      } else if (v2.status === 404) {
        delete next.v2;
        delete next.etag;
        delete next.v3Converted;
      }
      const v3 = await this.#o.fetch(s, '/openapi/v3', { Accept: 'application/json' });
      if (v3.status === 200) {
        const index = JSON.parse(v3.body.toString('utf8')) as { paths?: Record<string, { serverRelativeURL?: string }> };
        const url = index.paths?.[v3Key(s)]?.serverRelativeURL;
        if (url) next.v3Link = url;
        else delete next.v3Link;
      } else if (v3.status === 404) {
        delete next.v3Link;
      }
    } catch (err) {
      this.#o.logger?.debug({ err, apiService: name }, 'openapi: download failed; keeping the last documents');
      return;
    }
    if (!this.#services.has(name)) return;
    if (JSON.stringify(next) !== JSON.stringify(prev)) {
      this.#docs.set(name, next);
      this.#generation++;
    }
  }
}
