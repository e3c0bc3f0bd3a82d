/**
 * IP prefixes and kube's cidrset (pkg/controller/nodeipam/ipam/cidrset): a cluster CIDR cut into
 * node-sized subnets, with a bitmap of those in use. Allocation goes round from the one after the
 * last handed out; occupying or releasing a prefix marks every subnet it overlaps. Addresses are
 * bigints so IPv4 and IPv6 share the code.
 */

export interface Cidr {
  family: 4 | 6;
  /** the network address */
  base: bigint;
  prefix: number;
}

const bitsOf = (family: 4 | 6): number => (family === 4 ? 32 : 128);

function parseIpv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    v = (v << 8n) | BigInt(Number(p));
  }
  return v;
}

function parseIpv6(s: string): bigint | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): string[] | undefined => {
    if (h === '') return [];
    const g = h.split(':');
    const last = g[g.length - 1]!;
    if (last.includes('.')) {
      const v4 = parseIpv4(last);
      if (v4 === undefined) return undefined;
      g.splice(g.length - 1, 1, ((v4 >> 16n) & 0xffffn).toString(16), (v4 & 0xffffn).toString(16));
    }
    return g.every((x) => /^[0-9a-fA-F]{1,4}$/.test(x)) ? g : undefined;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return undefined;
  const fill = 8 - head.length - tail.length;
  if ((halves.length === 1 && fill !== 0) || (halves.length === 2 && fill < 1)) return undefined;
  let v = 0n;
  for (const g of [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail]) v = (v << 16n) | BigInt(parseInt(g, 16));
  return v;
}

export function parseIp(s: string): { family: 4 | 6; value: bigint } | undefined {
  if (s.includes(':')) {
    const value = parseIpv6(s);
    return value === undefined ? undefined : { family: 6, value };
  }
  const value = parseIpv4(s);
  return value === undefined ? undefined : { family: 4, value };
}

/** net.ParseCIDR: the prefix's network address (host bits cleared) */
export function parseCidr(s: string): Cidr {
  const [ip, len, extra] = s.trim().split('/');
  const parsed = ip ? parseIp(ip) : undefined;
  const prefix = Number(len);
  if (!parsed || extra !== undefined || !/^\d+$/.test(len ?? '') || prefix > bitsOf(parsed.family)) throw new Error(`invalid CIDR address: ${s}`);
  const hostBits = BigInt(bitsOf(parsed.family) - prefix);
  return { family: parsed.family, base: (parsed.value >> hostBits) << hostBits, prefix };
}

export function formatIp(family: 4 | 6, v: bigint): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run (two or more) of zero groups becomes ::
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export function formatCidr(c: Cidr): string {
  return `${formatIp(c.family, c.base)}/${c.prefix}`;
}

/** the last address of a prefix */
const lastOf = (c: Cidr): bigint => c.base + (1n << BigInt(bitsOf(c.family) - c.prefix)) - 1n;

/** whether two prefixes share an address */
export function overlaps(a: Cidr, b: Cidr): boolean {
  return a.family === b.family && a.base <= lastOf(b) && b.base <= lastOf(a);
}

/** kube's clusterSubNetMaxDiff: at most 2^16 node subnets per cluster CIDR */
const MAX_SUBNET_BITS = 16;

export class CidrRangeExhaustedError extends Error {
  constructor() {
    super('CIDR allocation failed; there are no remaining CIDRs left to allocate in the accepted range');
    this.name = 'CidrRangeExhaustedError';
  }
}

export class CidrSet {
  readonly cluster: Cidr;
  readonly nodeMaskSize: number;
  readonly maxCidrs: number;
  readonly #used: Uint8Array;
  #allocated = 0;
  #next = 0;

  constructor(cluster: Cidr | string, nodeMaskSize: number) {
    this.cluster = typeof cluster === 'string' ? parseCidr(cluster) : cluster;
    if (nodeMaskSize < this.cluster.prefix || nodeMaskSize > bitsOf(this.cluster.family)) {
      throw new Error(`the node CIDR mask size ${nodeMaskSize} does not fit in the cluster CIDR ${formatCidr(this.cluster)}`);
    }
    if (nodeMaskSize - this.cluster.prefix > MAX_SUBNET_BITS) throw new Error('New CIDR set failed; the node CIDR size is too big');
    this.nodeMaskSize = nodeMaskSize;
    this.maxCidrs = 2 ** (nodeMaskSize - this.cluster.prefix);
    this.#used = new Uint8Array(this.maxCidrs);
  }

  get allocated(): number {
    return this.#allocated;
  }

  get #shift(): bigint {
    return BigInt(bitsOf(this.cluster.family) - this.nodeMaskSize);
  }

  #cidrAt(i: number): Cidr {
    return { family: this.cluster.family, base: this.cluster.base + (BigInt(i) << this.#shift), prefix: this.nodeMaskSize };
  }

  /** the next free node subnet */
  allocateNext(): string {
    for (let n = 0; n < this.maxCidrs; n++) {
      const i = (this.#next + n) % this.maxCidrs;
      if (this.#used[i]) continue;
      this.#used[i] = 1;
      this.#allocated++;
      this.#next = (i + 1) % this.maxCidrs;
      return formatCidr(this.#cidrAt(i));
    }
    throw new CidrRangeExhaustedError();
  }

  /** the node subnets a prefix overlaps (getBeginingAndEndIndices) */
  #indices(c: Cidr): [number, number] {
    if (!overlaps(c, this.cluster)) throw new Error(`cidr ${formatCidr(c)} is out the range of cluster cidr ${formatCidr(this.cluster)}`);
    const begin = c.base > this.cluster.base ? c.base : this.cluster.base;
    const end = lastOf(c) < lastOf(this.cluster) ? lastOf(c) : lastOf(this.cluster);
    return [Number((begin - this.cluster.base) >> this.#shift), Number((end - this.cluster.base) >> this.#shift)];
  }

  /** mark in use every subnet the prefix overlaps */
  occupy(cidr: Cidr | string): void {
    const [b, e] = this.#indices(typeof cidr === 'string' ? parseCidr(cidr) : cidr);
    for (let i = b; i <= e; i++) {
      if (!this.#used[i]) this.#allocated++;
      this.#used[i] = 1;
    }
  }

  release(cidr: Cidr | string): void {
    const [b, e] = this.#indices(typeof cidr === 'string' ? parseCidr(cidr) : cidr);
    for (let i = b; i <= e; i++) {
      if (this.#used[i]) this.#allocated--;
      this.#used[i] = 0;
    }
  }

  contains(cidr: Cidr | string): boolean {
    const c = typeof cidr === 'string' ? parseCidr(cidr) : cidr;
    return c.family === this.cluster.family && overlaps(c, this.cluster);
  }
}
