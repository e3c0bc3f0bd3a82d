/**
 * The work queues' Prometheus metrics, named and bucketed as client-go's (workqueue_depth,
 * workqueue_adds_total, workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
 * workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds,
 * workqueue_retries_total, each labelled by the queue's name). As in client-go, only named queues
 * are measured, and only once a component has installed a registry (the controller manager does;
 * tests running controllers in-process do not).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** what a queue reports; all times in seconds */
export interface QueueMetrics {
  add(): void;
  /** a key left the queue for a worker after waiting this long */
  waited(seconds: number): void;
  /** a worker finished a key after this long */
  worked(seconds: number): void;
  retry(): void;
  depth(n: number): void;
}

/** a queue the gauges read at scrape time: how long its in-flight keys have been processed */
export interface InFlight {
  readonly name: string;
  processingSeconds(now: number): number[];
}

const NO_METRICS: QueueMetrics = Object.freeze({ add() {}, waited() {}, worked() {}, retry() {}, depth() {} });

interface Installed {
  adds: Counter<'name'>;
  depth: Gauge<'name'>;
  latency: Histogram<'name'>;
  work: Histogram<'name'>;
  retries: Counter<'name'>;
  live: Set<InFlight>;
}

let installed: Installed | undefined;

/** client-go's buckets: 10ns times powers of ten, ten of them (up to 10 s) */
const BUCKETS = Array.from({ length: 10 }, (_, i) => 1e-8 * 10 ** i);

/** register the metrics in `registry`; queues created afterwards report to it */
export function installWorkQueueMetrics(registry: Registry): void {
  const live = new Set<InFlight>();
  const perQueue = (pick: (seconds: number[]) => number) =>
    function (this: Gauge<'name'>) {
      this.reset();
      const now = performance.now();
      const totals = new Map<string, number>();
      for (const q of live) totals.set(q.name, Math.max(totals.get(q.name) ?? 0, pick(q.processingSeconds(now))));
      for (const [name, v] of totals) this.set({ name }, v);
    };
  installed = {
    live,
    adds: new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers: [registry] }),
    depth: new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers: [registry] }),
    latency: new Histogram({ name: 'workqueue_queue_duration_seconds', help: 'How long in seconds an item stays in workqueue before being requested.', labelNames: ['name'], buckets: BUCKETS, registers: [registry] }),
    work: new Histogram({ name: 'workqueue_work_duration_seconds', help: 'How long in seconds processing an item from workqueue takes.', labelNames: ['name'], buckets: BUCKETS, registers: [registry] }),
    retries: new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers: [registry] }),
  };
  new Gauge({
    name: 'workqueue_unfinished_work_seconds',
    help: 'How many seconds of work has done that is in progress and hasn\'t been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
    labelNames: ['name'],
    registers: [registry],
    collect: perQueue((s) => s.reduce((a, b) => a + b, 0)),
  });
  new Gauge({
    name: 'workqueue_longest_running_processor_seconds',
    help: 'How many seconds has the longest running processor for workqueue been running.',
    labelNames: ['name'],
    registers: [registry],
    collect: perQueue((s) => s.reduce((a, b) => Math.max(a, b), 0)),
  });
}

/** the metrics of one queue (no-ops when it has no name or no registry is installed) */
export function queueMetrics(queue: InFlight | undefined): { metrics: QueueMetrics; release(): void } {
  const m = installed;
  if (!m || !queue || queue.name === '') return { metrics: NO_METRICS, release() {} };
  m.live.add(queue);
  const name = queue.name;
  return {
    metrics: {
      add: () => m.adds.inc({ name }),
      waited: (s) => m.latency.observe({ name }, s),
      worked: (s) => m.work.observe({ name }, s),
      retry: () => m.retries.inc({ name }),
      depth: (n) => m.depth.set({ name }, n),
    },
    release: () => m.live.delete(queue),
  };
}
