/**
 * The API server's service allocator: cluster IPs from --service-cluster-ip-range and node ports
 * from --service-node-port-range, as kube's service REST storage hands them out. What is taken is
 * what the stored Services hold (followed through the registry with an informer, so deleting a
 * service or turning it into an ExternalName frees its values) plus short-lived reservations for
 * writes still in flight (a value handed to a create is reserved until the informer sees the
 * service, or for a minute when the create failed or was a dry run). One process per database, so
 * this view is complete; several API servers sharing PostgreSQL will need the allocation kept in
 * storage (kube's RangeAllocation objects).
 */
import crypto from 'node:crypto';
import type { KubeObject } from '../kind';
import type { ServiceAllocator } from '../kinds/core/service-allocation';
import { isObj, objAt, arrAt } from '../kinds/util';
import { errors } from '../errors';

const RESERVATION_MS = 60_000;

export interface Ipv4Range {
  /** the CIDR as given */
  cidr: string;
  /** first and last address as integers, network and broadcast addresses excluded */
  first: number;
  last: number;
}

export class ServiceRangeError extends Error {}

function ipToInt(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function intToIp(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** an IPv4 CIDR of at least 8 addresses (IPv6 service ranges are not served yet) */
export function parseServiceRange(cidr: string): Ipv4Range {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(cidr);
  const base = m ? ipToInt(m[1]) : undefined;
  const bits = m ? Number(m[2]) : NaN;
  if (!m || base === undefined || bits > 32) throw new ServiceRangeError(`invalid CIDR address: ${cidr}`);
  if (bits > 29) throw new ServiceRangeError(`${cidr} is too small: a service range needs at least 8 addresses`);
  if (bits < 12) throw new ServiceRangeError(`${cidr} is too large: at most 2^20 addresses (a /12) are allowed`);
  const size = 2 ** (32 - bits);
  const network = base - (base % size);
  return { cidr: `${intToIp(network)}/${bits}`, first: network + 1, last: network + size - 2 };
}

interface Reservation {
  owner: string;
  until: number;
}

export class LiveServiceAllocator implements ServiceAllocator {
  readonly range: Ipv4Range;
  readonly ports: { min: number; max: number };
  readonly #clock: () => number;
  /** values held by stored services: value -> namespace/name */
  readonly #ips = new Map<number, string>();
  readonly #portOwners = new Map<number, string>();
  /** what each stored service holds, to free it when the service changes or goes */
  readonly #held = new Map<string, { ips: number[]; ports: number[] }>();
  readonly #ipReservations = new Map<number, Reservation>();
  readonly #portReservations = new Map<number, Reservation>();

  constructor(opts: { range: Ipv4Range; ports: { min: number; max: number }; clock?: () => number }) {
    this.range = opts.range;
    this.ports = opts.ports;
    this.#clock = opts.clock ?? Date.now;
  }

  /** the first address of the range: kube gives it to the `kubernetes` service */
  get firstIP(): string {
    return intToIp(this.range.first);
  }

  /** the informer saw a service (added or changed) or its deletion (obj undefined) */
  observe(key: string, obj: KubeObject | undefined): void {
    const before = this.#held.get(key);
    if (before) {
      for (const ip of before.ips) if (this.#ips.get(ip) === key) this.#ips.delete(ip);
      for (const p of before.ports) if (this.#portOwners.get(p) === key) this.#portOwners.delete(p);
      this.#held.delete(key);
    }
    if (!obj) return;
    const spec = objAt(obj, 'spec') ?? {};
    const ips = arrAt(spec, 'clusterIPs').length > 0 ? arrAt(spec, 'clusterIPs') : [spec.clusterIP];
    const held = { ips: [] as number[], ports: [] as number[] };
    for (const ip of ips) {
      const n = typeof ip === 'string' ? ipToInt(ip) : undefined;
      if (n === undefined) continue;
      this.#ips.set(n, key);
      held.ips.push(n);
      this.#ipReservations.delete(n);
    }
    for (const p of arrAt(spec, 'ports')) {
      if (!isObj(p) || typeof p.nodePort !== 'number' || p.nodePort <= 0) continue;
      this.#portOwners.set(p.nodePort, key);
      held.ports.push(p.nodePort);
      this.#portReservations.delete(p.nodePort);
    }
    this.#held.set(key, held);
  }

  /** drop what a write for `key` (namespace/name) reserved: it stored nothing */
  release(key: string): void {
    for (const reserved of [this.#ipReservations, this.#portReservations]) {
      for (const [v, r] of reserved) if (r.owner === key) reserved.delete(v);
    }
  }

  allocateIP(key: string): string {
    const size = this.range.last - this.range.first + 1;
    // kube scans from a random offset, so addresses do not cluster at the start of the range
    const start = crypto.randomInt(size);
    for (let i = 0; i < size; i++) {
      const n = this.range.first + ((start + i) % size);
      if (n === this.range.first) continue; // kept for the `kubernetes` service
      if (this.#free(n, key, this.#ips, this.#ipReservations, true)) {
        this.#reserve(n, key, this.#ipReservations);
        return intToIp(n);
      }
    }
    throw errors.internal(`failed to allocate a serviceIP: range is full`);
  }

  refuseIP(ip: string, key: string): string | undefined {
    const n = ipToInt(ip);
    if (n === undefined) return undefined;
    if (n < this.range.first || n > this.range.last) {
      return `the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${this.range.cidr}`;
    }
    if (!this.#free(n, key, this.#ips, this.#ipReservations, false)) return 'provided IP is already allocated';
    this.#reserve(n, key, this.#ipReservations);
    return undefined;
  }

  allocateNodePort(key: string): number {
    const size = this.ports.max - this.ports.min + 1;
    const start = crypto.randomInt(size);
    const owner = key.split('/').slice(0, 2).join('/');
    for (let i = 0; i < size; i++) {
      const p = this.ports.min + ((start + i) % size);
      if (this.#free(p, owner, this.#portOwners, this.#portReservations, true)) {
        this.#reserve(p, owner, this.#portReservations);
        return p;
      }
    }
    throw errors.internal('failed to allocate a nodePort: range is full');
  }

  refuseNodePort(port: number, key: string): string | undefined {
    if (port < this.ports.min || port > this.ports.max) {
      return `provided port is not in the valid range. The range of valid ports is ${this.ports.min}-${this.ports.max}`;
    }
    if (!this.#free(port, key, this.#portOwners, this.#portReservations, false)) return 'provided port is already allocated';
    this.#reserve(port, key, this.#portReservations);
    return undefined;
  }

  /**
   * free to hand out (`anyOwner`: nobody holds or reserves it), or free for `key` to ask for (held
   * and reserved by nobody else: a retried write asks again for what it reserved before)
   */
  #free(n: number, key: string, held: Map<number, string>, reserved: Map<number, Reservation>, anyOwner: boolean): boolean {
    const owner = held.get(n);
    if (owner !== undefined && (anyOwner || owner !== key)) return false;
    const r = reserved.get(n);
    if (r && r.until > this.#clock() && (anyOwner || r.owner !== key)) return false;
    return true;
  }

  #reserve(n: number, key: string, reserved: Map<number, Reservation>): void {
    const now = this.#clock();
    reserved.set(n, { owner: key, until: now + RESERVATION_MS });
    // drop expired reservations now and then
    if (reserved.size > 64) for (const [v, r] of reserved) if (r.until <= now) reserved.delete(v);
  }
}
