/**
 * The API server's service allocator: cluster IPs from --service-cluster-ip-range and node ports
 * from --service-node-port-range, as kube's service REST storage hands them out. What is taken is
 * what the stored Services hold (followed through the registry with an informer, so deleting a
 * service or turning it into an ExternalName frees its values) plus short-lived reservations for
 * writes still in flight (a value handed to a create is reserved until the informer sees the
 * service, or for a minute when the create failed or was a dry run). With storage (useStore),
 * every new value is also claimed in the database before its service is stored (claims.ts), so API
 * servers sharing one database never hand out a value twice: a value claimed by another server
 * moments ago is replaced by another one when it was allocated here, refused when it was requested.
 */
import crypto from 'node:crypto';
import type { Logger } from 'pino';
import type { KubeObject } from '../kind';
import { refused, type ServiceAllocator } from '../kinds/core/service-allocation';
import { isObj, objAt, arrAt, str, type Obj } from '../kinds/util';
import { errors } from '../errors';
import type { Store } from '../../storage/store';
import { AllocationClaims, type ClaimKind } from './claims';

/** how often claims no service holds are looked for (kube's repair loops run every 3 minutes) */
const REPAIR_INTERVAL_MS = 3 * 60_000;

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
  readonly #held = new Map<string, { ips: number[]; ports: number[]; uid?: string }>();
  /** values handed out (not requested) for the writes of each service still in flight */
  readonly #handedOut = new Map<string, Set<string>>();
  /** claims made for the writes of each service still in flight: undone if the write fails */
  readonly #inFlight = new Map<string, { kind: ClaimKind; value: string; uid?: string }[]>();
  #claims: AllocationClaims | undefined;
  #repairTimer: NodeJS.Timeout | undefined;
  #logger: Logger | undefined;
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

  /** claim values in this store before services holding them are stored (several servers, one database) */
  useStore(store: Store, logger?: Logger): void {
    this.#logger = logger;
    this.#claims = new AllocationClaims({ store, logger, clock: this.#clock, holds: (kind, value, owner) => this.#holds(kind, value, owner) });
    this.#repairTimer = setInterval(() => {
      this.#claims?.repair().catch((err: unknown) => logger?.warn({ err }, 'repairing service allocation claims failed'));
    }, REPAIR_INTERVAL_MS);
    this.#repairTimer.unref();
  }

  /** claims no service holds removed now (tests; it also runs every few minutes) */
  repairClaims(): Promise<number> {
    return this.#claims?.repair() ?? Promise.resolve(0);
  }

  stop(): void {
    if (this.#repairTimer) clearInterval(this.#repairTimer);
  }

  #holds(kind: ClaimKind, value: string, owner: string): boolean {
    if (kind === 'port') return this.#portOwners.get(Number(value)) === owner;
    const n = ipToInt(value);
    return n !== undefined && this.#ips.get(n) === owner;
  }

  /** the informer saw a service (added or changed) or its deletion (obj undefined) */
  observe(key: string, obj: KubeObject | undefined): void {
    const before = this.#held.get(key);
    if (before && this.#claims) this.#unclaimDropped(key, before, obj);
    if (before) {
      for (const ip of before.ips) if (this.#ips.get(ip) === key) this.#ips.delete(ip);
      for (const p of before.ports) if (this.#portOwners.get(p) === key) this.#portOwners.delete(p);
      this.#held.delete(key);
    }
    if (!obj) return;
    const spec = objAt(obj, 'spec') ?? {};
    const ips = arrAt(spec, 'clusterIPs').length > 0 ? arrAt(spec, 'clusterIPs') : [spec.clusterIP];
    const held = { ips: [] as number[], ports: [] as number[], uid: obj.metadata?.uid };
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

  /** drop what a write for `key` (namespace/name) reserved and claimed: it stored nothing */
  release(key: string): void {
    for (const reserved of [this.#ipReservations, this.#portReservations]) {
      for (const [v, r] of reserved) if (r.owner === key) reserved.delete(v);
    }
    this.#handedOut.delete(key);
    const claims = this.#inFlight.get(key) ?? [];
    this.#inFlight.delete(key);
    for (const c of claims) this.#unclaim(c.kind, c.value, key, c.uid);
  }

  /** the write for `key` was stored: its claims stay (the service holds them now) */
  settled(key: string): void {
    this.#handedOut.delete(key);
    this.#inFlight.delete(key);
  }

  /**
   * Claim in storage each value the service holds that `old` did not. A value another server
   * claimed meanwhile is marked taken here; when this allocator handed it out, another is picked
   * (and claimed) in its place, a requested one is refused as taken.
   */
  async claim(service: Obj, old?: Obj): Promise<void> {
    const claims = this.#claims;
    const spec = objAt(service, 'spec');
    if (!claims || !spec) return;
    const meta = objAt(service, 'metadata');
    const key = `${str(meta?.namespace)}/${str(meta?.name)}`;
    const uid = typeof meta?.uid === 'string' ? meta.uid : undefined;
    const had = old ? valuesOf(old) : { ips: [], ports: [] };
    const take = async (kind: ClaimKind, first: string, replace: () => string): Promise<string> => {
      let value = first;
      for (let attempt = 0; ; attempt++) {
        if (await claims.claim(kind, value, key, uid)) {
          this.#inFlight.set(key, [...(this.#inFlight.get(key) ?? []), { kind, value, uid }]);
          return value;
        }
        // taken by another server's write: never hand it out here again until its service shows up
        const until = this.#clock() + RESERVATION_MS;
        if (kind === 'ip') this.#ipReservations.set(ipToInt(value)!, { owner: '', until });
        else this.#portReservations.set(Number(value), { owner: '', until });
        if (!this.#handedOut.get(key)?.has(`${kind}:${value}`) || attempt >= 10) return '';
        value = replace();
      }
    };
    const ips = valuesOf(service).ips.filter((ip) => !had.ips.includes(ip));
    for (const ip of ips) {
      const got = await take('ip', ip, () => this.allocateIP(key));
      if (!got) refused(service, 'spec.clusterIPs', `[]string{${JSON.stringify(ip)}}`, `failed to allocate IP ${ip}: provided IP is already allocated`);
      if (got !== ip) {
        spec.clusterIP = got;
        spec.clusterIPs = [got];
      }
    }
    for (const [i, p] of arrAt(spec, 'ports').entries()) {
      if (!isObj(p) || typeof p.nodePort !== 'number' || p.nodePort <= 0 || had.ports.includes(p.nodePort)) continue;
      const port = String(p.nodePort);
      const got = await take('port', port, () => String(this.allocateNodePort(`${key}/${i}/${str(p.name)}`)));
      if (!got) refused(service, `spec.ports[${i}].nodePort`, port, 'provided port is already allocated');
      p.nodePort = Number(got);
    }
  }

  /** the claims of values a service no longer holds (changed, or deleted when obj is undefined) */
  #unclaimDropped(key: string, before: { ips: number[]; ports: number[]; uid?: string }, obj: KubeObject | undefined): void {
    const now = obj ? valuesOf(obj) : { ips: [], ports: [] };
    for (const n of before.ips) if (!now.ips.includes(intToIp(n))) this.#unclaim('ip', intToIp(n), key, before.uid);
    for (const p of before.ports) if (!now.ports.includes(p)) this.#unclaim('port', String(p), key, before.uid);
  }

  #unclaim(kind: ClaimKind, value: string, key: string, uid: string | undefined): void {
    this.#claims?.unclaim(kind, value, key, uid).catch((err: unknown) => this.#logger?.warn({ err, kind, value }, 'removing a service allocation claim failed; repair will'));
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
        this.#noteHandedOut(key, `ip:${intToIp(n)}`);
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
        this.#noteHandedOut(owner, `port:${p}`);
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

  #noteHandedOut(key: string, what: string): void {
    if (!this.#claims) return;
    const set = this.#handedOut.get(key) ?? new Set<string>();
    set.add(what);
    this.#handedOut.set(key, set);
  }

  #reserve(n: number, key: string, reserved: Map<number, Reservation>): void {
    const now = this.#clock();
    reserved.set(n, { owner: key, until: now + RESERVATION_MS });
    // drop expired reservations now and then
    if (reserved.size > 64) for (const [v, r] of reserved) if (r.until <= now) reserved.delete(v);
  }
}

/** the cluster IPs and node ports a service holds */
function valuesOf(service: Obj): { ips: string[]; ports: number[] } {
  const spec = objAt(service, 'spec') ?? {};
  const listed = arrAt(spec, 'clusterIPs').length > 0 ? arrAt(spec, 'clusterIPs') : [spec.clusterIP];
  const ips = listed.filter((ip): ip is string => typeof ip === 'string' && ipToInt(ip) !== undefined);
  const ports = arrAt(spec, 'ports')
    .filter(isObj)
    .map((p) => p.nodePort)
    .filter((p): p is number => typeof p === 'number' && p > 0);
  return { ips, ports };
}
