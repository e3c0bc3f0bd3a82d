/**
 * kube's autoregister controller: keeps the server's own APIServices as local-apiservices.ts wants
 * them, following the Scheme (custom resource group/versions come and go at runtime). kube's rule
 * per name, by what exists and what is wanted:
 *
 *   current \ desired                 | none        | on start    | always
 *   ----------------------------------|-------------|-------------|--------
 *   missing                           | -           | create once | create
 *   not automanaged                   | -           | -           | -
 *   on start, absent when we started  | -           | -           | -
 *   on start, present when we started | delete once | update once | update once
 *   always                            | delete      | update once | update
 *
 * "once": only until the first successful sync of that name, so an administrator's later change to
 * an on-start registration is left alone until the next start. Writes go through the Registry.
 */
import type pino from 'pino';
import type { KindDefinition } from '../api/kind';
import { isApiError } from '../api/errors';
import type { Registry } from '../api/registry/types';
import { jsonEqual } from '../api/json-value';
import type { APIService } from './apiservice';
import { AUTOMANAGED_LABEL, MANAGED_CONTINUOUSLY, MANAGED_ON_START } from './apiservice';
import type { DesiredAPIService } from './local-apiservices';

export type AutoRegisterAction = 'none' | 'create' | 'update' | 'delete';

/** kube's checkAPIService decision for one name */
export function autoRegisterAction(
  desired: DesiredAPIService | undefined,
  current: APIService | undefined,
  state: { syncedBefore: boolean; presentAtStart: boolean },
): AutoRegisterAction {
  if (!current && !desired) return 'none';
  if (desired?.mode === MANAGED_ON_START && state.syncedBefore) return 'none';
  if (!current) return 'create';
  const managed = current.metadata.labels?.[AUTOMANAGED_LABEL];
  if (managed !== MANAGED_ON_START && managed !== MANAGED_CONTINUOUSLY) return 'none';
  if (managed === MANAGED_ON_START && (!state.presentAtStart || state.syncedBefore)) return 'none';
  if (!desired) return 'delete';
  return jsonEqual(current.spec, desired.object.spec) ? 'none' : 'update';
}

export interface AutoRegistrationOptions {
  registry: Registry;
  /** apiregistration.k8s.io/v1 APIService */
  kind: KindDefinition;
  /** the current APIService of a name (the aggregator's informer) */
  current(name: string): APIService | undefined;
  logger?: pino.Logger;
  retryMs?: number;
}

/** the field manager kube's own writes are recorded under */
const MANAGER = 'kube-apiserver';

export class AutoRegistration {
  readonly #opts: AutoRegistrationOptions;
  #desired = new Map<string, DesiredAPIService>();
  #atStart: Set<string> | undefined;
  readonly #synced = new Set<string>();
  readonly #queue = new Set<string>();
  #running = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #idle: Promise<void> = Promise.resolve();

  constructor(opts: AutoRegistrationOptions) {
    this.#opts = opts;
  }

  /** start once the APIService informer has listed: the names present then are "present at start" */
  start(existing: Iterable<string>): void {
    this.#atStart = new Set(existing);
    this.#drain();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** resolves when the queue is empty (tests) */
  idle(): Promise<void> {
    return this.#idle;
  }

  /** replace the wanted set; changed and removed names are checked again */
  setDesired(next: Map<string, DesiredAPIService>): void {
    const prev = this.#desired;
    // set first: a check may start synchronously inside enqueue
    this.#desired = next;
    for (const [name, d] of next) if (!jsonEqual(prev.get(name)?.object, d.object)) this.enqueue(name);
    for (const name of prev.keys()) if (!next.has(name)) this.enqueue(name);
  }

  /** check `name` again (an APIService changed) */
  enqueue(name: string): void {
    this.#queue.add(name);
    this.#drain();
  }

  #drain(): void {
    if (this.#running || this.#stopped || !this.#atStart || this.#queue.size === 0) return;
    this.#running = true;
    this.#idle = (async () => {
      let failed = false;
      while (this.#queue.size > 0 && !this.#stopped) {
        const [name] = this.#queue;
        this.#queue.delete(name);
        try {
          await this.#check(name);
          this.#synced.add(name);
        } catch (err) {
          // a write cut short by our own stop (the server shutting down) is no failure to report
          if (this.#stopped) break;
          this.#opts.logger?.warn({ err, apiService: name }, 'autoregister: sync failed; retrying');
          failed = true;
          this.#retryLater(name);
        }
      }
      this.#running = false;
      if (!failed && this.#queue.size > 0) this.#drain();
    })();
  }

  #retryLater(name: string): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.enqueue(name), this.#opts.retryMs ?? 1000);
  }

  async #check(name: string): Promise<void> {
    const desired = this.#desired.get(name);
    const current = this.#opts.current(name);
    const action = autoRegisterAction(desired, current, { syncedBefore: this.#synced.has(name), presentAtStart: this.#atStart?.has(name) ?? false });
    const { registry, kind } = this.#opts;
    const ignore = (codes: number[]) => (err: unknown) => {
      if (!isApiError(err) || !codes.includes(err.code)) throw err;
    };
    if (action === 'create' && desired) {
      await registry.create({ kind }, structuredClone(desired.object), { dryRun: false, fieldManager: MANAGER, trusted: true }).catch(ignore([409]));
    } else if (action === 'delete' && current) {
      await registry
        .delete({ kind, name }, { dryRun: false, preconditions: { uid: current.metadata.uid } })
        .catch(ignore([404, 409]));
    } else if (action === 'update' && current && desired) {
      const next = structuredClone(current);
      next.spec = structuredClone(desired.object.spec);
      await registry.update({ kind, name }, next, { dryRun: false, fieldManager: MANAGER, trusted: true }).catch(ignore([404, 409]));
    }
  }
}
