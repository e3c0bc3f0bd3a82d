/**
 * One probe of one container, run periodically (kubelet 1.20's prober worker): it reads the pod's
 * latest status, waits for the container to run and for its initial delay, and publishes a result
 * once `successThreshold` successes or `failureThreshold` failures come in a row. Details as kube's:
 *
 * - a new container instance (another containerID) starts from the type's initial result
 *   (liveness success, readiness failure, startup none) and lifts the hold;
 * - after a liveness or startup failure is published the worker holds (stops probing) until the
 *   container is replaced, since the runtime will restart it;
 * - while the container is not running, readiness/liveness/startup record failure; a worker stops for
 *   good when the pod finished, or the container terminated and will not be restarted;
 * - the startup probe gates the others: they wait until the container has started, and the startup
 *   worker stops probing then;
 * - a probe that errors (could not run) leaves the result as it was;
 * - the first probe waits a random part of the period when the agent started less than a period
 *   ago, so that an agent restart does not probe everything at once.
 */
import type { Pod, ProbeResult, RuntimeService } from '../types';
import type { ProberClock } from './clock';
import { probe, probeSpec, type ContainerSpec, type ProbeEventRecorder } from './prober';
import type { ProbeResultsManager, ProbeType } from './results';

/** the parts of a pod's status (core/v1 PodStatus) the worker reads */
export interface ApiPodStatus {
  phase?: string;
  podIP?: string;
  containerStatuses?: ApiContainerStatus[];
  initContainerStatuses?: ApiContainerStatus[];
  [key: string]: unknown;
}

export interface ApiContainerStatus {
  name: string;
  containerID?: string;
  ready?: boolean;
  started?: boolean;
  state?: { running?: { startedAt?: string }; terminated?: { exitCode?: number }; waiting?: unknown };
  [key: string]: unknown;
}

export interface ProbeWorkerOptions {
  pod: Pod;
  container: ContainerSpec;
  probeType: ProbeType;
  results: ProbeResultsManager;
  runtime: Pick<RuntimeService, 'execSync'>;
  recorder: ProbeEventRecorder;
  clock: ProberClock;
  random: () => number;
  /** the pod's latest status (with started/ready as the manager set them) */
  podStatus: () => ApiPodStatus | undefined;
  /** when the prober started (epoch ms), for the first probe's jitter */
  managerStart: number;
  /** called once when the worker ends on its own */
  onStop: () => void;
}

const INITIAL_RESULTS: Record<ProbeType, ProbeResult | undefined> = { liveness: 'success', readiness: 'failure', startup: undefined };

export class ProbeWorker {
  readonly #o: ProbeWorkerOptions;
  readonly #spec: Record<string, unknown>;
  #containerId = '';
  #lastResult: ProbeResult | undefined;
  #resultRun = 0;
  #onHold = false;
  #timer: unknown;
  #stopped = false;
  /** resolves when the probe in flight (if any) is done; for tests */
  idle: Promise<void> = Promise.resolve();

  constructor(options: ProbeWorkerOptions) {
    this.#o = options;
    const spec = probeSpec(options.container, options.probeType);
    if (spec === undefined) throw new Error(`container ${options.container.name} has no ${options.probeType} probe`);
    this.#spec = spec;
  }

  get #periodMs(): number {
    return ((this.#spec.periodSeconds as number | undefined) ?? 10) * 1000;
  }

  start(): void {
    const { clock, random, managerStart } = this.#o;
    const period = this.#periodMs;
    const delay = period > clock.now() - managerStart ? Math.floor(random() * period) : 0;
    this.#timer = clock.setTimeout(() => this.#tick(), delay);
  }

  /** stops probing and forgets the container's result */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#o.clock.clearTimeout(this.#timer);
    if (this.#containerId !== '') this.#o.results.remove(this.#containerId);
  }

  #tick(): void {
    if (this.#stopped) return;
    this.idle = this.#doProbe().then(
      (keepGoing) => {
        if (this.#stopped) return;
        if (!keepGoing) {
          this.stop();
          this.#o.onStop();
          return;
        }
        this.#timer = this.#o.clock.setTimeout(() => this.#tick(), this.#periodMs);
      },
      () => {
        if (!this.#stopped) this.#timer = this.#o.clock.setTimeout(() => this.#tick(), this.#periodMs);
      },
    );
  }

  /** one round; false when the worker should end */
  async #doProbe(): Promise<boolean> {
    const { pod, container, probeType, results, clock } = this.#o;
    const podUid = pod.metadata?.uid ?? '';
    const status = this.#o.podStatus();
    if (status === undefined) return true; // no status yet
    if (status.phase === 'Failed' || status.phase === 'Succeeded') return false;
    const c = (status.containerStatuses ?? []).find((s) => s.name === container.name);
    if (c === undefined || !c.containerID) return true; // not created yet

    if (this.#containerId !== c.containerID) {
      if (this.#containerId !== '') results.remove(this.#containerId);
      this.#containerId = c.containerID;
      const initial = INITIAL_RESULTS[probeType];
      if (initial !== undefined) results.set(this.#containerId, initial, podUid);
      this.#onHold = false;
      this.#lastResult = undefined;
      this.#resultRun = 0;
    }
    if (this.#onHold) return true;

    const running = c.state?.running;
    if (running === undefined) {
      results.set(this.#containerId, 'failure', podUid);
      const restartPolicy = (pod.spec?.restartPolicy as string | undefined) ?? 'Always';
      return c.state?.terminated === undefined || restartPolicy !== 'Never';
    }
    // a pod being deleted needs no liveness or startup probing
    if (pod.metadata?.deletionTimestamp && (probeType === 'liveness' || probeType === 'startup')) {
      results.set(this.#containerId, 'success', podUid);
      return false;
    }
    const startedAt = running.startedAt ? Date.parse(running.startedAt) : 0;
    const initialDelay = (this.#spec.initialDelaySeconds as number | undefined) ?? 0;
    if (Math.floor((clock.now() - startedAt) / 1000) < initialDelay) return true;

    if (c.started === true) {
      if (probeType === 'startup') return true; // started: no more startup probing
    } else if (probeType !== 'startup') {
      return true; // the others wait for the startup probe
    }

    let result: ProbeResult;
    try {
      result = await probe(this.#o.runtime, this.#o.recorder, probeType, { pod, container, containerId: this.#containerId, podIP: status.podIP ?? '' });
    } catch {
      return true; // errored: keep the last result
    }
    if (this.#stopped) return false;
    if (this.#lastResult === result) {
      this.#resultRun++;
    } else {
      this.#lastResult = result;
      this.#resultRun = 1;
    }
    const failureThreshold = (this.#spec.failureThreshold as number | undefined) ?? 3;
    const successThreshold = (this.#spec.successThreshold as number | undefined) ?? 1;
    if ((result === 'failure' && this.#resultRun < failureThreshold) || (result === 'success' && this.#resultRun < successThreshold)) return true;
    results.set(this.#containerId, result, podUid);
    if ((probeType === 'liveness' || probeType === 'startup') && result === 'failure') {
      // the runtime restarts the container; probe again once a new instance runs
      this.#onHold = true;
      this.#resultRun = 0;
    }
    return true;
  }
}
