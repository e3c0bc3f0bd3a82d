/**
 * Addresses of simulated nodes and their pods. A node's pods take addresses from its pod CIDR (the
 * Node's spec.podCIDRs as the controller manager's node IPAM assigns them, else --pod-cidr), as
 * host-local IPAM would: the first free address after the gateway, never two live pods on one
 * address. Without a pod CIDR every node gets a /24 of its own in 10.0.0.0/8 (kwok falls back to a
 * default range in the same way). Only IPv4 is simulated.
 */

function ipToNumber(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4) return undefined;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    n = n * 256 + Number(p);
  }
  return n;
}

function numberToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** an IPv4 CIDR's first and last address, or undefined when it is not one */
export function parseCidr4(cidr: string): { first: number; last: number } | undefined {
  const [ip, bitsText] = cidr.split('/');
  const base = ipToNumber(ip ?? '');
  const bits = Number(bitsText);
  if (base === undefined || !Number.isInteger(bits) || bits < 0 || bits > 32) return undefined;
  const size = 2 ** (32 - bits);
  const first = Math.floor(base / size) * size;
  return { first, last: first + size - 1 };
}

/** the InternalIP of simulated node `index` when none is given: 172.16.0.1 onwards (172.16.0.0/12) */
export function simulatedNodeAddress(index: number): string {
  return numberToIp(ipToNumber('172.16.0.0')! + (index % (2 ** 20 - 2)) + 1);
}

/** the pod range of simulated node `index` when its Node has no pod CIDR: 10.<hi>.<lo>.0/24 */
export function fallbackPodCidr(index: number): string {
  const i = index % 65_536;
  return `10.${i >> 8}.${i & 255}.0/24`;
}

/** the first IPv4 CIDR of a Node's spec (podCIDRs, else podCIDR) */
export function nodePodCidr(spec: { podCIDR?: string; podCIDRs?: string[] } | undefined): string | undefined {
  const all = spec?.podCIDRs?.length ? spec.podCIDRs : spec?.podCIDR ? [spec.podCIDR] : [];
  return all.find((c) => parseCidr4(c) !== undefined);
}

/** the pod addresses of one node */
export class PodIpPool {
  /** pod uid -> address */
  readonly #byPod = new Map<string, string>();
  readonly #used = new Set<string>();
  #cursor = 0;

  /** the pod's address: the one it has, else the next free one of `cidr` (throws when the range is full) */
  allocate(podUid: string, cidr: string): string {
    const held = this.#byPod.get(podUid);
    if (held) return held;
    const range = parseCidr4(cidr);
    if (!range) throw new Error(`pod CIDR ${cidr} is not an IPv4 range`);
    // the network address and the gateway (first host) are not handed out, nor the broadcast address
    const low = range.first + 2;
    const high = range.last - 1;
    const count = high - low + 1;
    for (let i = 0; i < count; i++) {
      const n = low + ((this.#cursor + i) % count);
      const ip = numberToIp(n);
      if (this.#used.has(ip)) continue;
      this.#cursor = n - low + 1;
      this.reserve(podUid, ip);
      return ip;
    }
    throw new Error(`no free address left in pod CIDR ${cidr}`);
  }

  /** record an address a pod already has (one seen Running when the agent starts) */
  reserve(podUid: string, ip: string): void {
    this.#byPod.set(podUid, ip);
    this.#used.add(ip);
  }

  release(podUid: string): void {
    const ip = this.#byPod.get(podUid);
    if (ip === undefined) return;
    this.#byPod.delete(podUid);
    this.#used.delete(ip);
  }

  get size(): number {
    return this.#byPod.size;
  }
}
