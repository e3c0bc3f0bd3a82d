/**
 * kube's aggregation layer inside the API server process, assembled: informers over APIServices,
 * Services and Endpoints (through the Registry), the local registrations kept in step with the
 * Scheme (autoregistration), the availability controller, the proxy to extension servers, and
 * what discovery and OpenAPI learn from those servers.
 *
 * Which requests are proxied (kube's rule, also for built-in group/versions): every request under
 * /apis/<group>/<version> (/api/v1 for `v1.`) whose APIService names a service; a local
 * registration, or none, leaves the request to this server. v3 OpenAPI documents an extension
 * server publishes itself are proxied too.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type pino from 'pino';
import type { KindDefinition } from '../api/kind';
import type { Registry } from '../api/registry/types';
import type { Scheme } from '../api/scheme';
import type { AggregatedApis, ProxiedRoute } from '../http/aggregated-proxy';
import type { DiscoveryExtension } from '../http/discovery-extension';
import type { APIService } from './apiservice';
import { APIREGISTRATION_GROUP, apiServiceName, isAvailable, isRemote } from './apiservice';
import { AutoRegistration } from './autoregistration';
import { AvailabilityController } from './availability-controller';
import type { ProxyClientCert } from './backend-tls';
import { discoveryProbe } from './backend-probe';
import { discoverySource } from './discovery-source';
import type { FrontProxyHeaderNames } from './front-proxy-headers';
import { ANONYMOUS, DEFAULT_FRONT_PROXY_HEADERS } from './front-proxy-headers';
import { desiredLocalAPIServices } from './local-apiservices';
import { AggregatorProxy } from './proxy';
import { RegistryInformer } from './registry-informer';
import { DISCOVERY_USER, RemoteDiscovery } from './remote-discovery';
import { RemoteOpenApi } from './remote-openapi';
import { clusterResolver, endpointResolver } from './service-resolver';
import type { ServiceLookup, ServiceResolver } from './service-resolver';

export interface AggregatorOptions {
  registry: Registry;
  scheme: Scheme;
  /** the server's own group/versions (`group/version`, `v1` for core); everything else in the Scheme is a custom resource */
  builtinGroupVersions: ReadonlySet<string>;
  logger: pino.Logger;
  /** --enable-aggregator-routing: reach extension servers at endpoint addresses instead of the cluster IP */
  enableAggregatorRouting?: boolean;
  /** --proxy-client-cert-file / --proxy-client-key-file */
  proxyClientCert?: ProxyClientCert;
  /** --requestheader-*-headers: the front-proxy header names */
  headerNames?: FrontProxyHeaderNames;
  /** availability resync (kube: 30 s) */
  availabilityResyncMs?: number;
  /** discovery and OpenAPI refresh of extension servers (kube: 60 s) */
  refreshMs?: number;
}

/** kube's identity for OpenAPI downloads */
const OPENAPI_USER = Object.freeze({ name: 'system:aggregator', groups: ['system:masters'] });
/** kube's limit on an OpenAPI download */
const OPENAPI_TIMEOUT_MS = 60_000;

export class Aggregator implements AggregatedApis {
  readonly discovery: DiscoveryExtension;
  readonly openapi: RemoteOpenApi;
  readonly #o: AggregatorOptions;
  readonly #apiServices: RegistryInformer<APIService>;
  readonly #services: RegistryInformer;
  readonly #endpoints: RegistryInformer;
  readonly #autoRegistration: AutoRegistration;
  readonly #availability: AvailabilityController;
  readonly #proxy: AggregatorProxy;
  readonly #remoteDiscovery: RemoteDiscovery;
  /** the registrations made at start not yet seen Available (kube's autoregister-completion check) */
  readonly #pendingAtStart = new Set<string>();
  #unsubscribe: (() => void) | undefined;

  constructor(o: AggregatorOptions, kinds: { apiServices: KindDefinition; services: KindDefinition; endpoints: KindDefinition }) {
    this.#o = o;
    const log = o.logger;
    const onError = (what: string) => (err: unknown) => log.warn({ err }, `aggregator: ${what} informer failed; retrying`);
    this.#apiServices = new RegistryInformer<APIService>({
      registry: o.registry,
      kind: kinds.apiServices,
      onChange: (name, obj) => this.#apiServiceChanged(name, obj as APIService | undefined),
      onError: onError('APIService'),
    });
    const serviceChanged = (key: string): void => {
      const [ns, name] = key.split('/');
      this.#availability.serviceChanged(ns, name);
    };
    this.#services = new RegistryInformer({ registry: o.registry, kind: kinds.services, onChange: serviceChanged, onError: onError('Service') });
    this.#endpoints = new RegistryInformer({ registry: o.registry, kind: kinds.endpoints, onChange: serviceChanged, onError: onError('Endpoints') });

    const lookup: ServiceLookup = {
      service: (ns, name) => this.#services.get(`${ns}/${name}`),
      endpoints: (ns, name) => this.#endpoints.get(`${ns}/${name}`),
    };
    const resolver: ServiceResolver = o.enableAggregatorRouting ? endpointResolver(lookup) : clusterResolver(lookup);
    const headerNames = o.headerNames ?? DEFAULT_FRONT_PROXY_HEADERS;
    this.#proxy = new AggregatorProxy({ resolver: () => resolver, clientCert: o.proxyClientCert, headerNames, logger: log });

    this.#autoRegistration = new AutoRegistration({
      registry: o.registry,
      kind: kinds.apiServices,
      current: (name) => this.#apiServices.get(name),
      logger: log,
    });
    this.#availability = new AvailabilityController({
      registry: o.registry,
      kind: kinds.apiServices,
      get: (name) => this.#apiServices.get(name),
      list: () => this.#apiServices.list(),
      deps: { ...lookup, probe: discoveryProbe({ resolver: () => resolver, clientCert: o.proxyClientCert, headerNames }) },
      logger: log,
      resyncMs: o.availabilityResyncMs,
    });
    this.#remoteDiscovery = new RemoteDiscovery({
      fetch: (s, path, accept) => this.#proxy.fetch(s, path, { user: DISCOVERY_USER, headers: { Accept: accept }, timeoutMs: 5000 }),
      logger: log,
      refreshMs: o.refreshMs,
    });
    this.openapi = new RemoteOpenApi({
      fetch: (s, path, headers) => this.#proxy.fetch(s, path, { user: OPENAPI_USER, headers, timeoutMs: OPENAPI_TIMEOUT_MS }),
      logger: log,
      refreshMs: o.refreshMs,
    });
    this.discovery = discoverySource({
      get: (name) => this.#apiServices.get(name),
      list: () => this.#apiServices.list(),
      entry: (name) => this.#remoteDiscovery.entry(name),
    });
  }

  /** start the informers and, once they have listed, the controllers */
  async start(): Promise<void> {
    for (const informer of [this.#apiServices, this.#services, this.#endpoints]) informer.start();
    await Promise.all([this.#apiServices.synced, this.#services.synced, this.#endpoints.synced]);
    const desired = (): void => this.#autoRegistration.setDesired(desiredLocalAPIServices(this.#o.scheme, this.#o.builtinGroupVersions));
    for (const [name, d] of desiredLocalAPIServices(this.#o.scheme, this.#o.builtinGroupVersions)) {
      if (d.mode === 'onstart' && !isAvailableNow(this.#apiServices.get(name))) this.#pendingAtStart.add(name);
    }
    desired();
    this.#unsubscribe = this.#o.scheme.onChange(desired);
    this.#autoRegistration.start(this.#apiServices.list().map((s) => s.metadata.name));
    this.#availability.start();
    this.#remoteDiscovery.start();
    this.openapi.start();
  }

  stop(): void {
    this.#unsubscribe?.();
    this.#autoRegistration.stop();
    this.#availability.stop();
    this.#remoteDiscovery.stop();
    this.openapi.stop();
    for (const informer of [this.#apiServices, this.#services, this.#endpoints]) informer.stop();
    this.#proxy.close();
  }

  /**
   * kube's `autoregister-completion` health check: failing until every registration made at start
   * has been seen Available once
   */
  healthCheck(): { name: string; check(): Promise<void> } {
    return {
      name: 'autoregister-completion',
      check: async () => {
        if (this.#pendingAtStart.size > 0) throw new Error(`missing APIService: [${[...this.#pendingAtStart].sort().join(' ')}]`);
      },
    };
  }

  /** resolves when autoregistration has nothing left to do (tests) */
  idle(): Promise<void> {
    return this.#autoRegistration.idle();
  }

  route(path: string): ProxiedRoute | undefined {
    const target = this.#target(path);
    if (!target) return undefined;
    return { forward: (o) => this.#proxy.forward({ ...o, apiService: target }) };
  }

  /** a protocol upgrade for a remote registration: taken (true) or left to the app (false) */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const target = this.#target((req.url ?? '/').split('?')[0]);
    if (!target) return false;
    // no authentication yet: upgrades go on as the anonymous user
    this.#proxy.upgrade(target, req, socket, head, ANONYMOUS);
    return true;
  }

  /** the remote registration that serves `path`, if any */
  #target(path: string): APIService | undefined {
    const parts = path.split('/').filter((p) => p !== '');
    let name: string | undefined;
    // apiregistration.k8s.io is always served here: kube installs it ahead of every proxy handler
    if (parts[0] === 'apis' && parts.length >= 3 && parts[1] !== APIREGISTRATION_GROUP) name = apiServiceName(parts[1], parts[2]);
    else if (parts[0] === 'api' && parts[1] === 'v1') name = apiServiceName('', 'v1');
    else if (parts[0] === 'openapi' && parts[1] === 'v3' && parts.length > 2) return this.openapi.linked(parts.slice(2).join('/'));
    const s = name === undefined ? undefined : this.#apiServices.get(name);
    return s && isRemote(s) ? s : undefined;
  }

  #apiServiceChanged(name: string, s: APIService | undefined): void {
    if (isAvailableNow(s)) this.#pendingAtStart.delete(name);
    this.#autoRegistration.enqueue(name);
    this.#availability.enqueue(name);
    this.#remoteDiscovery.update(name, s);
    this.openapi.update(name, s);
  }
}

function isAvailableNow(s: APIService | undefined): boolean {
  return s !== undefined && isAvailable(s);
}

/** the aggregator for a Scheme, or undefined when the Scheme lacks APIServices, Services or Endpoints */
export function createAggregator(o: AggregatorOptions): Aggregator | undefined {
  const apiServices = o.scheme.byResource('apiregistration.k8s.io', 'v1', 'apiservices');
  const services = o.scheme.byResource('', 'v1', 'services');
  const endpoints = o.scheme.byResource('', 'v1', 'endpoints');
  if (!apiServices || !services || !endpoints) return undefined;
  return new Aggregator(o, { apiServices, services, endpoints });
}

