/**
 * What kube's service REST layer fills in on create: cluster IPs, IP families and node ports, and on
 * update keeps the allocated values a client left out (patchAllocatedValues). Ballast has no shared
 * allocator, so addresses are derived from a hash of namespace/name: stable, and collisions are rare
 * in the 10.96.0.0/12 range (1M addresses) but possible.
 */
import { createHash } from 'node:crypto';
import { arrAt, isObj, objAt, str } from '../util';
import type { Obj } from '../util';

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

export function allocateOnCreate(service: Obj): void {
  const spec = objAt(service, 'spec');
  if (!spec) return;
  const key = `${str(objAt(service, 'metadata')?.namespace)}/${str(objAt(service, 'metadata')?.name)}`;
  normalizeClusterIPs(spec);
  if (needsClusterIP(spec)) {
    if (!spec.clusterIP) {
      spec.clusterIP = clusterIPFor(key);
      spec.clusterIPs = [spec.clusterIP];
    }
    if (arrAt(spec, 'ipFamilies').length === 0) spec.ipFamilies = [String(spec.clusterIP).includes(':') ? 'IPv6' : 'IPv4'];
    if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = 'SingleStack';
  }
  if (needsNodePorts(spec)) {
    arrAt(spec, 'ports').forEach((p, i) => {
      if (isObj(p) && (p.nodePort === undefined || p.nodePort === 0)) p.nodePort = nodePortFor(`${key}/${i}/${str(p.name)}`);
    });
  }
}

/** a client that omits allocated values keeps the old ones (kube's patchAllocatedValues) */
export function keepAllocatedOnUpdate(service: Obj, old: Obj): void {
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
  allocateOnCreate(service);
}
