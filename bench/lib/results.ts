/** The shape of bench/results/<run>.json. Latencies are in milliseconds, sizes in MiB. */
import type { LatencySummary } from './stats';

/**
 * ballast: the API server on SQLite; postgres: on PostgreSQL; postgres-2: two API servers on one
 * PostgreSQL database (writes spread over both, reads and watches on the second)
 */
export type BallastSystem = 'ballast' | 'postgres' | 'postgres-2';
export type System = BallastSystem | 'etcd';

export interface WriteResult {
  system: System;
  /** ballast: create, update (with a resourceVersion precondition), delete; etcd: put, txn (mod_revision compare), deleterange */
  op: string;
  clients: number;
  count: number;
  opsPerSec: number;
  latency: LatencySummary;
  /** CPU (user + system) the server process(es) used per operation, ms (/proc, 10 ms ticks) */
  serverCpuMsPerOp?: number;
}

export interface ReadResult {
  system: System;
  /** objects in the collection */
  size: number;
  /** get | list (the whole collection) | page (limit 500, following continue tokens) */
  op: 'get' | 'list' | 'page';
  /**
   * ballast: mostRecent (rv unset), any (rv=0), notOlderThan (a recent rv), exact (an older rv);
   * etcd: linearizable, serializable, revision (an older revision)
   */
  mode: string;
  /** measured while 64 writers update other objects */
  underLoad: boolean;
  items: number;
  latency: LatencySummary;
  note?: string;
}

export interface WatchResult {
  system: System;
  watchers: number;
  events: number;
  /** write acknowledged -> event received by a watcher, over every watcher and event */
  latency: LatencySummary;
  /** write sent -> event received (the event often arrives before the write's response: then ack -> event is 0) */
  fromSend: LatencySummary;
  /** watchers that missed an event */
  missed: number;
}

export interface WatchThroughputResult {
  system: System;
  /** replay: history after an old revision; initial: the current state (ballast rv=0, from the cache) */
  mode: string;
  events: number;
  eventsPerSec: number;
}

export interface FootprintResult {
  system: System;
  objects: number;
  rssMiB: number;
  /** ballast: after an rv=0 list has loaded the watch cache of the collection */
  rssWithCacheMiB?: number;
  dbMiB: number;
  walMiB: number;
}

export interface StartupResult {
  system: System;
  objects: number;
  readyMs: number;
}

export interface ChurnSample {
  atSec: number;
  writes: number;
  p50: number;
  p99: number;
  max: number;
  dbMiB: number;
  walMiB: number;
  rssMiB: number;
}

export interface ChurnResult {
  leases: number;
  periodSec: number;
  durationSec: number;
  compactionInterval: string;
  samples: ChurnSample[];
  /** compactions the server logged: revision, rows removed, milliseconds */
  compactions: { removed: number; ms: number }[];
  latency: LatencySummary;
  errors: number;
}

export interface TargetRow {
  target: string;
  ours: number;
  reference: number;
  /** ours / reference, or the value itself for absolute targets */
  ratio: number;
  goal: string;
  pass: boolean | null;
  note?: string;
}

export interface BenchResults {
  meta: {
    command: string;
    date: string;
    node: string;
    cpus: number;
    cpuModel: string;
    memGiB: number;
    loadAverage: number[];
    etcdVersion?: string;
    postgresVersion?: string;
    ballastCommit?: string;
    config: Record<string, unknown>;
    notes: string[];
  };
  writes: WriteResult[];
  reads: ReadResult[];
  watch: WatchResult[];
  watchThroughput: WatchThroughputResult[];
  footprint: FootprintResult[];
  startup: StartupResult[];
  churn?: ChurnResult;
  targets: TargetRow[];
}
