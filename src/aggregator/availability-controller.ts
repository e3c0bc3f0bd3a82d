/**
 * kube's AvailableConditionController, in the API server process: every APIService is checked
 * (availability.ts) when it changes, when the Service or Endpoints it names change, and every 30 s
 * (kube's resync); a failed discovery check is retried sooner, with kube's per-item backoff (5 ms
 * doubling up to 30 s). The Available condition is written through the Registry's status
 * subresource, and only when it changed.
 */
import type pino from 'pino';
import type { KindDefinition } from '../api/kind';
import { isApiError } from '../api/errors';
import type { Registry } from '../api/registry/types';
import { jsonEqual } from '../api/json-value';
import type { APIService } from './apiservice';
import { setCondition } from './apiservice';
import { checkAvailability } from './availability';
import type { AvailabilityDeps } from './availability';

export interface AvailabilityControllerOptions {
  registry: Registry;
  /** apiregistration.k8s.io/v1 APIService */
  kind: KindDefinition;
  /** the informer's view of the APIServices */
  get(name: string): APIService | undefined;
  list(): APIService[];
  deps: AvailabilityDeps;
  logger?: pino.Logger;
  /** kube's resync period: 30 s */
  resyncMs?: number;
  /** checks run at once (kube's workers) */
  concurrency?: number;
}

const BACKOFF_BASE_MS = 5;
const BACKOFF_MAX_MS = 30_000;

export class AvailabilityController {
  readonly #o: AvailabilityControllerOptions;
  readonly #queue = new Set<string>();
  readonly #active = new Set<string>();
  /** names queued again while being checked */
  readonly #again = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #retries = new Map<string, NodeJS.Timeout>();
  #resync: NodeJS.Timeout | undefined;
  #started = false;
  #stopped = false;

  constructor(o: AvailabilityControllerOptions) {
    this.#o = o;
  }

  start(): void {
    this.#started = true;
    for (const s of this.#o.list()) this.enqueue(s.metadata.name);
    this.#resync = setInterval(() => {
      for (const s of this.#o.list()) this.enqueue(s.metadata.name);
    }, this.#o.resyncMs ?? 30_000);
    this.#resync.unref?.();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#resync);
    for (const t of this.#retries.values()) clearTimeout(t);
    this.#retries.clear();
  }

  enqueue(name: string): void {
    if (this.#stopped) return;
    if (this.#active.has(name)) {
      this.#again.add(name);
      return;
    }
    this.#queue.add(name);
    this.#pump();
  }

  /** a Service or its Endpoints changed: check the registrations that name it */
  serviceChanged(namespace: string, name: string): void {
    for (const s of this.#o.list()) {
      const ref = s.spec?.service;
      if (ref && ref.namespace === namespace && ref.name === name) this.enqueue(s.metadata.name);
    }
  }

  #pump(): void {
    if (!this.#started || this.#stopped) return;
    const limit = this.#o.concurrency ?? 5;
    while (this.#active.size < limit && this.#queue.size > 0) {
      const [name] = this.#queue;
      this.#queue.delete(name);
      this.#active.add(name);
      void this.#sync(name).finally(() => {
        this.#active.delete(name);
        if (this.#again.delete(name)) this.#queue.add(name);
        this.#pump();
      });
    }
  }

  async #sync(name: string): Promise<void> {
    const original = this.#o.get(name);
    if (!original) {
      this.#failures.delete(name);
      return;
    }
    let failed = false;
    try {
      const available = await checkAvailability(original, this.#o.deps);
      failed = available.reason === 'FailedDiscoveryCheck';
      await this.#write(original, available);
    } catch (err) {
      if (this.#stopped) return;
      failed = true;
      this.#o.logger?.warn({ err, apiService: name }, 'availability: status update failed');
    }
    if (failed) this.#retryLater(name);
    else this.#failures.delete(name);
  }

  async #write(original: APIService, available: ReturnType<typeof setCondition>[number]): Promise<void> {
    const conditions = setCondition(original.status?.conditions, available);
    const before = original.status?.conditions ?? [];
    if (jsonEqual(before, conditions)) return;
    const old = before.find((c) => c.type === 'Available');
    const next: APIService = { ...structuredClone(original), status: { ...original.status, conditions } };
    try {
      await this.#o.registry.updateStatus({ kind: this.#o.kind, name: original.metadata.name }, next, { dryRun: false, fieldManager: 'kube-apiserver' });
    } catch (err) {
      // a newer object is on its way through the informer; its change queues another check
      if (isApiError(err) && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
    if (old?.status !== available.status || old?.reason !== available.reason) {
      this.#o.logger?.info(
        { apiService: original.metadata.name, status: available.status, reason: available.reason, message: available.message },
        'changing APIService availability',
      );
    }
  }

  #retryLater(name: string): void {
    const failures = (this.#failures.get(name) ?? 0) + 1;
    this.#failures.set(name, failures);
    const delay = Math.min(BACKOFF_BASE_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
    clearTimeout(this.#retries.get(name));
    const timer = setTimeout(() => {
      this.#retries.delete(name);
      this.enqueue(name);
    }, delay);
    timer.unref?.();
    this.#retries.set(name, timer);
  }
}
