/**
 * kube's master controller (pkg/controlplane/controller.go and reconcilers/): the `kubernetes`
 * Service in --master-service-namespace (clusterIP = the first address of
 * --service-cluster-ip-range, port `https` 443 -> --secure-port, NodePort when
 * --kubernetes-service-node-port is set), and its Endpoints and EndpointSlice holding the API
 * servers' advertise addresses, kept every 10 s by the --endpoint-reconciler-type:
 *
 *   lease         each server keeps a record under /registry/masterleases/<ip> that expires after
 *                 15 s unless renewed; the endpoints are the addresses of the live records
 *   master-count  this server's address is kept among at most --apiserver-count addresses
 *   none          the Service only; nothing is written to Endpoints or EndpointSlices
 *
 * Writes go through the Registry (admission, validation, the service allocator, which holds the
 * first address and the node port for the Service). Ballast's Endpoints validation accepts
 * loopback addresses, so an advertise address of 127.0.0.1 (tests) needs no separate path.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Logger } from 'pino';
import { FlagError } from '../options/types';
import type { KindDefinition, KubeObject } from '../api/kind';
import { isApiError } from '../api/errors';
import type { Registry, Target } from '../api/registry/types';
import type { Scheme } from '../api/scheme';
import type { Store } from '../storage/store';
import { isStorageError } from '../storage/store';

export type EndpointReconcilerType = 'lease' | 'master-count' | 'none';

export interface MasterServiceOptions {
  registry: Registry;
  scheme: Scheme;
  /** where the lease records live (they are not API objects) */
  store: Store;
  logger: Logger;
  /** --master-service-namespace */
  namespace: string;
  /** the first address of --service-cluster-ip-range */
  serviceIP: string;
  /** --secure-port: the target port and the endpoints' port */
  securePort: number;
  /** --advertise-address (resolved) */
  advertiseAddress: string;
  /** --kubernetes-service-node-port; 0 = ClusterIP */
  nodePort: number;
  reconciler: EndpointReconcilerType;
  /** --apiserver-count (master-count) */
  apiServerCount: number;
  /** kube: 10 s */
  intervalMs?: number;
  /** how long a lease record lives without renewal; kube: 15 s */
  leaseTtlMs?: number;
  clock?: () => number;
}

const SERVICE_NAME = 'kubernetes';
const SERVICE_PORT = 443;
const PORT_NAME = 'https';
/** the field manager of kube's own writes */
const MANAGER = 'kube-apiserver';
export const MASTER_LEASES_PREFIX = '/registry/masterleases/';

interface LeaseRecord {
  ip: string;
  /** ms since the epoch */
  expires: number;
}

export class MasterServiceController {
  readonly #o: MasterServiceOptions;
  readonly #clock: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(o: MasterServiceOptions) {
    this.#o = o;
    this.#clock = o.clock ?? Date.now;
  }

  /** the first reconcile (retried each second until it succeeds), then one every interval (errors are logged) */
  async start(): Promise<void> {
    for (;;) {
      try {
        await this.reconcile();
        break;
      } catch (err) {
        if (this.#stopped) return;
        this.#o.logger.warn({ err }, 'Unable to create the kubernetes service; retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    if (this.#stopped) return;
    const tick = (): void => {
      this.#running = this.reconcile().catch((err) => this.#o.logger.warn({ err }, 'Unable to reconcile the kubernetes service; retrying'));
      void this.#running.then(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#o.intervalMs ?? 10_000);
      });
    };
    this.#timer = setTimeout(tick, this.#o.intervalMs ?? 10_000);
  }

  /**
   * stop reconciling; with the lease reconciler this server's lease is removed and the endpoints
   * are rewritten from the remaining leases (kube's RemoveEndpoints on shutdown)
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
    if (this.#o.reconciler !== 'lease') return;
    try {
      await this.#o.store.delete(leaseKey(this.#o.advertiseAddress));
    } catch (err) {
      if (!isStorageError(err, 'NotFound')) throw err;
    }
    await this.#reconcileEndpoints();
  }

  /** one pass: namespace, Service, then the endpoints */
  async reconcile(): Promise<void> {
    await this.#ensureNamespace();
    await this.#ensureService();
    if (this.#o.reconciler === 'none') return;
    if (this.#o.reconciler === 'lease') await this.#renewLease();
    await this.#reconcileEndpoints();
  }

  #kind(group: string, version: string, resource: string): KindDefinition | undefined {
    return this.#o.scheme.byResource(group, version, resource);
  }

  async #ensureNamespace(): Promise<void> {
    // the system namespaces are ensured at bootstrap; a non-default --master-service-namespace is ours to make
    const kind = this.#kind('', 'v1', 'namespaces');
    if (!kind) return;
    await createIfMissing(this.#o.registry, { kind }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: this.#o.namespace } });
  }

  #wantedPorts(): Record<string, unknown>[] {
    const port: Record<string, unknown> = { name: PORT_NAME, protocol: 'TCP', port: SERVICE_PORT, targetPort: this.#o.securePort };
    if (this.#o.nodePort > 0) port.nodePort = this.#o.nodePort;
    return [port];
  }

  /** kube's CreateOrUpdateMasterServiceIfNeeded: created when missing; ports and type put back when changed */
  async #ensureService(): Promise<void> {
    const kind = this.#kind('', 'v1', 'services');
    if (!kind) return;
    const type = this.#o.nodePort > 0 ? 'NodePort' : 'ClusterIP';
    const target: Target = { kind, namespace: this.#o.namespace, name: SERVICE_NAME };
    const existing = await getOrUndefined(this.#o.registry, target);
    if (!existing) {
      const service: KubeObject = {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: SERVICE_NAME, namespace: this.#o.namespace, labels: { provider: 'kubernetes', component: 'apiserver' } },
        spec: { ports: this.#wantedPorts(), clusterIP: this.#o.serviceIP, sessionAffinity: 'None', type },
      };
      await createIfMissing(this.#o.registry, { kind, namespace: this.#o.namespace }, service);
      return;
    }
    const spec = (existing.spec ?? {}) as Record<string, unknown>;
    const ports = Array.isArray(spec.ports) ? (spec.ports as Record<string, unknown>[]) : [];
    const want = this.#wantedPorts()[0];
    const same = spec.type === type && ports.length === 1 && ports[0].name === PORT_NAME && ports[0].port === SERVICE_PORT
      && ports[0].protocol === 'TCP' && ports[0].targetPort === this.#o.securePort && (this.#o.nodePort === 0 || ports[0].nodePort === this.#o.nodePort);
    if (same) return;
    const next = structuredClone(existing);
    next.spec = { ...spec, type, ports: [want] };
    await this.#o.registry.update(target, next, { dryRun: false, fieldManager: MANAGER });
  }

  async #renewLease(): Promise<void> {
    const ip = this.#o.advertiseAddress;
    const value = JSON.stringify({ ip, expires: this.#clock() + (this.#o.leaseTtlMs ?? 15_000) } satisfies LeaseRecord);
    const key = leaseKey(ip);
    const kv = await this.#o.store.get(key);
    if (kv) await this.#o.store.update(key, value);
    else await this.#o.store.create(key, value);
  }

  /** the live leases' addresses; expired records are removed (the TTL etcd would enforce) */
  async #liveLeases(): Promise<string[]> {
    const now = this.#clock();
    const { items } = await this.#o.store.list(MASTER_LEASES_PREFIX);
    const live: string[] = [];
    for (const kv of items) {
      let rec: Partial<LeaseRecord> = {};
      try {
        rec = JSON.parse(kv.value) as LeaseRecord;
      } catch {
        // an unreadable record counts as expired
      }
      if (typeof rec.ip === 'string' && typeof rec.expires === 'number' && rec.expires > now) live.push(rec.ip);
      else await this.#o.store.delete(kv.key, kv.modRevision).catch(() => undefined);
    }
    return live;
  }

  async #wantedAddresses(current: string[]): Promise<string[] | undefined> {
    const own = this.#o.advertiseAddress;
    if (this.#o.reconciler === 'lease') {
      const live = await this.#liveLeases();
      // kube refuses to erase every endpoint of the kubernetes service (the last server going away)
      return live.length === 0 ? undefined : sortIPs(live);
    }
    // master-count: this server's address is kept; others beyond --apiserver-count are dropped
    const others = current.filter((ip) => ip !== own);
    return sortIPs([own, ...sortIPs(others).slice(0, Math.max(0, this.#o.apiServerCount - 1))]);
  }

  async #reconcileEndpoints(): Promise<void> {
    const epKind = this.#kind('', 'v1', 'endpoints');
    if (!epKind) return;
    const target: Target = { kind: epKind, namespace: this.#o.namespace, name: SERVICE_NAME };
    const existing = await getOrUndefined(this.#o.registry, target);
    const addresses = await this.#wantedAddresses(endpointAddresses(existing));
    if (!addresses) return;
    const port = { name: PORT_NAME, port: this.#o.securePort, protocol: 'TCP' };
    const subsets = [{ addresses: addresses.map((ip) => ({ ip })), ports: [port] }];
    const endpoints: KubeObject = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: SERVICE_NAME, namespace: this.#o.namespace, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
      subsets,
    };
    await this.#put(target, existing, endpoints, (o) => JSON.stringify(o.subsets ?? []) === JSON.stringify(subsets));
    const sliceKind = this.#kind('discovery.k8s.io', 'v1', 'endpointslices');
    if (!sliceKind) return;
    const sliceTarget: Target = { kind: sliceKind, namespace: this.#o.namespace, name: SERVICE_NAME };
    const slice: KubeObject = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: SERVICE_NAME, namespace: this.#o.namespace, labels: { 'kubernetes.io/service-name': SERVICE_NAME } },
      addressType: addresses[0].includes(':') ? 'IPv6' : 'IPv4',
      endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [port],
    };
    const sameSlice = (o: KubeObject): boolean => o.addressType === slice.addressType
      && JSON.stringify(((o.endpoints ?? []) as { addresses?: string[] }[]).map((e) => e.addresses)) === JSON.stringify(addresses.map((a) => [a]))
      && JSON.stringify(o.ports ?? []) === JSON.stringify([port]);
    await this.#put(sliceTarget, await getOrUndefined(this.#o.registry, sliceTarget), slice, sameSlice);
  }

  /** create, or update when the stored object differs (an address type change recreates the slice: it is immutable) */
  async #put(target: Target, existing: KubeObject | undefined, wanted: KubeObject, same: (o: KubeObject) => boolean): Promise<void> {
    const r = this.#o.registry;
    if (!existing) {
      await createIfMissing(r, { kind: target.kind, namespace: target.namespace }, wanted);
      return;
    }
    if (same(existing)) return;
    if (existing.addressType !== undefined && existing.addressType !== wanted.addressType) {
      await r.delete(target, { dryRun: false });
      await createIfMissing(r, { kind: target.kind, namespace: target.namespace }, wanted);
      return;
    }
    const next = { ...wanted, metadata: { ...existing.metadata, labels: { ...existing.metadata?.labels, ...wanted.metadata?.labels } } };
    await r.update(target, next, { dryRun: false, fieldManager: MANAGER });
  }
}

function leaseKey(ip: string): string {
  return `${MASTER_LEASES_PREFIX}${ip}`;
}

function endpointAddresses(ep: KubeObject | undefined): string[] {
  const subsets = Array.isArray(ep?.subsets) ? (ep.subsets as { addresses?: { ip?: string }[] }[]) : [];
  return subsets.flatMap((s) => (s.addresses ?? []).map((a) => String(a.ip ?? ''))).filter((ip) => ip !== '');
}

/** kube sorts the endpoint addresses so every server writes the same list */
function sortIPs(ips: string[]): string[] {
  return [...new Set(ips)].sort();
}

async function getOrUndefined(registry: Registry, target: Target): Promise<KubeObject | undefined> {
  try {
    return await registry.get(target, {});
  } catch (err) {
    if (isApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

async function createIfMissing(registry: Registry, target: Target, obj: KubeObject): Promise<void> {
  try {
    await registry.create(target, obj, { dryRun: false, fieldManager: MANAGER });
  } catch (err) {
    // another server (or an earlier pass) made it first
    if (!isApiError(err) || err.code !== 409) throw err;
  }
}

/**
 * the default of --advertise-address (kube's ResolveBindAddress): the bind address unless it is
 * 0.0.0.0 or ::, else the first non-internal IPv4 address of the interface the default route uses
 * (/proc/net/route), else of any interface
 */
export function defaultAdvertiseAddress(bindAddress: string, deps: { interfaces?: NodeJS.Dict<os.NetworkInterfaceInfo[]>; routes?: () => string } = {}): string {
  if (bindAddress !== '0.0.0.0' && bindAddress !== '::' && bindAddress !== '') return bindAddress;
  const interfaces = deps.interfaces ?? os.networkInterfaces();
  let routes = '';
  try {
    routes = deps.routes ? deps.routes() : fs.readFileSync('/proc/net/route', 'utf8');
  } catch {
    // no routing table to read (not Linux): any interface will do
  }
  const defaultIface = routes.split('\n').slice(1).map((l) => l.trim().split(/\s+/)).find((f) => f[1] === '00000000')?.[0];
  const ipv4Of = (name: string | undefined) => (name ? interfaces[name] ?? [] : []).find((a) => a.family === 'IPv4' && !a.internal)?.address;
  const found = ipv4Of(defaultIface) ?? Object.keys(interfaces).map(ipv4Of).find((a) => a !== undefined);
  if (!found) {
    throw new FlagError("Unable to find suitable network address.error='no non-loopback IPv4 address found'. Try to set the AdvertiseAddress directly or provide a valid BindAddress to fix this.");
  }
  return found;
}
