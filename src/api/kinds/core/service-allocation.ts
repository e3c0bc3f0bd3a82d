/**
 * What kube's service REST layer fills in on create: cluster IPs, IP families and node ports, and on
 * update keeps the allocated values a client left out (patchAllocatedValues). The addresses and
 * ports come from a ServiceAllocator: the API server gives the service kind its live allocator
 * (src/api/service-allocator/, free values only, 422 for taken or out-of-range requested ones);
 * without one (unit tests of other parts) they are derived from a hash of namespace/name.
 */
import { createHash } from 'node:crypto';
import { errors } from '../../errors';
import { arrAt, isObj, objAt, str } from '../util';
import type { Obj } from '../util';

/** hands out cluster IPs and node ports, and judges requested ones */
export interface ServiceAllocator {
  /** a free cluster IP, reserved for the service `key` (namespace/name) */
  allocateIP(key: string): string;
  /** why a requested cluster IP cannot be had (kube's words), or undefined when it is free and in range */
  refuseIP(ip: string, key: string): string | undefined;
  allocateNodePort(key: string): number;
  refuseNodePort(port: number, key: string): string | undefined;
  /**
   * just before the service is stored: make sure no other API server handed out its new values
   * meanwhile (values taken elsewhere are replaced when they were allocated here, else 422)
   */
  claim?(service: Obj, old?: Obj): Promise<void>;
}

/** the stand-in without a live allocator: values from a hash, nothing refused */
export const hashAllocator: ServiceAllocator = {
  allocateIP: (key) => clusterIPFor(key),
  refuseIP: () => undefined,
  allocateNodePort: (key) => nodePortFor(key),
  refuseNodePort: () => undefined,
};

export const SERVICE_CIDR_BASE = (10 << 24) | (96 << 16);
const SERVICE_CIDR_SIZE = 1 << 20;
export const NODE_PORT_MIN = 30000;
export const NODE_PORT_MAX = 32767;

function hash32(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** an address in 10.96.0.0/12, never the network address nor .1 (kube's `kubernetes` service) */
export function clusterIPFor(key: string): string {
  const offset = 2 + (hash32(key) % (SERVICE_CIDR_SIZE - 3));
  const ip = SERVICE_CIDR_BASE + offset;
  return [ip >>> 24, (ip >>> 16) & 255, (ip >>> 8) & 255, ip & 255].join('.');
}

export function nodePortFor(key: string): number {
  return NODE_PORT_MIN + (hash32(key) % (NODE_PORT_MAX - NODE_PORT_MIN + 1));
}

function needsClusterIP(spec: Obj): boolean {
  return spec.type !== 'ExternalName';
}

function needsNodePorts(spec: Obj): boolean {
  return spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
}

/** keep clusterIP and clusterIPs[0] in step, as kube's normalizeClusterIPs does */
function normalizeClusterIPs(spec: Obj): void {
  const ips = arrAt(spec, 'clusterIPs');
  if (typeof spec.clusterIP === 'string' && spec.clusterIP !== '' && ips.length === 0) spec.clusterIPs = [spec.clusterIP];
  else if ((spec.clusterIP === undefined || spec.clusterIP === '') && typeof ips[0] === 'string') spec.clusterIP = ips[0];
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** 422 as kube's allocators word it; `value` as Go prints it (`[]string{"10.96.0.5"}`, `30080`) */
export function refused(service: Obj, field: string, value: string, why: string): never {
  const meta = objAt(service, 'metadata');
  throw errors.invalid('Service', '', str(meta?.name), [{ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${why}` }]);
}

/**
 * fill in what a new service needs; requested values (a clusterIP, a nodePort) must be free and in
 * range (422 otherwise); `old` is the service before an update (its own values are not "taken")
 */
export function allocateOnCreate(service: Obj, allocator: ServiceAllocator = hashAllocator, old?: Obj): void {
  const spec = objAt(service, 'spec');
  if (!spec) return;
  const key = `${str(objAt(service, 'metadata')?.namespace)}/${str(objAt(service, 'metadata')?.name)}`;
  const oldSpec = old ? objAt(old, 'spec') : undefined;
  normalizeClusterIPs(spec);
  if (needsClusterIP(spec)) {
    if (!spec.clusterIP) {
      spec.clusterIP = allocator.allocateIP(key);
      spec.clusterIPs = [spec.clusterIP];
    } else if (typeof spec.clusterIP === 'string' && IPV4.test(spec.clusterIP) && spec.clusterIP !== oldSpec?.clusterIP) {
      // malformed addresses and "None" are validation's to report
      const why = allocator.refuseIP(spec.clusterIP, key);
      if (why) refused(service, 'spec.clusterIPs', `[]string{${JSON.stringify(spec.clusterIP)}}`, `failed to allocate IP ${spec.clusterIP}: ${why}`);
    }
    if (arrAt(spec, 'ipFamilies').length === 0) spec.ipFamilies = [String(spec.clusterIP).includes(':') ? 'IPv6' : 'IPv4'];
    if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = 'SingleStack';
  }
  if (needsNodePorts(spec)) {
    const ownPorts = new Set(arrAt(oldSpec ?? {}, 'ports').filter(isObj).map((p) => p.nodePort));
    arrAt(spec, 'ports').forEach((p, i) => {
      if (!isObj(p)) return;
      if (p.nodePort === undefined || p.nodePort === 0) p.nodePort = allocator.allocateNodePort(`${key}/${i}/${str(p.name)}`);
      else if (typeof p.nodePort === 'number' && !ownPorts.has(p.nodePort)) {
        const why = allocator.refuseNodePort(p.nodePort, key);
        if (why) refused(service, `spec.ports[${i}].nodePort`, String(p.nodePort), why);
      }
    });
  }
}

/** a client that omits allocated values keeps the old ones (kube's patchAllocatedValues) */
export function keepAllocatedOnUpdate(service: Obj, old: Obj, allocator: ServiceAllocator = hashAllocator): void {
  const spec = objAt(service, 'spec');
  const oldSpec = objAt(old, 'spec');
  if (!spec || !oldSpec) return;
  if (needsClusterIP(spec) && needsClusterIP(oldSpec)) {
    if (!spec.clusterIP && arrAt(spec, 'clusterIPs').length === 0) {
      spec.clusterIP = oldSpec.clusterIP;
      spec.clusterIPs = oldSpec.clusterIPs;
    }
    normalizeClusterIPs(spec);
    if (arrAt(spec, 'ipFamilies').length === 0 && oldSpec.ipFamilies !== undefined) spec.ipFamilies = oldSpec.ipFamilies;
    if (!spec.ipFamilyPolicy && oldSpec.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
  }
  if (needsNodePorts(spec)) {
    const oldPorts = arrAt(oldSpec, 'ports').filter(isObj);
    for (const p of arrAt(spec, 'ports')) {
      if (!isObj(p) || (p.nodePort !== undefined && p.nodePort !== 0)) continue;
      const match = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
      if (match && typeof match.nodePort === 'number') p.nodePort = match.nodePort;
    }
  }
  // anything still missing (a type change to NodePort, say) is allocated as on create
  allocateOnCreate(service, allocator, old);
}
