/**
 * IP addresses and CIDRs as Go's net package reads them (kube validates with net.ParseIP and
 * net.ParseCIDR): dotted quads, IPv6 (IPv4-mapped IPv6 addresses count as IPv4, as To4() says),
 * no zones; a CIDR is an address, '/', and a prefix length within the family's bits.
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface ParsedIP {
  /** 4 for IPv4 (including IPv4-mapped IPv6), 6 otherwise */
  family: 4 | 6;
  /** the address as an integer of 32 (IPv4) or 128 bits */
  value: bigint;
}

const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

function v4Value(s: string): bigint {
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6Value(s: string): bigint {
  let text = s;
  // a trailing dotted quad stands for the last 32 bits
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const v = v4Value(quad[1]);
    text = `${text.slice(0, quad.index)}${(v >> 16n).toString(16)}:${(v & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = tail === undefined ? [] : tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : 8 - headParts.length - tailParts.length;
  const groups = [...headParts, ...new Array<string>(zeros).fill('0'), ...tailParts];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** Go's net.ParseIP: undefined when the text is not an address */
export function parseIP(text: string): ParsedIP | undefined {
  if (isIPv4(text)) return { family: 4, value: v4Value(text) };
  if (text.includes('%') || !isIPv6(text)) return undefined;
  const mapped = MAPPED.exec(text);
  if (mapped) return { family: 4, value: v4Value(mapped[1]) };
  return { family: 6, value: v6Value(text) };
}

export interface ParsedCIDR {
  family: 4 | 6;
  /** the network address (host bits cleared, as net.ParseCIDR's IPNet) */
  network: bigint;
  prefix: number;
}

/** Go's net.ParseCIDR: undefined when the text is not a CIDR */
export function parseCIDR(text: string): ParsedCIDR | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addr = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  // an IPv4-mapped IPv6 address with a prefix is still a 128-bit network to Go
  const family: 4 | 6 = isIPv4(addr) ? 4 : 6;
  const ip = parseIP(addr);
  if (!ip) return undefined;
  const total = family === 4 ? 32 : 128;
  const prefix = Number(bitsText);
  if (prefix > total) return undefined;
  const value = family === 6 && ip.family === 4 ? (0xffffn << 32n) | ip.value : ip.value;
  const mask = prefix === 0 ? 0n : ((1n << BigInt(prefix)) - 1n) << BigInt(total - prefix);
  return { family, network: value & mask, prefix };
}

/** IPNet.Contains(other's network address), with both of one family */
export function cidrContains(outer: ParsedCIDR, inner: ParsedCIDR): boolean {
  if (outer.family !== inner.family) return false;
  const total = outer.family === 4 ? 32 : 128;
  const shift = BigInt(total - outer.prefix);
  return inner.network >> shift === outer.network >> shift;
}

/** kube's IsValidIPv4Address message, or '' */
export function ipv4Error(text: string): string {
  return parseIP(text)?.family === 4 ? '' : 'must be a valid IPv4 address';
}

/** kube's IsValidIPv6Address message, or '' */
export function ipv6Error(text: string): string {
  return parseIP(text)?.family === 6 ? '' : 'must be a valid IPv6 address';
}
