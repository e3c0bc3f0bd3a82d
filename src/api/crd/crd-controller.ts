/**
 * The in-process controllers of kube's apiextensions-apiserver, over the Registry (as a client of
 * the API, never of storage): they follow CustomResourceDefinitions with a list and a watch and,
 * for each changed definition, in kube's order:
 *
 * 1. naming: accept the requested names that no other CRD of the group (nor a built-in resource
 *    of the group) holds; NamesAccepted True/False with kube's reason and message, Established
 *    False/Installing (status writes through the status subresource);
 * 2. establishing: NamesAccepted True -> Established True (InitialNamesAccepted);
 * 3. serving: a CRD whose names are accepted (or that is established) serves its versions: the
 *    KindDefinitions of custom-resource.ts are added to, replaced in, or removed from the Scheme
 *    (routes, discovery and OpenAPI follow the Scheme);
 * 4. finalizing: a CRD being deleted loses its objects, then its cleanup finalizer (crd-finalizer.ts).
 *
 * `start` serves the definitions already stored before it resolves (the server is ready after it).
 */
import type pino from 'pino';
import { isApiError } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { Scheme } from '../scheme';
import type { Registry, WatchHandle } from '../registry/types';
import { timestamp } from '../registry/meta';
import { jsonEqual } from '../json-value';
import { CLEANUP_FINALIZER, GROUP, isObject, specOf, statusOf } from './types';
import { equivalentCondition, findCondition, isConditionTrue, setCondition } from './conditions';
import { addAcceptedNames, calculateNames } from './crd-naming';
import type { UsedNames } from './crd-naming';
import { buildCustomResource, servingKey } from './custom-resource';
import type { CustomResource } from './custom-resource';
import { cleanUpCrd } from './crd-finalizer';
import { nonStructuralCondition } from './crd-nonstructural';
import { CRD_RESOURCE } from './crd-kinds';

export interface CrdControllerOptions {
  registry: Registry;
  scheme: Scheme;
  logger?: pino.Logger;
  clock?: () => Date;
  /** first delay before a failed sync or cleanup is retried (default 200 ms; doubles up to 5 s) */
  retryMs?: number;
  /** how long a cleanup waits for objects with finalizers before it reports InstanceDeletionCheck */
  cleanupWaitMs?: number;
}

const STATUS_WRITE = { dryRun: false, fieldManager: 'kube-apiserver' };

/** names without the empty values Go's JSON leaves out */
function normalizedNames(n: unknown): unknown {
  if (!isObject(n)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(n)) if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) out[k] = v;
  return out;
}

export class CrdController {
  readonly #o: CrdControllerOptions;
  readonly #crdKind: KindDefinition;
  /** the newest state of every CRD seen, by name */
  readonly #latest = new Map<string, KubeObject>();
  /** what each CRD serves, by name */
  readonly #served = new Map<string, { key: string; resource: CustomResource }>();
  readonly #byKind = new WeakMap<KindDefinition, CustomResource>();
  readonly #queue = new Set<string>();
  readonly #retries = new Map<string, number>();
  readonly #cleaning = new Map<string, Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #draining?: Promise<void>;
  #watch?: WatchHandle;
  #closed = false;

  constructor(options: CrdControllerOptions) {
    this.#o = options;
    const kind = options.scheme.byResource(GROUP, 'v1', CRD_RESOURCE);
    if (!kind) throw new TypeError('apiextensions.k8s.io/v1 customresourcedefinitions is not served');
    this.#crdKind = kind;
  }

  /** the custom resource a kind belongs to (served or storage kinds), if any */
  resourceOf(kind: KindDefinition): CustomResource | undefined {
    return this.#byKind.get(kind);
  }

  /** list the stored definitions, serve them, then follow changes */
  async start(): Promise<void> {
    const list = await this.#o.registry.list({ kind: this.#crdKind }, {});
    for (const crd of list.items) this.#latest.set(String(crd.metadata?.name), structuredClone(crd));
    for (const name of [...this.#latest.keys()]) await this.#syncSafely(name);
    this.#follow(list.metadata.resourceVersion);
  }

  /** resolves once every queued sync and running cleanup has finished (tests, shutdown) */
  async idle(): Promise<void> {
    for (;;) {
      const pending = [this.#draining, ...this.#cleaning.values()].filter(Boolean);
      if (pending.length === 0 && this.#queue.size === 0) return;
      await Promise.all(pending);
      if (this.#queue.size && !this.#draining) this.#drain();
    }
  }

  close(): void {
    this.#closed = true;
    this.#watch?.cancel();
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  #now(): string {
    return timestamp((this.#o.clock ?? (() => new Date()))());
  }

  #later(fn: () => void, ms: number): void {
    if (this.#closed) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      fn();
    }, ms);
    t.unref();
    this.#timers.add(t);
  }

  #follow(resourceVersion: string): void {
    if (this.#closed) return;
    let ended = false;
    const restart = () => {
      if (ended) return;
      ended = true;
      this.#watch?.cancel();
      // relist: a 410 or a closed stream may have lost events
      this.#later(() => {
        this.#relist().catch((err) => {
          if (this.#closed) return;
          this.#o.logger?.warn({ err }, 'CRD relist failed');
          restart();
        });
      }, 200);
    };
    this.#o.registry
      .watch({ kind: this.#crdKind }, { resourceVersion }, {
        send: (event) => {
          if (this.#closed) return false;
          if (event.type === 'ERROR') {
            restart();
            return false;
          }
          if (event.type === 'BOOKMARK') return true;
          const crd = event.object as KubeObject;
          const name = String(crd.metadata?.name ?? '');
          if (event.type === 'DELETED') this.#latest.delete(name);
          else this.#latest.set(name, structuredClone(crd));
          this.#enqueue(name);
          return true;
        },
        end: () => restart(),
      })
      .then((handle) => {
        this.#watch = handle;
        if (this.#closed) handle.cancel();
      })
      .catch((err) => {
        if (this.#closed) return;
        this.#o.logger?.warn({ err }, 'CRD watch failed');
        restart();
      });
  }

  async #relist(): Promise<void> {
    const list = await this.#o.registry.list({ kind: this.#crdKind }, {});
    const seen = new Set<string>();
    for (const crd of list.items) {
      const name = String(crd.metadata?.name);
      seen.add(name);
      this.#latest.set(name, structuredClone(crd));
      this.#enqueue(name);
    }
    for (const name of [...this.#latest.keys(), ...this.#served.keys()]) {
      if (!seen.has(name)) {
        this.#latest.delete(name);
        this.#enqueue(name);
      }
    }
    this.#follow(list.metadata.resourceVersion);
  }

  #enqueue(name: string): void {
    this.#queue.add(name);
    if (!this.#draining) this.#drain();
  }

  #drain(): void {
    this.#draining = (async () => {
      while (this.#queue.size && !this.#closed) {
        const name = this.#queue.values().next().value as string;
        this.#queue.delete(name);
        await this.#syncSafely(name);
      }
    })().finally(() => {
      this.#draining = undefined;
    });
  }

  async #syncSafely(name: string): Promise<void> {
    try {
      await this.#sync(name);
      this.#retries.delete(name);
    } catch (err) {
      if (this.#closed) return;
      const delay = Math.min((this.#retries.get(name) ?? this.#o.retryMs ?? 200) * 2, 5000);
      this.#retries.set(name, delay);
      this.#o.logger?.warn({ err, crd: name }, 'CRD sync failed; will retry');
      this.#later(() => this.#enqueue(name), delay);
    }
  }

  /** the names of a group taken by other CRDs and by the group's built-in resources */
  #usedNames(group: string, except: string): UsedNames {
    const used: UsedNames = { resources: new Set(), kinds: new Set() };
    for (const [name, crd] of this.#latest) if (name !== except && specOf(crd).group === group) addAcceptedNames(used, crd);
    for (const k of this.#o.scheme.kinds) {
      if (k.group !== group || this.#byKind.has(k)) continue;
      for (const n of [k.resource, k.singular, ...k.shortNames]) used.resources.add(n);
      used.kinds.add(k.kind).add(k.listKind);
    }
    return used;
  }

  #requeueGroup(group: string | undefined, except: string): void {
    for (const [name, crd] of this.#latest) if (name !== except && specOf(crd).group === group) this.#enqueue(name);
  }

  async #writeStatus(crd: KubeObject): Promise<KubeObject | undefined> {
    try {
      const result = await this.#o.registry.updateStatus({ kind: this.#crdKind, name: crd.metadata?.name }, crd, STATUS_WRITE);
      const name = String(result.object.metadata?.name);
      if (this.#latest.has(name)) this.#latest.set(name, structuredClone(result.object));
      return structuredClone(result.object);
    } catch (err) {
      // deleted or changed meanwhile: the watch brings the newer state
      if (isApiError(err) && (err.code === 404 || err.code === 409)) return undefined;
      throw err;
    }
  }

  async #sync(name: string): Promise<void> {
    let crd = this.#latest.get(name);
    if (!crd) {
      const group = this.#served.get(name)?.resource.group;
      this.#unserve(name);
      this.#requeueGroup(group, name);
      return;
    }
    crd = structuredClone(crd);
    const group = String(specOf(crd).group ?? '');
    // 1. naming
    if (!jsonEqual(normalizedNames(specOf(crd).names), normalizedNames(statusOf(crd).acceptedNames))) {
      const result = calculateNames(crd, this.#usedNames(group, name));
      const before = findCondition(crd, 'NamesAccepted');
      if (!jsonEqual(normalizedNames(result.acceptedNames), normalizedNames(statusOf(crd).acceptedNames)) || !equivalentCondition(result.namesAccepted, before)) {
        (crd.status as Record<string, unknown>).acceptedNames = result.acceptedNames;
        setCondition(crd, result.namesAccepted, this.#now());
        setCondition(crd, result.established, this.#now());
        const written = await this.#writeStatus(crd);
        if (!written) return;
        crd = written;
        this.#requeueGroup(group, name);
      }
    }
    // 2. establishing
    if (isConditionTrue(crd, 'NamesAccepted') && !isConditionTrue(crd, 'Established')) {
      setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }, this.#now());
      const written = await this.#writeStatus(crd);
      if (!written) return;
      crd = written;
    }
    // kube's NonStructuralSchema condition controller
    const nonStructural = nonStructuralCondition(crd);
    const had = findCondition(crd, 'NonStructuralSchema');
    if ((nonStructural || had) && !(nonStructural && equivalentCondition(nonStructural, had))) {
      if (nonStructural) setCondition(crd, nonStructural, this.#now());
      else (crd.status as { conditions: unknown[] }).conditions = statusOf(crd).conditions!.filter((c) => c.type !== 'NonStructuralSchema');
      const written = await this.#writeStatus(crd);
      if (!written) return;
      crd = written;
    }
    // 3. serving
    if (isConditionTrue(crd, 'NamesAccepted') || isConditionTrue(crd, 'Established')) this.#serve(name, crd);
    else this.#unserve(name);
    // 4. finalizing
    if (crd.metadata?.deletionTimestamp && (crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) this.#cleanUp(name);
  }

  #serve(name: string, crd: KubeObject): void {
    const key = servingKey(crd);
    const current = this.#served.get(name);
    const terminating = isConditionTrue(crd, 'Terminating');
    if (current?.key === key) {
      current.resource.terminating = terminating;
      return;
    }
    const resource = buildCustomResource(crd);
    resource.terminating = terminating;
    const old = current?.resource.kinds ?? [];
    try {
      this.#o.scheme.replace((k) => old.includes(k), resource.kinds);
    } catch (err) {
      this.#o.logger?.warn({ err, crd: name }, 'cannot serve custom resource');
      return;
    }
    for (const k of [...resource.kinds, resource.storageKind]) if (k) this.#byKind.set(k, resource);
    this.#served.set(name, { key, resource });
  }

  #unserve(name: string): void {
    const current = this.#served.get(name);
    if (!current) return;
    this.#served.delete(name);
    const kinds = current.resource.kinds;
    this.#o.scheme.remove((k) => kinds.includes(k));
  }

  #cleanUp(name: string): void {
    if (this.#cleaning.has(name) || this.#closed) return;
    const run = (async () => {
      const crd = this.#latest.get(name);
      if (!crd) return;
      await cleanUpCrd(
        {
          registry: this.#o.registry,
          crdKind: this.#crdKind,
          storageKind: this.#served.get(name)?.resource.storageKind,
          now: () => this.#now(),
          waitMs: this.#o.cleanupWaitMs,
        },
        crd,
      );
    })()
      .catch((err) => {
        if (isApiError(err) && (err.code === 404 || err.code === 409)) {
          // changed meanwhile: the next event starts it again
          this.#later(() => this.#enqueue(name), this.#o.retryMs ?? 200);
          return;
        }
        if (this.#closed) return;
        this.#o.logger?.warn({ err, crd: name }, 'CRD cleanup failed; will retry');
        this.#later(() => this.#enqueue(name), Math.max(this.#o.retryMs ?? 200, 1000));
      })
      .finally(() => this.#cleaning.delete(name));
    this.#cleaning.set(name, run);
  }
}
