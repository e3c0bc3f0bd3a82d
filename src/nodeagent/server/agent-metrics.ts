/**
 * The node agent's own metrics (kubelet's pkg/kubelet/metrics), registered on the registry /metrics
 * serves. The other parts of the agent feed them: the pod workers time their syncs, the runtime
 * wrapper counts its operations, the pod lifecycle observes start latency.
 */
import { Counter, Gauge, Histogram, collectDefaultMetrics, type Registry } from 'prom-client';

export class AgentMetrics {
  readonly runningPods: Gauge;
  readonly runningContainers: Gauge<'container_state'>;
  readonly podStartDuration: Histogram;
  readonly podWorkerDuration: Histogram<'operation_type'>;
  readonly podWorkerStartDuration: Histogram;
  readonly runtimeOperations: Counter<'operation_type'>;
  readonly runtimeOperationsErrors: Counter<'operation_type'>;
  readonly runtimeOperationsDuration: Histogram<'operation_type'>;
  readonly pleg: Histogram;

  /** registers kubelet's metrics on `registry`; `processMetrics` adds process_* and nodejs_* collectors */
  constructor(registry: Registry, opts: { processMetrics?: boolean } = {}) {
    const registers = [registry];
    const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
    this.runningPods = new Gauge({ name: 'kubelet_running_pods', help: '[ALPHA] Number of pods that have a running pod sandbox', registers });
    this.runningContainers = new Gauge({ name: 'kubelet_running_containers', help: '[ALPHA] Number of containers currently running', labelNames: ['container_state'], registers });
    this.podStartDuration = new Histogram({ name: 'kubelet_pod_start_duration_seconds', help: '[ALPHA] Duration in seconds for a single pod to go from pending to running.', buckets: seconds, registers });
    this.podWorkerDuration = new Histogram({ name: 'kubelet_pod_worker_duration_seconds', help: '[ALPHA] Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync', labelNames: ['operation_type'], buckets: seconds, registers });
    this.podWorkerStartDuration = new Histogram({ name: 'kubelet_pod_worker_start_duration_seconds', help: '[ALPHA] Duration in seconds from seeing a pod to starting a worker.', buckets: seconds, registers });
    this.runtimeOperations = new Counter({ name: 'kubelet_runtime_operations_total', help: '[ALPHA] Cumulative number of runtime operations by operation type.', labelNames: ['operation_type'], registers });
    this.runtimeOperationsErrors = new Counter({ name: 'kubelet_runtime_operations_errors_total', help: '[ALPHA] Cumulative number of runtime operation errors by operation type.', labelNames: ['operation_type'], registers });
    this.runtimeOperationsDuration = new Histogram({ name: 'kubelet_runtime_operations_duration_seconds', help: '[ALPHA] Duration in seconds of runtime operations. Broken down by operation type.', labelNames: ['operation_type'], buckets: seconds, registers });
    this.pleg = new Histogram({ name: 'kubelet_pleg_relist_duration_seconds', help: '[ALPHA] Duration in seconds for relisting pods in PLEG.', buckets: seconds, registers });
    if (opts.processMetrics) collectDefaultMetrics({ register: registry });
  }

  /** times one runtime call under its CRI operation name (e.g. `list_containers`), counting errors */
  async observeRuntime<T>(operation: string, call: () => Promise<T>): Promise<T> {
    const end = this.runtimeOperationsDuration.startTimer({ operation_type: operation });
    this.runtimeOperations.inc({ operation_type: operation });
    try {
      return await call();
    } catch (err) {
      this.runtimeOperationsErrors.inc({ operation_type: operation });
      throw err;
    } finally {
      end();
    }
  }
}
