/**
 * The API server's Prometheus metrics, on a registry of our own (never prom-client's global one, so
 * two servers in one process, as in tests, keep separate counts). Names, label names and buckets are
 * kube-apiserver's (k8s.io/apiserver endpoints/metrics and storage/etcd3/metrics), so dashboards and
 * alerts written for kube read Ballast unchanged. Process and Node.js metrics come from prom-client's
 * default collectors.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** kube's latency buckets for apiserver_request_duration_seconds and etcd_request_duration_seconds */
export const latencyBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** kube's response size buckets: 1000 bytes times powers of ten, eight of them */
export const responseSizeBuckets = Array.from({ length: 8 }, (_, i) => 1000 * 10 ** i);

const requestLabels = ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const sizeLabels = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;

export interface ApiServerMetricsOptions {
  /** register prom-client's process and Node.js collectors. Default true */
  defaultCollectors?: boolean;
}

export class ApiServerMetrics {
  readonly registry = new Registry();

  readonly requestTotal = new Counter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: [...requestLabels, 'code'],
    registers: [this.registry],
  });

  readonly requestDuration = new Histogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: requestLabels,
    buckets: latencyBuckets,
    registers: [this.registry],
  });

  readonly responseSizes = new Histogram({
    name: 'apiserver_response_sizes',
    help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
    labelNames: sizeLabels,
    buckets: responseSizeBuckets,
    registers: [this.registry],
  });

  readonly requestAborts = new Counter({
    name: 'apiserver_request_aborts_total',
    help: 'Number of requests which apiserver aborted possibly due to a timeout, for each group, version, verb, resource, subresource and scope',
    labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope'],
    registers: [this.registry],
  });

  readonly requestTerminations = new Counter({
    name: 'apiserver_request_terminations_total',
    help: 'Number of requests which apiserver terminated in self-defense.',
    labelNames: [...sizeLabels, 'code'],
    registers: [this.registry],
  });

  readonly currentInflight = new Gauge({
    name: 'apiserver_current_inflight_requests',
    help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
    labelNames: ['request_kind'],
    registers: [this.registry],
  });

  readonly longRunning = new Gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    labelNames: sizeLabels,
    registers: [this.registry],
  });

  readonly registeredWatchers = new Gauge({
    name: 'apiserver_registered_watchers',
    help: 'Number of currently registered watchers for a given resources',
    labelNames: ['group', 'version', 'kind'],
    registers: [this.registry],
  });

  readonly storageObjects = new Gauge({
    name: 'apiserver_storage_objects',
    help: 'Number of stored objects at the time of last check split by kind.',
    labelNames: ['resource'],
    registers: [this.registry],
  });

  readonly storageDbSize = new Gauge({
    name: 'apiserver_storage_db_total_size_in_bytes',
    help: 'Total size of the storage database file physically allocated in bytes.',
    labelNames: ['endpoint'],
    registers: [this.registry],
  });

  /** kube 1.20's name for the same figure */
  readonly etcdDbSize = new Gauge({
    name: 'etcd_db_total_size_in_bytes',
    help: 'Total size of the etcd database file physically allocated in bytes.',
    labelNames: ['endpoint'],
    registers: [this.registry],
  });

  readonly storageRequestDuration = new Histogram({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    labelNames: ['operation', 'type'],
    buckets: latencyBuckets,
    registers: [this.registry],
  });

  constructor(opts: ApiServerMetricsOptions = {}) {
    // both kinds are always present, as in kube, so a scrape shows 0 rather than nothing
    this.currentInflight.set({ request_kind: 'readOnly' }, 0);
    this.currentInflight.set({ request_kind: 'mutating' }, 0);
    if (opts.defaultCollectors !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** the Prometheus text exposition of every metric */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
