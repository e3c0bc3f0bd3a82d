/**
 * The scheduler's Prometheus metrics, with kube-scheduler 1.20's names and labels (the subset a
 * user watches: attempts by result, latencies, queue sizes, preemption, cache size).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const exponential = (start: number, factor: number, count: number) => Array.from({ length: count }, (_, i) => start * factor ** i);

export class SchedulerMetrics {
  readonly attempts: Counter<'result' | 'profile'>;
  readonly e2eDuration: Histogram<'result' | 'profile'>;
  readonly algorithmDuration: Histogram;
  readonly pendingPods: Gauge<'queue'>;
  readonly podAttempts: Histogram;
  readonly preemptionAttempts: Counter;
  readonly preemptionVictims: Histogram;
  readonly cacheSize: Gauge<'type'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.attempts = new Counter({ name: 'scheduler_schedule_attempts_total', help: 'Number of attempts to schedule pods, by the result. \'unschedulable\' means a pod could not be scheduled, while \'error\' means an internal scheduler problem.', labelNames: ['result', 'profile'], registers });
    this.e2eDuration = new Histogram({ name: 'scheduler_e2e_scheduling_duration_seconds', help: 'E2e scheduling latency in seconds (scheduling algorithm + binding)', labelNames: ['result', 'profile'], buckets: exponential(0.001, 2, 15), registers });
    this.algorithmDuration = new Histogram({ name: 'scheduler_scheduling_algorithm_duration_seconds', help: 'Scheduling algorithm latency in seconds', buckets: exponential(0.001, 2, 15), registers });
    this.pendingPods = new Gauge({ name: 'scheduler_pending_pods', help: 'Number of pending pods, by the queue type. \'active\' means number of pods in activeQ; \'backoff\' means number of pods in backoffQ; \'unschedulable\' means number of pods in unschedulableQ.', labelNames: ['queue'], registers });
    this.podAttempts = new Histogram({ name: 'scheduler_pod_scheduling_attempts', help: 'Number of attempts to successfully schedule a pod.', buckets: exponential(1, 2, 5), registers });
    this.preemptionAttempts = new Counter({ name: 'scheduler_preemption_attempts_total', help: 'Total preemption attempts in the cluster till now', registers });
    this.preemptionVictims = new Histogram({ name: 'scheduler_preemption_victims', help: 'Number of selected preemption victims', buckets: exponential(1, 2, 6), registers });
    this.cacheSize = new Gauge({ name: 'scheduler_scheduler_cache_size', help: 'Number of nodes, pods, and assumed (bound) pods in the scheduler cache.', labelNames: ['type'], registers });
  }
}
