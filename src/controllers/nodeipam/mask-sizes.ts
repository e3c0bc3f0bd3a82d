/**
 * The node IPAM controller's checks of its options (kube 1.20's startNodeIpamController and
 * setNodeCIDRMaskSizes): one cluster CIDR, or two of different families (dual stack), and the node
 * mask size of each (24 for IPv4 and 64 for IPv6 by default). --node-cidr-mask-size is the
 * single-stack flag; the per-family flags are the dual-stack ones.
 */
import { parseCidr, type Cidr } from './cidr-set';

export const DEFAULT_MASK_IPV4 = 24;
export const DEFAULT_MASK_IPV6 = 64;

export interface MaskOptions {
  nodeCidrMaskSize: number;
  nodeCidrMaskSizeIpv4: number;
  nodeCidrMaskSizeIpv6: number;
}

export function parseClusterCidrs(cidrs: readonly string[]): Cidr[] {
  const parsed = cidrs.flatMap((c) => c.split(',')).map((c) => c.trim()).filter((c) => c !== '').map(parseCidr);
  if (parsed.length === 0) throw new Error('Controller: Must specify --cluster-cidr if --allocate-node-cidrs is set');
  if (parsed.length > 2) throw new Error(`len of clusters cidrs is:${parsed.length} > more than max allowed of 2`);
  if (parsed.length === 2 && parsed[0]!.family === parsed[1]!.family) throw new Error('dual-stack --cluster-cidr must hold one IPv4 and one IPv6 CIDR');
  return parsed;
}

/** the node mask size for each cluster CIDR, in order */
export function nodeMaskSizes(clusterCidrs: readonly Cidr[], o: MaskOptions): number[] {
  const sized = (v4: number, v6: number) => clusterCidrs.map((c) => (c.family === 6 ? v6 : v4));
  let v4 = DEFAULT_MASK_IPV4;
  let v6 = DEFAULT_MASK_IPV6;
  if (clusterCidrs.length > 1) {
    if (o.nodeCidrMaskSize) throw new Error('usage of --node-cidr-mask-size is not allowed with dual-stack clusters');
    return sized(o.nodeCidrMaskSizeIpv4 || v4, o.nodeCidrMaskSizeIpv6 || v6);
  }
  const ipv6 = clusterCidrs[0]?.family === 6;
  if (o.nodeCidrMaskSize) {
    if (o.nodeCidrMaskSizeIpv4 || o.nodeCidrMaskSizeIpv6) {
      throw new Error('usage of --node-cidr-mask-size-ipv4 and --node-cidr-mask-size-ipv6 is not allowed if --node-cidr-mask-size is set. For dual-stack clusters please unset it and use IPFamily specific flags');
    }
    return sized(o.nodeCidrMaskSize, o.nodeCidrMaskSize);
  }
  if (o.nodeCidrMaskSizeIpv4) {
    if (ipv6) throw new Error('usage of --node-cidr-mask-size-ipv4 is not allowed for a single-stack IPv6 cluster');
    v4 = o.nodeCidrMaskSizeIpv4;
  }
  if (o.nodeCidrMaskSizeIpv6) {
    if (!ipv6) throw new Error('usage of --node-cidr-mask-size-ipv6 is not allowed for a single-stack IPv4 cluster');
    v6 = o.nodeCidrMaskSizeIpv6;
  }
  return sized(v4, v6);
}
