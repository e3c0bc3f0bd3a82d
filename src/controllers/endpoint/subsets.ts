/**
 * The subsets of a Service's Endpoints (kube's endpoints controller and RepackSubsets in
 * pkg/api/v1/endpoints): one address per selected pod with an IP, ready or not ready, for each
 * service port the pod resolves; then addresses that offer the same set of ports are packed into
 * one subset, and everything is sorted so that equal inputs give equal objects.
 */
import type { KubeObject } from '../../client/types';
import { isPodReady } from '../util/pods';
import {
  findPort, isIPv6, nodeNameOf, podIPs, podMayServe, serviceSpec, shouldSetHostname, type ServicePort,
} from '../util/service-pods';

export const TOLERATE_UNREADY_ANNOTATION = 'service.alpha.kubernetes.io/tolerate-unready-endpoints';

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: { kind: string; namespace?: string; name?: string; uid?: string; resourceVersion?: string };
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

/** publishNotReadyAddresses, or the older annotation set to a true value (strconv.ParseBool) */
export function toleratesUnready(svc: KubeObject): boolean {
  if (serviceSpec(svc).publishNotReadyAddresses) return true;
  const v = svc.metadata?.annotations?.[TOLERATE_UNREADY_ANNOTATION];
  return v !== undefined && ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v);
}

/**
 * The IP of the pod in the service's family: its first family (ipFamilies, else the cluster IP's,
 * else the pod's first IP's for a headless service). Undefined when the pod has none.
 */
export function podAddressIP(svc: KubeObject, pod: KubeObject): string | undefined {
  const ips = podIPs(pod);
  if (ips.length === 0) return undefined;
  const spec = serviceSpec(svc);
  let v6: boolean;
  if (spec.ipFamilies && spec.ipFamilies.length > 0) v6 = spec.ipFamilies[0] === 'IPv6';
  else if (spec.clusterIP && spec.clusterIP !== 'None') v6 = isIPv6(spec.clusterIP);
  else v6 = isIPv6(ips[0]!);
  return ips.find((ip) => isIPv6(ip) === v6);
}

function addressOf(svc: KubeObject, pod: KubeObject, ip: string): EndpointAddress {
  const address: EndpointAddress = { ip };
  if (shouldSetHostname(pod, svc)) address.hostname = (pod.spec as { hostname: string }).hostname;
  const node = nodeNameOf(pod);
  if (node) address.nodeName = node;
  address.targetRef = {
    kind: 'Pod',
    namespace: pod.metadata?.namespace,
    name: pod.metadata?.name,
    uid: pod.metadata?.uid,
    resourceVersion: pod.metadata?.resourceVersion,
  };
  return address;
}

function endpointPort(port: ServicePort, number: number): EndpointPort {
  const out: EndpointPort = { port: number, protocol: port.protocol ?? 'TCP' };
  if (port.name) out.name = port.name;
  if (port.appProtocol) out.appProtocol = port.appProtocol;
  return out;
}

/** the subsets of `svc`'s Endpoints given the pods its selector matches, repacked and sorted */
export function computeSubsets(svc: KubeObject, pods: readonly KubeObject[]): EndpointSubset[] {
  const tolerate = toleratesUnready(svc);
  const spec = serviceSpec(svc);
  const ports = spec.ports ?? [];
  const subsets: EndpointSubset[] = [];
  const add = (pod: KubeObject, address: EndpointAddress, port: EndpointPort | undefined) => {
    const p = port ? [port] : [];
    if (tolerate || isPodReady(pod)) subsets.push({ addresses: [address], ports: p });
    else if (podMayServe(pod)) subsets.push({ notReadyAddresses: [address], ports: p });
  };
  for (const pod of pods) {
    const ip = podAddressIP(svc, pod);
    if (!ip) continue;
    if (!tolerate && pod.metadata?.deletionTimestamp) continue;
    const address = addressOf(svc, pod, ip);
    if (ports.length === 0) {
      // a headless service may have no ports: its addresses still count
      if (spec.clusterIP === 'None') add(pod, address, undefined);
      continue;
    }
    for (const port of ports) {
      const number = findPort(pod, port);
      // a pod without the named port is not an endpoint of that port
      if (number === undefined) continue;
      add(pod, address, endpointPort(port, number));
    }
  }
  return repackSubsets(subsets);
}

const addressKey = (a: EndpointAddress) => `${a.ip}\u0000${a.targetRef?.uid ?? ''}`;
const portKey = (p: EndpointPort) => JSON.stringify([p.name ?? '', p.port, p.protocol, p.appProtocol ?? '']);

function compareAddresses(a: EndpointAddress, b: EndpointAddress): number {
  if (a.ip !== b.ip) return a.ip < b.ip ? -1 : 1;
  const au = a.targetRef?.uid ?? '';
  const bu = b.targetRef?.uid ?? '';
  return au < bu ? -1 : au > bu ? 1 : 0;
}

/**
 * kube's RepackSubsets: group the addresses by the exact set of ports they offer (an address
 * ready for any port stays ready), one subset per group; addresses without ports keep a subset
 * of their own. Then SortSubsets: addresses by IP and pod uid, ports and subsets in a fixed order
 * (kube orders those by a hash; here by their contents).
 */
export function repackSubsets(subsets: readonly EndpointSubset[]): EndpointSubset[] {
  const NO_PORT = '';
  const addresses = new Map<string, EndpointAddress>();
  const ports = new Map<string, EndpointPort>();
  /** port key -> address key -> ready */
  const byPort = new Map<string, Map<string, boolean>>();
  const note = (pk: string, a: EndpointAddress, ready: boolean) => {
    const ak = addressKey(a);
    if (!addresses.has(ak)) addresses.set(ak, a);
    let set = byPort.get(pk);
    if (!set) byPort.set(pk, (set = new Map()));
    if (ready) set.set(ak, true);
    else if (!set.has(ak)) set.set(ak, false);
  };
  for (const s of subsets) {
    const keys = (s.ports ?? []).length === 0 ? [NO_PORT] : (s.ports ?? []).map((p) => {
      const k = portKey(p);
      ports.set(k, p);
      return k;
    });
    for (const k of keys) {
      for (const a of s.addresses ?? []) note(k, a, true);
      for (const a of s.notReadyAddresses ?? []) note(k, a, false);
    }
  }
  // group ports by the identical set of (address, readiness) they are offered on
  const groups = new Map<string, { set: Map<string, boolean>; ports: string[] }>();
  for (const [pk, set] of byPort) {
    const id = JSON.stringify([...set.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { set, ports: [] }));
    if (pk !== NO_PORT) g.ports.push(pk);
  }
  const out: EndpointSubset[] = [];
  for (const g of groups.values()) {
    const ready: EndpointAddress[] = [];
    const notReady: EndpointAddress[] = [];
    for (const [ak, isReady] of g.set) (isReady ? ready : notReady).push(addresses.get(ak)!);
    const subset: EndpointSubset = {};
    if (ready.length > 0) subset.addresses = ready.sort(compareAddresses);
    if (notReady.length > 0) subset.notReadyAddresses = notReady.sort(compareAddresses);
    if (g.ports.length > 0) subset.ports = g.ports.sort().map((k) => ports.get(k)!);
    out.push(subset);
  }
  const subsetKey = (s: EndpointSubset) => JSON.stringify(s);
  return out.sort((a, b) => (subsetKey(a) < subsetKey(b) ? -1 : subsetKey(a) > subsetKey(b) ? 1 : 0));
}
