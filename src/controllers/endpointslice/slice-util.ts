/**
 * The EndpointSlice shapes the endpointslice controller writes (discovery.k8s.io/v1, which our
 * server stores and kubectl reads; kube 1.20 wrote the same content as v1beta1, whose topology map
 * the server shows as nodeName, zone and deprecatedTopology in v1), and the pure helpers of kube's
 * pkg/controller/endpointslice/utils.go: labels, new slices, pod -> endpoint, endpoint identity.
 */
import type { KubeObject } from '../../client/types';
import { newControllerRef } from '../util/controller-ref';
import { isPodReady } from '../util/pods';
import {
  findPort, isIPv6, isServiceIPSet, nodeNameOf, podIPs, serviceSpec, shouldSetHostname,
} from '../util/service-pods';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const MANAGED_BY_LABEL = 'endpointslice.kubernetes.io/managed-by';
export const HEADLESS_LABEL = 'service.kubernetes.io/headless';
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

export type AddressType = 'IPv4' | 'IPv6' | 'FQDN';

export interface SlicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface SliceEndpoint {
  addresses: string[];
  conditions: { ready?: boolean };
  hostname?: string;
  targetRef?: { kind?: string; namespace?: string; name?: string; uid?: string; resourceVersion?: string };
  nodeName?: string;
  zone?: string;
  deprecatedTopology?: Record<string, string>;
}

export interface EndpointSlice extends KubeObject {
  addressType: AddressType;
  endpoints: SliceEndpoint[];
  ports: SlicePort[];
}

export function asSlice(obj: KubeObject): EndpointSlice {
  return {
    ...obj,
    addressType: (obj.addressType ?? 'IPv4') as AddressType,
    endpoints: (Array.isArray(obj.endpoints) ? obj.endpoints : []) as SliceEndpoint[],
    ports: (Array.isArray(obj.ports) ? obj.ports : []) as SlicePort[],
  };
}

/** the labels that name a slice's service and manager, which neither a service nor a user may set */
export function isReservedLabel(key: string): boolean {
  return key === SERVICE_NAME_LABEL || key === MANAGED_BY_LABEL || key === HEADLESS_LABEL;
}

/**
 * kube's setEndpointSliceLabels: the service's labels (without reserved ones), the headless label
 * for a service without a cluster IP, and the service-name and managed-by labels; `changed` when
 * the slice's own (unreserved) labels differ from the service's.
 */
export function sliceLabels(slice: KubeObject, svc: KubeObject, managedBy = CONTROLLER_NAME): { labels: Record<string, string>; changed: boolean } {
  const own: Record<string, string> = {};
  const wanted: Record<string, string> = {};
  for (const [k, v] of Object.entries(slice.metadata?.labels ?? {})) if (!isReservedLabel(k)) own[k] = v;
  for (const [k, v] of Object.entries(svc.metadata?.labels ?? {})) if (!isReservedLabel(k)) wanted[k] = v;
  const changed = !sameMap(own, wanted);
  if (!isServiceIPSet(svc)) wanted[HEADLESS_LABEL] = '';
  wanted[SERVICE_NAME_LABEL] = svc.metadata?.name ?? '';
  wanted[MANAGED_BY_LABEL] = managedBy;
  return { labels: wanted, changed };
}

export function sameMap(a: Record<string, string>, b: Record<string, string>): boolean {
  const ak = Object.keys(a);
  return ak.length === Object.keys(b).length && ak.every((k) => b[k] === a[k]);
}

/** `<service>-` unless that is not a valid generateName prefix (kube's getEndpointSlicePrefix) */
export function slicePrefix(serviceName: string): string {
  const prefix = `${serviceName}-`;
  return prefix.length <= 253 - 5 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?-$/.test(prefix) ? prefix : 'endpointslice-';
}

/** an empty slice for `svc` with the given ports and address type, named by the server */
export function newSlice(svc: KubeObject, ports: SlicePort[], addressType: AddressType): EndpointSlice {
  const owner = newControllerRef({ ...svc, apiVersion: 'v1', kind: 'Service' });
  const slice: EndpointSlice = {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { generateName: slicePrefix(svc.metadata?.name ?? ''), namespace: svc.metadata?.namespace, ownerReferences: [owner], labels: {} },
    addressType,
    endpoints: [],
    ports,
  };
  slice.metadata!.labels = sliceLabels(slice, svc).labels;
  return slice;
}

/** kube's getAddressTypesForService: the service's IP families, else its cluster IP's, else (headless) both */
export function addressTypesFor(svc: KubeObject): AddressType[] {
  const spec = serviceSpec(svc);
  const families = (spec.ipFamilies ?? []).filter((f) => f === 'IPv4' || f === 'IPv6') as AddressType[];
  if (families.length > 0) return [...new Set(families)];
  if (spec.clusterIP && spec.clusterIP !== 'None') return [isIPv6(spec.clusterIP) ? 'IPv6' : 'IPv4'];
  return ['IPv4', 'IPv6'];
}

/** kube's getEndpointPorts: each service port the pod resolves (none for a headless service without ports) */
export function endpointPortsFor(svc: KubeObject, pod: KubeObject): SlicePort[] {
  const out: SlicePort[] = [];
  for (const port of serviceSpec(svc).ports ?? []) {
    const number = findPort(pod, port);
    if (number === undefined) continue;
    const p: SlicePort = { name: port.name ?? '', port: number, protocol: port.protocol ?? 'TCP' };
    if (port.appProtocol) p.appProtocol = port.appProtocol;
    out.push(p);
  }
  return out;
}

/** a port list's identity whatever its order (kube's PortMapKey) */
export function portMapKey(ports: readonly SlicePort[]): string {
  return JSON.stringify(ports.map((p) => [p.name ?? '', p.port ?? 0, p.protocol ?? 'TCP', p.appProtocol ?? '']).sort());
}

/** kube's podToEndpoint: the pod's IPs of one family, readiness, its node's topology, and a reference to it */
export function podToEndpoint(pod: KubeObject, node: KubeObject | undefined, svc: KubeObject, addressType: AddressType): SliceEndpoint {
  const ready = serviceSpec(svc).publishNotReadyAddresses === true || isPodReady(pod);
  const ep: SliceEndpoint = {
    addresses: podIPs(pod).filter((ip) => isIPv6(ip) === (addressType === 'IPv6')),
    conditions: { ready },
  };
  if (shouldSetHostname(pod, svc)) ep.hostname = (pod.spec as { hostname: string }).hostname;
  ep.targetRef = {
    kind: 'Pod',
    namespace: pod.metadata?.namespace,
    name: pod.metadata?.name,
    uid: pod.metadata?.uid,
    resourceVersion: pod.metadata?.resourceVersion,
  };
  const nodeName = nodeNameOf(pod);
  if (nodeName) ep.nodeName = nodeName;
  const labels = node?.metadata?.labels ?? {};
  if (labels[ZONE_LABEL]) ep.zone = labels[ZONE_LABEL];
  // kube 1.20's topology map also held the region label; v1 has no place for it but
  // deprecatedTopology, which the server drops from v1 writes (as kube's does)
  return ep;
}

/** an endpoint's identity within a slice set (kube's hashEndpoint): its addresses, hostname and pod */
export function endpointKey(ep: SliceEndpoint): string {
  return JSON.stringify([[...ep.addresses].sort(), ep.hostname ?? '', ep.targetRef?.namespace ?? '', ep.targetRef?.name ?? '']);
}

/** kube's endpointsEqualBeyondHash: same readiness, topology and pod reference */
export function endpointsEqualBeyondKey(a: SliceEndpoint, b: SliceEndpoint): boolean {
  const ref = (e: SliceEndpoint) => JSON.stringify([e.targetRef?.kind ?? '', e.targetRef?.namespace ?? '', e.targetRef?.name ?? '', e.targetRef?.uid ?? '', e.targetRef?.resourceVersion ?? '']);
  const topo = (e: SliceEndpoint) => JSON.stringify([e.nodeName ?? '', e.zone ?? '', Object.entries(e.deprecatedTopology ?? {}).sort()]);
  return (a.conditions?.ready ?? true) === (b.conditions?.ready ?? true) && ref(a) === ref(b) && topo(a) === topo(b);
}

/** the service (by the slice's service-name label) a slice belongs to, as a queue key */
export function serviceKeyOf(slice: KubeObject): string | undefined {
  const name = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  return name ? `${slice.metadata?.namespace}/${name}` : undefined;
}
