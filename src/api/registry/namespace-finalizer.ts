/**
 * Namespace deletion. kube's namespace store marks the namespace Terminating (deletionTimestamp +
 * status.phase) on the first DELETE and keeps it while spec.finalizers is not empty; kube's
 * namespace controller then deletes everything in it and removes the `kubernetes` finalizer, and
 * the namespace disappears once no finalizer remains.
 *
 * There is no controller manager yet, so NamespaceFinalizer is an in-process stand-in for kube's
 * namespace controller: it deletes every namespaced object of the namespace (each storage location
 * once, with Background propagation, as the controller does), retries while objects remain (pods in
 * their grace period, objects with finalizers), then drops `kubernetes` from spec.finalizers, which
 * removes the namespace when no other finalizer is left.
 */
import { isApiError } from '../errors';
import type { KindDefinition, KubeObject } from '../kind';
import type { DeleteOptions, DeleteResult, Target } from './types';
import type { RegistryContext } from './context';
import { readCurrent, requireName } from './context';
import { clone } from './codec';
import { collectionPrefix } from './keys';
import { metaOf, timestamp } from './meta';
import { checkDeletePreconditions, gcFinalizers } from './delete-options';
import { guaranteedUpdate } from './guaranteed-update';
import { IMMORTAL_NAMESPACES, forbidden } from './namespace-lifecycle';
import { deleteGeneric } from './delete';

export const FINALIZER_KUBERNETES = 'kubernetes';

function specFinalizers(ns: KubeObject): string[] {
  const f = (ns.spec as { finalizers?: unknown } | undefined)?.finalizers;
  return Array.isArray(f) ? (f as string[]) : [];
}

export async function deleteNamespace(ctx: RegistryContext, target: Target, options: DeleteOptions): Promise<DeleteResult> {
  const name = requireName(target);
  if (IMMORTAL_NAMESPACES.has(name)) throw forbidden(target.kind, name, 'this namespace may not be deleted');
  const current = await readCurrent(ctx, target);
  checkDeletePreconditions(target.kind, current.obj, options);
  const code = options.orphanDependents === false ? 202 : 200;
  if (!current.obj.metadata?.deletionTimestamp) {
    // the first DELETE: switch to Terminating and hand the content to the finalizer
    const result = await guaranteedUpdate(ctx, {
      target,
      dryRun: options.dryRun,
      compute: (cur) => {
        checkDeletePreconditions(target.kind, cur.obj, options);
        const ns = clone(cur.obj);
        const meta = metaOf(ns);
        if (!meta.deletionTimestamp) meta.deletionTimestamp = timestamp(ctx.clock());
        ns.status = { ...((ns.status as object | undefined) ?? {}), phase: 'Terminating' };
        const gc = gcFinalizers(target.kind, ns, options);
        if (gc.changed) meta.finalizers = gc.finalizers;
        return ns;
      },
    });
    if (!options.dryRun) ctx.onNamespaceTerminating?.(name);
    return { code, body: result.object };
  }
  if (specFinalizers(current.obj).length > 0) {
    if (!options.dryRun) ctx.onNamespaceTerminating?.(name);
    return { code, body: current.obj };
  }
  return deleteGeneric(ctx, target, options);
}

export interface NamespaceFinalizerOptions {
  ctx: RegistryContext;
  /** first retry delay while content remains; doubles up to maxDelayMs */
  retryDelayMs?: number;
  maxDelayMs?: number;
}

export class NamespaceFinalizer {
  readonly #ctx: RegistryContext;
  readonly #retryDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #running = new Map<string, Promise<void>>();
  readonly #timers = new Map<NodeJS.Timeout, () => void>();
  #closed = false;

  constructor(opts: NamespaceFinalizerOptions) {
    this.#ctx = opts.ctx;
    this.#retryDelayMs = opts.retryDelayMs ?? 200;
    this.#maxDelayMs = opts.maxDelayMs ?? 5000;
  }

  /** start finalizing namespace `name` (idempotent while a run is under way) */
  schedule(name: string, delayMs = 0): void {
    if (this.#closed || this.#running.has(name)) return;
    const run = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#finalize(name, delayMs)
          .catch((err) => {
            this.#ctx.logger?.warn({ err, namespace: name }, 'namespace finalization failed; will retry');
            this.#running.delete(name);
            this.schedule(name, Math.min(Math.max(delayMs * 2, this.#retryDelayMs), this.#maxDelayMs));
          })
          .finally(resolve);
      }, delayMs);
      // a cancelled run still settles, so idle() never hangs
      this.#timers.set(timer, resolve);
    });
    this.#running.set(name, run);
    void run.then(() => {
      if (this.#running.get(name) === run) this.#running.delete(name);
    });
  }

  /** resolves when no finalization is under way (tests) */
  async idle(): Promise<void> {
    while (this.#running.size) await Promise.all([...this.#running.values()]);
  }

  close(): void {
    this.#closed = true;
    for (const [timer, settle] of this.#timers) {
      clearTimeout(timer);
      settle();
    }
    this.#timers.clear();
  }

  /** one namespaced kind per storage location */
  #locations(): KindDefinition[] {
    const seen = new Set<string>();
    const out: KindDefinition[] = [];
    for (const k of this.#ctx.scheme.kinds) {
      const loc = `${k.storage.group}/${k.storage.resource}`;
      if (!k.namespaced || seen.has(loc)) continue;
      seen.add(loc);
      out.push(k);
    }
    return out;
  }

  async #finalize(name: string, lastDelay: number): Promise<void> {
    const ctx = this.#ctx;
    const nsTarget = this.#namespaceTarget(name);
    if (!nsTarget) return;
    let ns: KubeObject;
    try {
      ns = (await readCurrent(ctx, nsTarget)).obj;
    } catch {
      return; // gone already
    }
    if (!ns.metadata?.deletionTimestamp || !specFinalizers(ns).includes(FINALIZER_KUBERNETES)) return;
    let remaining = 0;
    for (const kind of this.#locations()) {
      if (this.#closed) return;
      const prefix = collectionPrefix(kind, name);
      const { items } = await ctx.store.list(prefix);
      for (const kv of items) {
        const objName = kv.key.slice(kv.key.lastIndexOf('/') + 1);
        try {
          await deleteGeneric(ctx, { kind, namespace: name, name: objName }, { dryRun: false, propagationPolicy: 'Background' });
        } catch (err) {
          // gone meanwhile is fine; anything else is retried on the next round
          if (!isApiError(err) || err.code !== 404) ctx.logger?.debug({ err, namespace: name, name: objName }, 'namespace content delete failed');
        }
      }
      // objects in their grace period or waiting for finalizers are still there
      remaining += await ctx.store.count(prefix);
    }
    if (this.#closed) return;
    if (remaining > 0) {
      const delay = Math.min(Math.max(lastDelay * 2, this.#retryDelayMs), this.#maxDelayMs);
      this.#running.delete(name);
      this.schedule(name, delay);
      return;
    }
    // content gone: drop our finalizer; the update removes the namespace when none remain
    await guaranteedUpdate(ctx, {
      target: nsTarget,
      dryRun: false,
      compute: (cur) => {
        const next = clone(cur.obj);
        const spec = (next.spec as { finalizers?: string[] } | undefined) ?? {};
        spec.finalizers = specFinalizers(next).filter((f) => f !== FINALIZER_KUBERNETES);
        next.spec = spec;
        return next;
      },
    });
  }

  #namespaceTarget(name: string): Target | undefined {
    const kind = this.#ctx.scheme.byResource('', 'v1', 'namespaces');
    return kind ? { kind, name } : undefined;
  }
}
