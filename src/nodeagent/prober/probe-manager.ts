/**
 * The prober (kubelet 1.20's prober.Manager): one worker per container and probe type of the pods
 * it is given, their results in `liveness`, `readiness` and `startup`, and the ready/started flags
 * they mean for a pod's status. The pod workers subscribe with onUpdate to resync a pod whose result
 * changed (kuberuntime reads liveness and startup failures to restart the container); the status
 * manager calls updatePodStatus while it builds a pod's status.
 *
 * The workers read each pod's latest status from `getPodStatus` when given, else from the last
 * status passed to updatePodStatus (kubelet's status manager cache holds the same thing).
 */
import type { Pod, RuntimeService } from '../types';
import { REAL_CLOCK, type ProberClock } from './clock';
import { probeSpec, type ContainerSpec, type ProbeEventRecorder } from './prober';
import { ProbeResultsManager, type ProbeType, type ProbeUpdate } from './results';
import { ProbeWorker, type ApiPodStatus } from './worker';

export interface ProbeManagerOptions {
  runtime: Pick<RuntimeService, 'execSync'>;
  recorder: ProbeEventRecorder;
  clock?: ProberClock;
  /** the first probe's jitter; Math.random when absent */
  random?: () => number;
  getPodStatus?: (podUid: string) => ApiPodStatus | undefined;
}

const PROBE_TYPES: ProbeType[] = ['startup', 'readiness', 'liveness'];

function workerKey(podUid: string, containerName: string, probeType: ProbeType): string {
  return `${podUid}/${containerName}/${probeType}`;
}

export class ProbeManager {
  readonly liveness = new ProbeResultsManager('liveness');
  readonly readiness = new ProbeResultsManager('readiness');
  readonly startup = new ProbeResultsManager('startup');
  readonly #options: ProbeManagerOptions;
  readonly #clock: ProberClock;
  readonly #start: number;
  readonly #workers = new Map<string, { podUid: string; worker: ProbeWorker }>();
  readonly #statuses = new Map<string, ApiPodStatus>();

  constructor(options: ProbeManagerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? REAL_CLOCK;
    this.#start = this.#clock.now();
  }

  /** starts a worker for every probe of the pod's containers (init containers have none); existing ones stay */
  addPod(pod: Pod): void {
    const podUid = pod.metadata?.uid ?? '';
    for (const container of ((pod.spec?.containers as ContainerSpec[] | undefined) ?? [])) {
      for (const probeType of PROBE_TYPES) {
        if (probeSpec(container, probeType) === undefined) continue;
        const key = workerKey(podUid, container.name, probeType);
        if (this.#workers.has(key)) continue;
        const worker = new ProbeWorker({
          pod,
          container,
          probeType,
          results: this[probeType],
          runtime: this.#options.runtime,
          recorder: this.#options.recorder,
          clock: this.#clock,
          random: this.#options.random ?? Math.random,
          podStatus: () => this.#options.getPodStatus?.(podUid) ?? this.#statuses.get(podUid),
          managerStart: this.#start,
          onStop: () => {
            if (this.#workers.get(key)?.worker === worker) this.#workers.delete(key);
          },
        });
        this.#workers.set(key, { podUid, worker });
        worker.start();
      }
    }
  }

  /** stops the pod's workers and forgets their results */
  removePod(pod: Pod): void {
    this.#removeWhere((podUid) => podUid === (pod.metadata?.uid ?? ''));
    this.#statuses.delete(pod.metadata?.uid ?? '');
  }

  /** stops the workers of every pod not in `desiredPodUids` */
  cleanupPods(desiredPodUids: Iterable<string>): void {
    const desired = new Set(desiredPodUids);
    this.#removeWhere((podUid) => !desired.has(podUid));
    for (const podUid of [...this.#statuses.keys()]) if (!desired.has(podUid)) this.#statuses.delete(podUid);
  }

  /**
   * sets containerStatuses[].started and .ready from the results, as kubelet: started when running
   * and the startup probe succeeded (or there is none); ready when started, running and the
   * readiness probe succeeded (or there is none; a probe not yet run counts as not ready); init
   * containers are ready when they exited 0. Modifies `status` and keeps it for the workers.
   */
  updatePodStatus(podUid: string, status: ApiPodStatus): void {
    for (const c of status.containerStatuses ?? []) {
      const running = c.state?.running !== undefined;
      let started: boolean;
      if (!running) started = false;
      else {
        const result = c.containerID ? this.startup.get(c.containerID) : undefined;
        started = result !== undefined ? result === 'success' : !this.#workers.has(workerKey(podUid, c.name, 'startup'));
      }
      c.started = started;
      if (started) {
        const result = c.containerID ? this.readiness.get(c.containerID) : undefined;
        c.ready = result !== undefined ? result === 'success' : !this.#workers.has(workerKey(podUid, c.name, 'readiness'));
      } else {
        // kubelet leaves ready as the fresh status has it: false
        c.ready = false;
      }
    }
    for (const c of status.initContainerStatuses ?? []) c.ready = c.state?.terminated?.exitCode === 0;
    this.#statuses.set(podUid, status);
  }

  /** hears of every changed result of the three kinds; returns the unsubscribe function */
  onUpdate(listener: (update: ProbeUpdate) => void): () => void {
    const offs = [this.liveness.onUpdate(listener), this.readiness.onUpdate(listener), this.startup.onUpdate(listener)];
    return () => offs.forEach((off) => off());
  }

  /** stops every worker */
  stop(): void {
    this.#removeWhere(() => true);
  }

  /** the workers' probes in flight have settled (tests) */
  async idle(): Promise<void> {
    await Promise.all([...this.#workers.values()].map(({ worker }) => worker.idle));
  }

  /** how many workers run (tests, metrics) */
  get workerCount(): number {
    return this.#workers.size;
  }

  #removeWhere(match: (podUid: string) => boolean): void {
    for (const [key, { podUid, worker }] of this.#workers) {
      if (!match(podUid)) continue;
      worker.stop();
      this.#workers.delete(key);
    }
  }
}
