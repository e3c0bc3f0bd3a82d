/**
 * The probe results the prober publishes (kubelet's prober/results.Manager): the latest result per
 * container id, and a notice to subscribers whenever one is set to a different value (or first set).
 */
import type { ProbeResult, ProbeResults } from '../types';

export type ProbeType = 'liveness' | 'readiness' | 'startup';

/** a result that changed */
export interface ProbeUpdate {
  probeType: ProbeType;
  /** `<runtime>://<id>`, as containerStatuses[].containerID */
  containerId: string;
  result: ProbeResult;
  podUid: string;
}

export class ProbeResultsManager implements ProbeResults {
  readonly probeType: ProbeType;
  readonly #results = new Map<string, ProbeResult>();
  readonly #listeners = new Set<(update: ProbeUpdate) => void>();

  constructor(probeType: ProbeType) {
    this.probeType = probeType;
  }

  get(containerId: string): ProbeResult | undefined {
    return this.#results.get(containerId);
  }

  /** records a result; subscribers hear of it when it differs from the previous one */
  set(containerId: string, result: ProbeResult, podUid: string): void {
    if (this.#results.get(containerId) === result) return;
    this.#results.set(containerId, result);
    for (const listener of this.#listeners) listener({ probeType: this.probeType, containerId, result, podUid });
  }

  remove(containerId: string): void {
    this.#results.delete(containerId);
  }

  /** subscribe; returns the unsubscribe function */
  onUpdate(listener: (update: ProbeUpdate) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
