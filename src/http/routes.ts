/**
 * Every path the server answers: resources (generic over the Scheme), discovery, /version,
 * health, and OpenAPI v2/v3 (src/http/openapi.ts). Anything else is a 404 NotFound Status.
 * Discovery and OpenAPI also list what the extensions add (the aggregator's extension servers).
 */
import type { Scheme } from '../api/scheme';
import type { ApiContext, ApiMiddleware } from './context';
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions } from './discovery';
import { aggregatedDiscovery } from './discovery-aggregated';
import type { ResourceDeps } from './handlers/types';
import { serveHealth } from './health';
import type { HealthEndpoint, HealthOptions } from './health';
import { methodNotSupported, pathNotFound } from './http-errors';
import { negotiateOutput } from './negotiate';
import { serveOpenApi } from './openapi';
import { createOpenApiService } from '../openapi/service';
import type { OpenApiExtension } from '../openapi/service';
import type { DiscoveryExtension } from './discovery-extension';
import { definitions } from '../schema';
import { serveResource } from './resources';
import { writeObject } from './respond';
import type { VersionInfo } from './version';

/** a JSON document served at a fixed non-resource path (the service account issuer's discovery) */
export interface PathDocument {
  contentType: string;
  cacheControl?: string;
  body(): object;
}

export interface RoutesOptions {
  scheme: Scheme;
  deps: ResourceDeps;
  health: HealthOptions;
  version: VersionInfo;
  /** groups and documents other servers add (the aggregation layer) */
  extensions?: { discovery?: DiscoveryExtension; openapi?: OpenApiExtension };
  /** documents by exact path (GET and HEAD) */
  documents?: ReadonlyMap<string, PathDocument>;
  /** host:port for serverAddressByClientCIDRs (kube's ExternalAddress); undefined = the request's Host */
  externalAddress?: string;
}

function serveDocument(ctx: ApiContext, doc: object | undefined, allowDiscovery = false, aggregated?: (v: 'v2' | 'v2beta1') => object): void {
  if (!doc) throw pathNotFound();
  const negotiated = negotiateOutput(ctx.get('Accept'), { allowTable: false, stream: false, allowDiscovery });
  ctx.set('Vary', 'Accept');
  writeObject(ctx, 200, negotiated.discovery && aggregated ? aggregated(negotiated.discovery) : doc, negotiated);
}

function serverAddress(ctx: ApiContext): string {
  if (ctx.host) return ctx.host;
  const s = ctx.req.socket;
  return `${s.localAddress}:${s.localPort}`;
}

export function routes(o: RoutesOptions): ApiMiddleware {
  const { scheme } = o;
  const ext = o.extensions?.discovery;
  // built on first use, then kept until the Scheme or the extension's documents change
  const openapi = createOpenApiService({ scheme, definitions, version: o.version.gitVersion, extension: o.extensions?.openapi });
  return async (ctx) => {
    const info = ctx.state.info;
    if (info.isResourceRequest) return serveResource(scheme, o.deps, ctx, info);

    const parts = ctx.path.split('/').filter((p) => p !== '');
    const health = /^(healthz|livez|readyz)$/.exec(parts[0] ?? '');
    if (health && parts.length <= 2) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw methodNotSupported(parts[0], '', info.verb);
      return serveHealth(ctx, health[1] as HealthEndpoint, parts[1], o.health, ctx.state.log);
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      if (['api', 'apis', 'version'].includes(parts[0])) throw methodNotSupported(parts.join('/') || '/', '', info.verb);
      throw pathNotFound();
    }
    if (parts.length === 1 && parts[0] === 'version') return serveDocument(ctx, o.version);
    const doc = o.documents?.get(ctx.path);
    if (doc) {
      ctx.status = 200;
      ctx.set('Content-Type', doc.contentType);
      if (doc.cacheControl) ctx.set('Cache-Control', doc.cacheControl);
      ctx.body = JSON.stringify(doc.body());
      return;
    }
    if (parts[0] === 'api') {
      if (parts.length === 1) return serveDocument(ctx, apiVersions(scheme, o.externalAddress ?? serverAddress(ctx)), true, (v) => aggregatedDiscovery(scheme, true, v, ext));
      if (parts.length === 2) return serveDocument(ctx, apiResourceList(scheme, '', parts[1]));
    }
    if (parts[0] === 'apis') {
      if (parts.length === 1) return serveDocument(ctx, apiGroupList(scheme, ext), true, (v) => aggregatedDiscovery(scheme, false, v, ext));
      if (parts.length === 2) return serveDocument(ctx, apiGroupDocument(scheme, parts[1], ext));
      if (parts.length === 3) return serveDocument(ctx, apiResourceList(scheme, parts[1], parts[2]));
    }
    if (parts[0] === 'openapi') return serveOpenApi(ctx, openapi, parts);
    throw pathNotFound();
  };
}
