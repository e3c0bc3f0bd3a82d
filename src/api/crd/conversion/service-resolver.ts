/**
 * Where a webhook's Service answers. There is no kube-proxy behind Ballast, so a Service is not
 * reached through its cluster IP (kube's default ClusterIP resolver): an ExternalName service
 * resolves to its external name, any other to the first ready address of its Endpoints (the port
 * whose name matches the service port's, or the only one), as kube-apiserver does with
 * --enable-aggregator-routing. When the Endpoints object is missing and discovery.k8s.io/v1
 * EndpointSlices are served, the slices labelled with the service name are read instead. TLS still
 * verifies the name `<service>.<namespace>.svc`, as kube's webhook client does.
 */
import type { KubeObject } from '../../kind';
import type { Registry } from '../../registry/types';
import type { Scheme } from '../../scheme';
import { isApiError } from '../../errors';
import type { ServiceReference } from '../types';
import { isObject } from '../types';

export interface ResolvedService {
  host: string;
  port: number;
  /** the TLS server name to verify */
  servername: string;
}

export class ServiceResolutionError extends Error {}

const arr = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isObject) : []);

export interface ServiceResolverOptions {
  registry: Registry;
  scheme: Scheme;
}

export async function resolveService(o: ServiceResolverOptions, ref: ServiceReference): Promise<ResolvedService> {
  const namespace = String(ref.namespace ?? '');
  const name = String(ref.name ?? '');
  const port = typeof ref.port === 'number' ? ref.port : 443;
  const servername = `${name}.${namespace}.svc`;
  const svcKind = o.scheme.byResource('', 'v1', 'services');
  if (!svcKind) throw new ServiceResolutionError('services are not served');
  let svc: KubeObject;
  try {
    svc = await o.registry.get({ kind: svcKind, namespace, name }, {});
  } catch (err) {
    if (isApiError(err) && err.code === 404) throw new ServiceResolutionError(`service "${name}" not found`);
    throw err;
  }
  const spec = isObject(svc.spec) ? svc.spec : {};
  if (spec.type === 'ExternalName') {
    if (typeof spec.externalName !== 'string' || !spec.externalName) throw new ServiceResolutionError(`service "${name}" has no external name`);
    return { host: spec.externalName, port, servername };
  }
  const svcPort = arr(spec.ports).find((p) => p.port === port);
  if (!svcPort) throw new ServiceResolutionError(`no service port ${port} found for service "${name}"`);
  const portName = typeof svcPort.name === 'string' ? svcPort.name : '';
  const fromEndpoints = await endpointAddress(o, namespace, name, portName);
  const found = fromEndpoints ?? (await sliceAddress(o, namespace, name, portName));
  if (!found) throw new ServiceResolutionError(`no endpoints available for service "${name}"`);
  return { ...found, servername };
}

async function endpointAddress(o: ServiceResolverOptions, namespace: string, name: string, portName: string): Promise<{ host: string; port: number } | undefined> {
  const kind = o.scheme.byResource('', 'v1', 'endpoints');
  if (!kind) return undefined;
  let ep: KubeObject;
  try {
    ep = await o.registry.get({ kind, namespace, name }, {});
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
  for (const subset of arr(ep.subsets)) {
    const ports = arr(subset.ports);
    const p = ports.find((x) => (x.name ?? '') === portName) ?? (ports.length === 1 ? ports[0] : undefined);
    const addr = arr(subset.addresses)[0];
    if (p && typeof p.port === 'number' && addr && typeof addr.ip === 'string') return { host: addr.ip, port: p.port };
  }
  return undefined;
}

async function sliceAddress(o: ServiceResolverOptions, namespace: string, name: string, portName: string): Promise<{ host: string; port: number } | undefined> {
  const kind = o.scheme.byResource('discovery.k8s.io', 'v1', 'endpointslices');
  if (!kind) return undefined;
  const list = await o.registry.list({ kind, namespace }, { labelSelector: `kubernetes.io/service-name=${name}` });
  for (const slice of list.items) {
    const ports = arr(slice.ports);
    const p = ports.find((x) => (x.name ?? '') === portName) ?? (ports.length === 1 ? ports[0] : undefined);
    for (const ep of arr(slice.endpoints)) {
      const ready = !isObject(ep.conditions) || ep.conditions.ready !== false;
      const address = Array.isArray(ep.addresses) ? ep.addresses[0] : undefined;
      if (p && typeof p.port === 'number' && ready && typeof address === 'string') return { host: address, port: p.port };
    }
  }
  return undefined;
}
