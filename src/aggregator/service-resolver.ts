/**
 * Where a registration's Service is reached, as kube's service resolvers answer it (apiserver's
 * util/proxy ResolveEndpoint and ResolveCluster). There is no kube-proxy here, so the choice matters:
 *
 * - endpoint routing (--enable-aggregator-routing=true): an address of the Service's Endpoints that
 *   carries the port named like the Service port, at the endpoint's port;
 * - cluster routing (the default): the Service's clusterIP at the Service port, or, for an
 *   ExternalName Service, its external name at the registration's port.
 */
import type { KubeObject } from '../api/kind';
import { arrAt, isObj, objAt, str } from '../api/kinds/util';

export interface ResolvedEndpoint {
  host: string;
  port: number;
}

/** a resolution failure; `serviceUnavailable` ones are kube's NewServiceUnavailable errors */
export class ResolveError extends Error {
  constructor(
    message: string,
    readonly serviceUnavailable = false,
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}

export interface ServiceLookup {
  service(namespace: string, name: string): KubeObject | undefined;
  endpoints(namespace: string, name: string): KubeObject | undefined;
}

export interface ServiceResolver {
  resolve(namespace: string, name: string, port: number): ResolvedEndpoint;
}

/** kube's NotFound text for an object the lister lacks */
function notFound(resource: string, name: string): ResolveError {
  return new ResolveError(`${resource} "${name}" not found`);
}

function serviceType(svc: KubeObject): string {
  return str(objAt(svc, 'spec')?.type) || 'ClusterIP';
}

/** kube's findServicePort: the Service port whose number is `port` */
function findServicePort(svc: KubeObject, port: number): Record<string, unknown> {
  const found = arrAt(objAt(svc, 'spec'), 'ports').find((p) => isObj(p) && p.port === port);
  if (!isObj(found)) throw new ResolveError(`no service port ${port} found for service "${str(svc.metadata?.name)}"`, true);
  return found;
}

function pick<T>(items: T[], random: () => number): T {
  return items[Math.floor(random() * items.length) % items.length];
}

export function endpointResolver(lookup: ServiceLookup, random: () => number = Math.random): ServiceResolver {
  return {
    resolve(namespace, name, port) {
      const svc = lookup.service(namespace, name);
      if (!svc) throw notFound('service', name);
      const type = serviceType(svc);
      if (!['ClusterIP', 'LoadBalancer', 'NodePort'].includes(type)) throw new ResolveError(`unsupported service type "${type}"`);
      const svcPort = findServicePort(svc, port);
      const eps = lookup.endpoints(namespace, name);
      if (!eps) throw notFound('endpoints', name);
      const subsets = arrAt(eps, 'subsets').filter(isObj);
      const unavailable = new ResolveError(`no endpoints available for service "${name}"`, true);
      if (subsets.length === 0) throw unavailable;
      // kube starts from a random subset and takes a random address of the first that has the port
      const start = Math.floor(random() * subsets.length);
      for (let i = 0; i < subsets.length; i++) {
        const ss = subsets[(start + i) % subsets.length];
        const addresses = arrAt(ss, 'addresses').filter(isObj);
        if (addresses.length === 0) continue;
        const epPort = arrAt(ss, 'ports').find((p) => isObj(p) && str(p.name) === str(svcPort.name));
        if (isObj(epPort)) return { host: str(pick(addresses, random).ip), port: Number(epPort.port) };
      }
      throw unavailable;
    },
  };
}

export function clusterResolver(lookup: ServiceLookup): ServiceResolver {
  return {
    resolve(namespace, name, port) {
      const svc = lookup.service(namespace, name);
      if (!svc) throw notFound('service', name);
      const spec = objAt(svc, 'spec') ?? {};
      const type = serviceType(svc);
      if (type === 'ClusterIP' && spec.clusterIP === 'None') throw new ResolveError('cannot route to service with ClusterIP "None"');
      if (['ClusterIP', 'LoadBalancer', 'NodePort'].includes(type)) {
        const svcPort = findServicePort(svc, port);
        return { host: str(spec.clusterIP), port: Number(svcPort.port) };
      }
      if (type === 'ExternalName') return { host: str(spec.externalName), port };
      throw new ResolveError(`unsupported service type "${type}"`);
    },
  };
}
