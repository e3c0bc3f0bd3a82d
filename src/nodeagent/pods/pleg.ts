/**
 * The generic pod lifecycle event generator (kubelet's pleg.GenericPLEG): every relist period it
 * lists the runtime's pods (exited ones included), compares each container's state with the
 * previous relist, and for each pod that changed refreshes the pod's runtime status in the cache
 * and emits ContainerStarted, ContainerDied, ContainerRemoved or ContainerChanged.
 */
import type { Logger } from 'pino';
import type { ContainerRuntime, PodRuntimeStatus, RunningPod } from '../types';

export type PlegEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved' | 'ContainerChanged';

export interface PlegEvent {
  podUid: string;
  type: PlegEventType;
  /** the container (or sandbox) id */
  data: string;
}

/** a pod's runtime status and when it was read (kubelet's kubecontainer.Cache) */
export class PodCache {
  readonly #entries = new Map<string, { status: PodRuntimeStatus; at: number }>();

  set(uid: string, status: PodRuntimeStatus, at: number): void {
    this.#entries.set(uid, { status, at });
  }

  get(uid: string): { status: PodRuntimeStatus; at: number } | undefined {
    return this.#entries.get(uid);
  }

  delete(uid: string): void {
    this.#entries.delete(uid);
  }
}

type PlegState = 'running' | 'exited' | 'unknown' | 'non-existent';

function plegState(state: string): PlegState {
  if (state === 'running') return 'running';
  if (state === 'exited') return 'exited';
  // kubelet has no use for the created state yet: it counts as unknown
  return 'unknown';
}

function eventsFor(podUid: string, id: string, oldState: PlegState, newState: PlegState): PlegEvent[] {
  if (oldState === newState) return [];
  switch (newState) {
    case 'running':
      return [{ podUid, type: 'ContainerStarted', data: id }];
    case 'exited':
      return [{ podUid, type: 'ContainerDied', data: id }];
    case 'unknown':
      return [{ podUid, type: 'ContainerChanged', data: id }];
    case 'non-existent':
      if (oldState === 'exited') return [{ podUid, type: 'ContainerRemoved', data: id }];
      return [
        { podUid, type: 'ContainerDied', data: id },
        { podUid, type: 'ContainerRemoved', data: id },
      ];
  }
}

function statesOf(pod: RunningPod | undefined): Map<string, PlegState> {
  const out = new Map<string, PlegState>();
  if (!pod) return out;
  // sandboxes count as containers, as kubelet's relist does: a sandbox that dies is an event
  for (const id of pod.sandboxIds) out.set(id, 'running');
  for (const c of pod.containers) out.set(c.id, plegState(c.state));
  return out;
}

export interface PlegOptions {
  runtime: ContainerRuntime;
  cache: PodCache;
  relistPeriodMs: number;
  now: () => number;
  logger: Logger;
  onEvent(event: PlegEvent): void;
}

export class Pleg {
  readonly #opts: PlegOptions;
  #previous = new Map<string, RunningPod>();
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;
  #running: Promise<void> | undefined;
  #lastRelist = 0;

  constructor(opts: PlegOptions) {
    this.#opts = opts;
  }

  start(): void {
    this.#stopped = false;
    const tick = () => {
      if (this.#stopped) return;
      this.#running = this.relist().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#opts.relistPeriodMs);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** when the last relist finished (kubelet's PLEG health check reads it) */
  get lastRelist(): number {
    return this.#lastRelist;
  }

  /** one relist: compare, refresh the cache of changed pods, emit their events */
  async relist(): Promise<void> {
    const { runtime, cache, logger, now } = this.#opts;
    const started = now();
    let pods: RunningPod[];
    try {
      pods = await runtime.getPods(true);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'PLEG: cannot list the runtime pods');
      return;
    }
    const current = new Map(pods.map((p) => [p.uid, p]));
    const uids = new Set([...current.keys(), ...this.#previous.keys()]);
    for (const uid of uids) {
      const before = statesOf(this.#previous.get(uid));
      const after = statesOf(current.get(uid));
      const events: PlegEvent[] = [];
      for (const id of new Set([...before.keys(), ...after.keys()])) {
        events.push(...eventsFor(uid, id, before.get(id) ?? 'non-existent', after.get(id) ?? 'non-existent'));
      }
      if (events.length === 0) continue;
      const pod = current.get(uid) ?? this.#previous.get(uid)!;
      try {
        cache.set(uid, await runtime.getPodStatus(uid, pod.name, pod.namespace), started);
      } catch (err) {
        logger.warn({ uid, err: (err as Error).message }, 'PLEG: cannot read a pod status');
      }
      for (const e of events) this.#opts.onEvent(e);
    }
    this.#previous = current;
    this.#lastRelist = now();
  }
}
