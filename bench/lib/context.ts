/** What every scenario gets: the two systems, client factories, the settings, progress and the results. */
import { EtcdClient } from '../etcd';
import type { EtcdServer } from '../etcd';
import type { BallastServer } from './ballast-server';
import { HttpClient } from './http-client';
import type { Progress } from './progress';
import type { BallastSystem, BenchResults } from './results';

export interface BenchConfig {
  /** small sizes and counts, for CI smoke runs */
  quick: boolean;
  /** collection sizes of the read scenarios (ascending) */
  sizes: number[];
  /** concurrent clients of the write scenarios */
  writeClients: number[];
  /** operations per write measurement: [with 1 client, with more] */
  writeCounts: [number, number];
  /** watcher counts of the watch latency scenario */
  watchers: number[];
  /** events written per watch latency measurement */
  watchEvents: number;
  /** churn duration in seconds (0 = skip) */
  churnSeconds: number;
  /** --etcd-compaction-interval of the server during churn */
  churnCompaction: string;
  /** bytes of each ConfigMap as stored */
  objectBytes: number;
  /** run etcd side by side */
  etcd: boolean;
  /** run writes, reads and watch again on PostgreSQL: one API server, then two on one database */
  postgres: boolean;
  outDir: string;
  /** scenarios to run (writes, reads, watch, footprint, churn) */
  scenarios: Set<string>;
  /** make run's flags and an RBAC-bound service account as the clients (false: anonymous, AlwaysAllow) */
  secured: boolean;
  /** extra flags of the server under test */
  serverArgs?: string[];
  /** where CPU profiles of the server go (undefined = none) */
  cpuProfDir?: string;
}

export interface BenchContext {
  cfg: BenchConfig;
  /** which Ballast set-up is measured (the results' system) */
  system: BallastSystem;
  ballast: BallastServer;
  /** postgres-2: the second API server on the same database (reads and watches go there) */
  peer?: BallastServer;
  etcd?: EtcdServer;
  progress: Progress;
  results: BenchResults;
  log(line: string): void;
}

export function ballastClient(ctx: BenchContext, maxSockets: number): HttpClient {
  return ctx.ballast.client(maxSockets);
}

/** a client of the server that serves reads and watches: the second server when there are two */
export function readerClient(ctx: BenchContext, maxSockets: number): HttpClient {
  return (ctx.peer ?? ctx.ballast).client(maxSockets);
}

/**
 * clients for a write load of `clients` concurrent writers: one per server, the writers split
 * between them (the i-th operation goes to clients[i % clients.length])
 */
export function writerClients(ctx: BenchContext, clients: number): HttpClient[] {
  const servers = ctx.peer ? [ctx.ballast, ctx.peer] : [ctx.ballast];
  return servers.map((s) => s.client(Math.max(1, Math.ceil(clients / servers.length))));
}

export function etcdClient(ctx: BenchContext, maxSockets: number): EtcdClient | undefined {
  return ctx.etcd ? new EtcdClient(ctx.etcd.url, maxSockets) : undefined;
}

/** a ConfigMap of about cfg.objectBytes bytes as stored */
export function configMap(name: string, namespace: string, bytes: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  // the stored JSON carries ~260 bytes of metadata (uid, timestamps, managedFields) besides the payload
  const payload = 'x'.repeat(Math.max(16, bytes - 420));
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels: { app: 'bench' }, ...extra }, data: { payload } };
}

/** the raw value etcd gets for the same object: a JSON document of the same size */
export function etcdValue(name: string, bytes: number): string {
  const doc = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, uid: '00000000-0000-0000-0000-000000000000' }, data: { payload: '' } };
  const base = JSON.stringify(doc).length;
  doc.data.payload = 'x'.repeat(Math.max(16, bytes - base));
  return JSON.stringify(doc);
}

/** create a namespace (ignoring AlreadyExists) */
export async function ensureNamespace(http: HttpClient, name: string): Promise<void> {
  const res = await http.request('POST', '/api/v1/namespaces', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  if (res.status !== 201 && res.status !== 409) throw new Error(`create namespace ${name}: ${res.status} ${res.body.toString().slice(0, 200)}`);
}

export const cmPath = (ns: string, name?: string) => `/api/v1/namespaces/${ns}/configmaps${name ? '/' + name : ''}`;
export const objName = (i: number) => `cm-${String(i).padStart(7, '0')}`;
